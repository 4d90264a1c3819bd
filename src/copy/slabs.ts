/**
 * Slab planning for a rechunking copy. A slab is a box of the array aligned to the destination's
 * write unit (its chunk, or its shard when sharded) and clipped to the array, so every destination
 * chunk is written whole, once, with no read-modify-write. Its size comes from the memory budget,
 * counting every buffer the copy holds at once:
 *
 *   slab            the values read from the source and handed to the destination (one buffer:
 *                   `set` takes the array `get` returned without copying it)
 *   reads in flight decoded source chunks plus their compressed bytes, `inFlight` of them
 *   writes in flight gathered destination chunks plus their encoded bytes, `inFlight` of them
 *
 * Reads and writes of one slab do not overlap in time, so the slab is counted with the larger of
 * the two in-flight terms. A slab's read decodes only the source chunks it touches and its write
 * gathers only its own units, so each term counts no more chunks than that: a slab of small
 * destination chunks inside one large source chunk holds that one chunk, not `inFlight` of them.
 */
export interface SlabPlanInput {
  shape: readonly number[];
  /** The source's stored chunk (its shard when sharded). */
  sourceChunk: readonly number[];
  /** The destination's stored unit: its shard when sharded, else its chunk. */
  destUnit: readonly number[];
  /** Bytes per element in memory. */
  itemBytes: number;
  /** Chunk tasks a read or write keeps in flight at once. */
  inFlight: number;
  /** The budget in bytes. */
  memory: number;
  /**
   * A slab size worth stopping at even when the budget allows more (default 64 MiB): bigger
   * slabs only raise the peak. Never below a band of source-chunk-aligned rows, so a source chunk
   * is still decoded once.
   */
  slabTarget?: number;
}

export const DEFAULT_SLAB_TARGET = 64 * 2 ** 20;

export interface SlabPlan {
  slab: number[];
  /** Slabs along each dimension. */
  grid: number[];
  count: number;
  /** The most bytes the plan holds at once (see the module comment). */
  plannedPeak: number;
  slabBytes: number;
  inFlightBytes: number;
  /** Source chunks decoded over the whole copy, over source chunks in the array (>= 1). */
  readAmplification: number;
}

const prod = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Chunks of size `c` that a run of `len` elements starting at `start` touches. */
function touched(start: number, len: number, c: number): number {
  return len === 0 ? 0 : Math.floor((start + len - 1) / c) - Math.floor(start / c) + 1;
}

/** How many source chunks the slabs along one dimension decode, in total. */
function decodesAlong(n: number, slab: number, c: number): number {
  let total = 0;
  for (let s = 0; s < n; s += slab) total += touched(s, Math.min(slab, n - s), c);
  return total;
}

/**
 * Chunks of size `c` that a run of `len` touches at most, over the runs of a slab grid along a
 * dimension of `n` (starting at multiples of `len`, so at multiples of gcd(len, c) within a chunk).
 */
function touchedAtMost(len: number, c: number, n: number): number {
  const along = Math.ceil(n / c);
  if (len >= n) return along;
  const worstOffset = c - gcd(len, c);
  return Math.min(along, Math.floor((worstOffset + len - 1) / c) + 1);
}

/** The buffers in flight while `slab` is read or written (see the module comment). */
export function inFlightBytes(input: SlabPlanInput, slab: readonly number[]): number {
  const { shape, sourceChunk, destUnit, inFlight } = input;
  const clipped = (chunk: readonly number[]) => prod(chunk.map((c, d) => Math.min(c, Math.max(1, shape[d]))));
  const reads = Math.min(inFlight, prod(slab.map((len, d) => touchedAtMost(len, sourceChunk[d], shape[d]))));
  const writes = Math.min(inFlight, prod(slab.map((len, d) => Math.ceil(Math.min(len, shape[d]) / destUnit[d]))));
  return input.itemBytes * 2 * Math.max(reads * clipped(sourceChunk), writes * clipped(destUnit));
}

