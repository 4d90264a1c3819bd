/** The fill value of a chunk spec as typed-array components: filling and testing regions. */
import { componentsPerElement, scalarToComponents, zeroOf, type Component, type ElementArray } from "../../metadata/dtype.js";
import { allEqualStrided, fillStrided, type StridedRegion } from "../../indexing/strided.js";
import type { ChunkSpec } from "../types.js";

/** One number per component (complex: re, im); a null fill value (v2 only) reads as zero. */
export function fillComponents(spec: ChunkSpec): Component[] {
  return scalarToComponents(spec.fillValue ?? zeroOf(spec.dtype), spec.dtype);
}

/** Strides and offset of an element region expanded to components. */
function componentRegions(region: StridedRegion, c: number): StridedRegion[] {
  if (c === 1) return [region];
  const strides = region.strides.map((s) => s * c);
  return Array.from({ length: c }, (_, k) => ({ offset: region.offset * c + k, strides }));
}

export function fillRegion(data: ElementArray, region: StridedRegion, shape: readonly number[], spec: ChunkSpec): void {
  const comps = fillComponents(spec);
  componentRegions(region, componentsPerElement(spec.dtype)).forEach((r, k) => fillStrided(data, r, shape, comps[k]));
}

export function regionIsFill(data: ElementArray, region: StridedRegion, shape: readonly number[], spec: ChunkSpec): boolean {
  const comps = fillComponents(spec);
  return componentRegions(region, componentsPerElement(spec.dtype)).every((r, k) => allEqualStrided(data, r, shape, comps[k]));
}
