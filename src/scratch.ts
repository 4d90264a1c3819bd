/**
 * Reused byte buffers, one free list per thread (main thread or worker). Chunk reads take their
 * compressed bytes and decoded chunk from here instead of allocating fresh ones: a fresh buffer
 * is fresh pages, and the first touch of a fresh 4 KiB page costs about as much as decoding it
 * (issue 12 measured 25-600 ms per 256 MiB of fresh 4 MiB buffers, worse on worker threads,
 * whose glibc arenas hand memory back between chunks).
 *
 * A buffer is taken for the duration of one use and given back; interleaved async reads each hold
 * their own, so they never share one.
 */

/** The most bytes the free list keeps; a larger buffer is used once and dropped. */
const MAX_KEPT_BYTES = 64 << 20;
/** The largest single buffer kept. */
const MAX_KEPT_BUFFER = 32 << 20;

/**
 * A free list of byte buffers. Two per thread: plain memory (chunk bytes, decoded chunks, encoder
 * output) and shared memory (write values staged for workers, see parallel/execution/staged-value.ts).
 */
class FreeList {
  private readonly free: Uint8Array[] = [];
  private keptBytes = 0;
  created = 0;

  constructor(private readonly make: (bytes: number) => Uint8Array) {}

  /**
   * A buffer of at least `n` bytes (its length may be larger: use `subarray(0, n)`). Prefers the
   * smallest free buffer that fits; otherwise allocates one, rounded up to 64 KiB so that slightly
   * larger requests later (a compressed chunk a few bytes longer) still fit.
   */
  take(n: number): Uint8Array {
    const free = this.free;
    let best = -1;
    for (let i = 0; i < free.length; i++) {
      if (free[i].length >= n && (best < 0 || free[i].length < free[best].length)) best = i;
    }
    if (best >= 0) {
      const b = free[best];
      free.splice(best, 1);
      this.keptBytes -= b.length;
      return b;
    }
    this.created++;
    return this.make(Math.ceil(Math.max(n, 1) / 65536) * 65536);
  }

  give(b: Uint8Array): void {
    if (b.length > MAX_KEPT_BUFFER) return;
    const free = this.free;
    // Over budget: drop the smallest buffers first, the large ones are what reads need.
    while (this.keptBytes + b.length > MAX_KEPT_BYTES && free.length > 0) {
      let smallest = 0;
      for (let i = 1; i < free.length; i++) if (free[i].length < free[smallest].length) smallest = i;
      if (free[smallest].length >= b.length) return;
      this.keptBytes -= free[smallest].length;
      free.splice(smallest, 1);
    }
    free.push(b);
    this.keptBytes += b.length;
  }
}

const plain = new FreeList((n) => new Uint8Array(n));
const shared = new FreeList((n) => new Uint8Array(new SharedArrayBuffer(n)));

/** A buffer of at least `n` bytes from this thread's free list (use `subarray(0, n)`). */
export function takeScratch(n: number): Uint8Array {
  return plain.take(n);
}

/** Gives a buffer from `takeScratch` back. Nothing may use it (or a view of it) afterwards. */
export function giveScratch(b: Uint8Array): void {
  plain.give(b);
}

/** How many buffers this thread has allocated so far (tests check that reads reuse them). */
export function scratchAllocations(): number {
  return plain.created;
}

/** As `takeScratch`, on a SharedArrayBuffer (callers check that shared memory exists). */
export function takeSharedScratch(n: number): Uint8Array {
  return shared.take(n);
}

/** Gives a buffer from `takeSharedScratch` back, once no worker reads it any more. */
export function giveSharedScratch(b: Uint8Array): void {
  shared.give(b);
}

/** How many shared buffers this thread has allocated so far. */
export function sharedScratchAllocations(): number {
  return shared.created;
}

/**
 * Scratch buffers taken for one job (encoding and storing one chunk) and given back together
 * when it is done. What a codec returns may be a view of a leased buffer: it stays valid until
 * `release()`, so the caller releases only once nothing reads the result any more.
 */
export class ScratchLease {
  private readonly held: Uint8Array[] = [];

  /** A buffer of at least `n` bytes, held until `release()` (use `subarray(0, n)`). */
  take(n: number): Uint8Array {
    const b = takeScratch(n);
    this.held.push(b);
    return b;
  }

  /** Holds `b`, a buffer from `takeScratch`, until `release()`. */
  adopt(b: Uint8Array): void {
    this.held.push(b);
  }

  /** Whether `view` lies in one of the buffers this lease holds. */
  owns(view: ArrayBufferView): boolean {
    return this.held.some((b) => b.buffer === view.buffer);
  }

  /** Gives every buffer back; views of them must not be used afterwards. */
  release(): void {
    for (const b of this.held.splice(0)) giveScratch(b);
  }
}

/**
 * The first `n` bytes of `b` (a buffer from `takeScratch` that an encoder wrote into) for the
 * caller: under `lease`, a view of `b`, which the lease now holds; without one, a copy of just
 * those bytes, and `b` goes back to the free list.
 */
export function handOver(b: Uint8Array, n: number, lease: ScratchLease | undefined): Uint8Array {
  if (lease) {
    lease.adopt(b);
    return b.subarray(0, n);
  }
  const own = b.slice(0, n);
  giveScratch(b);
  return own;
}