/**
 * The largest slab that fits the budget (up to `slabTarget`), grown one dimension at a time from
 * the last (so slabs are runs of whole rows first). Along each dimension a slab stays a multiple
 * of the destination unit and, where it can, of lcm(source chunk, destination unit), so source
 * chunks are not split between slabs and decoded twice. When even one destination unit does not
 * fit, the plan is that one unit with a `plannedPeak` over the budget: the caller refuses it or,
 * in a dry run, reports what it needs.
 */
export function planSlabs(input: SlabPlanInput): SlabPlan {
  const { shape, destUnit, sourceChunk, itemBytes } = input;
  const ndim = shape.length;
  // A band along the first axis as tall as lcm(source chunk, destination unit), whole along the
  // others: the smallest slab that decodes no source chunk twice.
  const band = ndim === 0 ? itemBytes : Math.min(shape[0], (destUnit[0] / gcd(destUnit[0], sourceChunk[0])) * sourceChunk[0]) * (prod(shape) / Math.max(1, shape[0])) * itemBytes;
  const target = Math.max(input.slabTarget ?? DEFAULT_SLAB_TARGET, band);
  const peak = (slab: number[]) => prod(slab) * itemBytes + inFlightBytes(input, slab);
  const fits = (slab: number[]) => prod(slab) * itemBytes <= target && peak(slab) <= input.memory;
  const slab = shape.map((n, d) => Math.max(1, Math.min(destUnit[d], n)));
  for (let d = ndim - 1; d >= 0 && peak(slab) <= input.memory; d--) {
    const n = shape[d];
    const u = destUnit[d];
    if (slab[d] >= n) continue;
    // The longest run along d that fits, the other dimensions as they are: a binary search over
    // multiples of `step`, from `k` of them (known to fit) to the whole dimension.
    const longest = (step: number, k: number) => {
      let hi = Math.ceil(n / step);
      while (k < hi) {
        const mid = Math.ceil((k + hi) / 2);
        if (fits(slab.map((s, i) => (i === d ? Math.min(n, mid * step) : s)))) k = mid;
        else hi = mid - 1;
      }
      return Math.min(n, k * step);
    };
    // Whole source chunks first, lcm(source chunk, unit) at a time: the chunks a run touches then
    // grow with it, so the search is exact. Below one lcm, whole units: any run found fits, though
    // a longer one that falls better on the source chunks might too.
    const lcm = (u / gcd(u, sourceChunk[d])) * sourceChunk[d];
    const extent = longest(lcm, 0) || longest(u, Math.ceil(slab[d] / u));
    slab[d] = Math.max(slab[d], extent);
    if (slab[d] < n) break; // a partial dimension: growing earlier ones would need it whole first
  }
  const grid = shape.map((n, d) => (n === 0 ? 0 : Math.ceil(n / slab[d])));
  const sourceTotal = prod(shape.map((n, d) => Math.ceil(n / sourceChunk[d])));
  const decoded = prod(shape.map((n, d) => decodesAlong(n, slab[d], sourceChunk[d])));
  const slabBytes = prod(slab) * itemBytes;
  const overhead = inFlightBytes(input, slab);
  return {
    slab,
    grid,
    count: prod(grid),
    plannedPeak: slabBytes + overhead,
    slabBytes,
    inFlightBytes: overhead,
    readAmplification: sourceTotal === 0 ? 1 : decoded / sourceTotal,
  };
}

/** The box of slab `index` (C order over the slab grid): start and stop along each dimension. */
export function slabBox(plan: Pick<SlabPlan, "slab" | "grid">, shape: readonly number[], index: number): { start: number[]; stop: number[] } {
  const start: number[] = new Array(shape.length);
  const stop: number[] = new Array(shape.length);
  let rem = index;
  for (let d = shape.length - 1; d >= 0; d--) {
    const k = rem % plan.grid[d];
    rem = Math.floor(rem / plan.grid[d]);
    start[d] = k * plan.slab[d];
    stop[d] = Math.min(shape[d], start[d] + plan.slab[d]);
  }
  return { start, stop };
}

/** Destination units a box covers (for progress: chunks written per slab). */
export function unitsIn(box: { start: number[]; stop: number[] }, unit: readonly number[]): number {
  return prod(box.start.map((s, d) => touched(s, box.stop[d] - s, unit[d])));
}
