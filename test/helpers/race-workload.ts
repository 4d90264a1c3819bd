/**
 * The race workload shared by the concurrency tests and bench/lost-writes.ts: W writers, each with
 * K regions in flight, write column stripes of a 2-D int32 array. Stripes are narrower than a
 * chunk and do not align with chunk borders, so every chunk is written piecewise by several
 * writers at once: exactly the read-modify-write that loses data without chunk locks.
 */
export interface RaceWorkload {
  writers: number;
  /** Regions each writer has in flight at once. */
  perWriter: number;
  /** Columns per stripe (not a divisor of the chunk width). */
  stripe: number;
  rows: number;
  chunks: [number, number];
}

export const SMALL_RACE: RaceWorkload = { writers: 4, perWriter: 6, stripe: 5, rows: 24, chunks: [8, 32] };

export function raceShape(w: RaceWorkload): [number, number] {
  return [w.rows, w.writers * w.perWriter * w.stripe];
}

/** The column range [start, stop) of region r of writer i: stripes interleave across writers. */
export function raceRegion(w: RaceWorkload, writer: number, r: number): [number, number] {
  const start = (r * w.writers + writer) * w.stripe;
  return [start, start + w.stripe];
}

/** The value writer i writes into region r in a round: distinct per writer, region and round. */
export function raceValue(writer: number, r: number, round: number): number {
  return round * 10_000 + writer * 100 + r + 1;
}

/** The value each column must hold after `round` completed without losses. */
export function expectedColumns(w: RaceWorkload, round: number): number[] {
  const cols = new Array<number>(raceShape(w)[1]).fill(0);
  for (let i = 0; i < w.writers; i++) {
    for (let r = 0; r < w.perWriter; r++) {
      const [a, b] = raceRegion(w, i, r);
      for (let c = a; c < b; c++) cols[c] = raceValue(i, r, round);
    }
  }
  return cols;
}

/** How many elements of a C-order [rows, cols] array differ from what the round should leave. */
export function countLost(w: RaceWorkload, round: number, data: ArrayLike<number>): number {
  const cols = expectedColumns(w, round);
  let lost = 0;
  for (let i = 0; i < data.length; i++) if (data[i] !== cols[i % cols.length]) lost++;
  return lost;
}
