/**
 * The element-wise kernels of scattered chunk items (integer arrays, masks, points): the places
 * of every selected element in the chunk's run box and in the output (or write value), visited in
 * selection order, and the copy of one element's components.
 */
import type { Component, ElementArray } from "../metadata/dtype.js";
import type { ChunkProjection, DimMap } from "./projection.js";
import type { StridedRegion } from "./strided.js";

type Places = Pick<ChunkProjection, "chunkSel" | "outStart" | "outStep" | "scatter">;

/**
 * Calls `fn(boxOffset, outOffset)` for each selected element of a scattered item. `box` addresses
 * the item's run box (its offset is the box's first element, its strides step along the runs);
 * `outStrides` are the full-rank output strides (orthogonal) — point outputs are C-contiguous, so
 * their element index is their offset.
 */
export function forEachScattered(
  item: Places,
  box: StridedRegion,
  outStrides: readonly number[],
  fn: (boxOffset: number, outOffset: number) => void,
): void {
  const scatter = item.scatter;
  if (!scatter) throw new Error("forEachScattered: the item has no scatter");
  const nd = item.chunkSel.length;
  if (scatter.kind === "points") {
    const { sel, out } = scatter;
    for (let k = 0; k < out.length; k++) {
      let b = box.offset;
      for (let d = 0; d < nd; d++) b += sel[k * nd + d] * box.strides[d];
      fn(b, out[k]);
    }
    return;
  }
  // Orthogonal: per dimension, the box and output offsets of its selected items; then every
  // combination in C order (so among repeated indices the last one written wins).
  const boxOffs: number[][] = [];
  const outOffs: number[][] = [];
  for (let d = 0; d < nd; d++) {
    const map: DimMap | null = scatter.maps[d];
    if (map) {
      boxOffs.push(map.sel.map((k) => k * box.strides[d]));
      outOffs.push(map.out.map((o) => o * outStrides[d]));
    } else {
      const n = item.chunkSel[d].count;
      const step = item.outStep?.[d] ?? 1;
      boxOffs.push(Array.from({ length: n }, (_, k) => k * box.strides[d]));
      outOffs.push(Array.from({ length: n }, (_, k) => (item.outStart[d] + k * step) * outStrides[d]));
    }
  }
  if (boxOffs.some((l) => l.length === 0)) return;
  const idx = new Array<number>(nd).fill(0);
  for (;;) {
    let b = box.offset;
    let o = 0;
    for (let d = 0; d < nd; d++) {
      b += boxOffs[d][idx[d]];
      o += outOffs[d][idx[d]];
    }
    fn(b, o);
    let d = nd - 1;
    for (; d >= 0; d--) {
      if (++idx[d] < boxOffs[d].length) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/** Copies element `srcOff` of `src` to element `dstOff` of `dst`, `c` components each. */
export function copyElement(dst: ElementArray, dstOff: number, src: ElementArray, srcOff: number, c: number): void {
  const d = dst as unknown as Component[];
  const s = src as unknown as Component[];
  if (c === 1) d[dstOff] = s[srcOff];
  else for (let j = 0; j < c; j++) d[dstOff * c + j] = s[srcOff * c + j];
}

/** Sets element `off` of `dst` to the per-component values `comps`. */
export function setElement(dst: ElementArray, off: number, comps: readonly Component[]): void {
  const d = dst as unknown as Component[];
  const c = comps.length;
  if (c === 1) d[off] = comps[0];
  else for (let j = 0; j < c; j++) d[off * c + j] = comps[j];
}
