/**
 * What `parzarr get` prints for a big selection: like numpy, only the first and last few items of
 * each long axis. Unlike numpy we do not have the values yet, so only those corners are read
 * (at most 2^ndim small boxes): printing a corner of a terabyte array reads kilobytes.
 */
import { slice, type NDArray, type ZarrArray } from "../index.js";
import { allocTypedArray } from "../metadata/elements.js";
import { normaliseSelection, type DimIndexer, type Selection } from "../indexing/selection.js";

export interface Preview {
  /** The values kept, C order: along a summarised axis, `edge` items then `edge` items. */
  array: NDArray;
  /** Per kept axis: whether its middle was left out. */
  summarised: boolean[];
}

type Range = Extract<DimIndexer, { kind: "range" }>;

/** Reads only the corners of the selection; null when every element would be printed anyway. */
export async function readPreview(
  arr: ZarrArray,
  selection: Selection,
  threshold: number,
  edge: number,
  options: { threads?: number },
): Promise<Preview | null> {
  const indexers = normaliseSelection(selection, arr.shape);
  // Integer arrays are the user's own list: printed whole, like any selection under the threshold.
  if (indexers.some((ix) => ix.kind === "list")) return null;
  const size = indexers.reduce((n, ix) => n * (ix.kind === "range" ? ix.count : 1), 1);
  if (size <= threshold) return null;
  const kept = indexers.filter((ix): ix is Range => ix.kind === "range");
  const summarised = kept.map((r) => r.count > 2 * edge);
  const outShape = kept.map((r, k) => (summarised[k] ? 2 * edge : r.count));
  // Per selected axis, one or two pieces: [first index in the selection, count, offset in output].
  const pieces = kept.map((r, k) =>
    summarised[k]
      ? [
          { from: 0, count: edge, at: 0 },
          { from: r.count - edge, count: edge, at: edge },
        ]
      : [{ from: 0, count: r.count, at: 0 }],
  );
  const comps = arr.dtype.startsWith("complex") ? 2 : 1;
  const data = allocTypedArray(arr.dataType, outShape.reduce((a, b) => a * b, 1));
  const strides = outShape.map((_, k) => outShape.slice(k + 1).reduce((a, b) => a * b, 1));
  const combos = pieces.reduce<{ from: number; count: number; at: number }[][]>((acc, ps) => acc.flatMap((c) => ps.map((p) => [...c, p])), [[]]);
  for (const combo of combos) {
    let k = 0;
    const sel = indexers.map((ix) => {
      if (ix.kind === "int") return ix.index;
      if (ix.kind === "list") throw new Error("unreachable: lists are read whole");
      const p = combo[k++];
      const start = ix.start + p.from * ix.step;
      // One past the last item; a backward slice ending at 0 has no stop (-1 would mean the end).
      const stop = start + p.count * ix.step;
      return slice(start, stop < 0 ? null : stop, ix.step);
    });
    const box = (await arr.get(sel, options)) as NDArray;
    // Copy the box into its place in the output, element by element (boxes are tiny).
    const n = box.shape.reduce((a, b) => a * b, 1);
    const idx = new Array<number>(box.shape.length).fill(0);
    for (let i = 0; i < n; i++) {
      let src = 0;
      let dst = 0;
      for (let d = 0; d < idx.length; d++) {
        src += idx[d] * box.stride[d];
        dst += (combo[d].at + idx[d]) * strides[d];
      }
      for (let c = 0; c < comps; c++) (data as unknown as number[])[dst * comps + c] = (box.data as unknown as number[])[src * comps + c];
      for (let d = idx.length - 1; d >= 0; d--) {
        if (++idx[d] < box.shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  return { array: { data, shape: outShape, stride: strides }, summarised };
}
