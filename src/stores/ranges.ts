/**
 * Coalescing the byte ranges a read needs (a shard's inner chunks, a reference file's chunks) into
 * fewer requests.
 *
 * Why 64 KiB: a range request costs a round trip (a syscall and a page-cache lookup for a file,
 * some 20 µs; 1-50 ms for HTTP or an object store), while 64 KiB of unwanted bytes cost about
 * 10-20 µs from the page cache and under 1 ms at 100 MB/s. Below that gap, one request is never
 * slower than two; far above it (object_store merges up to 1 MiB for remote stores) a local file
 * would read megabytes it throws away.
 */
export const COALESCE_GAP_BYTES = 64 * 1024;

export interface NeededRange {
  offset: number;
  length: number;
}

export interface CoalescedRange {
  offset: number;
  length: number;
  /** The indices (into the input) of the ranges this request covers. */
  members: number[];
}

/** Sorts the ranges by offset and merges those whose gap is at most `gap` bytes. */
export function coalesceRanges(ranges: readonly NeededRange[], gap = COALESCE_GAP_BYTES): CoalescedRange[] {
  const order = ranges.map((_, i) => i).sort((a, b) => ranges[a].offset - ranges[b].offset);
  const out: CoalescedRange[] = [];
  let cur: CoalescedRange | undefined;
  for (const i of order) {
    const r = ranges[i];
    const curEnd = cur ? cur.offset + cur.length : 0;
    if (cur && r.offset - curEnd <= gap) {
      cur.length = Math.max(curEnd, r.offset + r.length) - cur.offset;
      cur.members.push(i);
    } else {
      cur = { offset: r.offset, length: r.length, members: [i] };
      out.push(cur);
    }
  }
  return out;
}
