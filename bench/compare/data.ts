/**
 * The benchmark dataset of issue 3: float32 (or float64) random walks along rows. Each row starts
 * at its own level and takes small steps, so neighbouring values share their high bytes the way
 * real sensor or simulation data does; that is what makes shuffle + LZ4 worth measuring.
 */

/** mulberry32: a tiny seeded PRNG, so every run (and every cache) sees the same values. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Fills `out` (rows x cols, C order) with random walks along each row: start uniform in
 * [-100, 100), steps uniform in [-0.5, 0.5). Rows `rowStart..` of a larger array get the same
 * values whichever slab they are generated in, because each row has its own seed.
 */
export function fillRandomWalks(out: Float32Array | Float64Array, rows: number, cols: number, rowStart = 0, seed = 1): void {
  for (let r = 0; r < rows; r++) {
    const rand = seededRandom(seed * 1000003 + rowStart + r);
    let v = rand() * 200 - 100;
    const base = r * cols;
    for (let c = 0; c < cols; c++) {
      v += rand() - 0.5;
      out[base + c] = v;
    }
  }
}

export function randomWalkFloat32(rows: number, cols: number, seed = 1): Float32Array {
  const a = new Float32Array(rows * cols);
  fillRandomWalks(a, rows, cols, 0, seed);
  return a;
}

export function randomWalkFloat64(rows: number, cols: number, seed = 1): Float64Array {
  const a = new Float64Array(rows * cols);
  fillRandomWalks(a, rows, cols, 0, seed);
  return a;
}

export const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
