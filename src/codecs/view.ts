/**
 * Helpers for chunk views: contiguity checks, the one gather that makes a view contiguous, and the
 * element-region kernels (fill, copy, compare) that the chunk tasks and the sharding codec share.
 */
import { componentsPerElement, isObjectType, type Component, type DataType, type ElementArray, type Scalar, type TypedArray } from "../metadata/dtype.js";
import { allocElements, isTypedArray, memoryBytesPerComponent, typedArrayOver } from "../metadata/elements.js";
import { scalarToComponents } from "../metadata/scalars.js";
import { zeroOf } from "../metadata/fill-value.js";
import { allEqualStrided, contiguousStrides, copyStrided, fillStrided, product, type StridedRegion } from "../indexing/strided.js";
import { CorruptChunkError, InternalFault, ZarrError } from "../errors.js";
export { InternalFault };
import type { ByteScatter, ChunkRun, ChunkSpec, ChunkView, DecodeTarget } from "./types.js";
import type { ScratchLease } from "../scratch.js";
import { platform } from "../platform/current.js";

export function contiguousView(data: ElementArray, shape: number[]): ChunkView {
  return { data, shape, strides: contiguousStrides(shape), offset: 0 };
}

export function isCContiguous(view: ChunkView): boolean {
  let expected = 1;
  for (let i = view.shape.length - 1; i >= 0; i--) {
    if (view.shape[i] !== 1 && view.strides[i] !== expected) return false;
    expected *= view.shape[i];
  }
  return true;
}

/** Expands element strides into number strides, adding the re/im axis for complex types. */
export function componentLayout(
  shape: readonly number[],
  strides: readonly number[],
  offset: number,
  dtype: DataType,
): { shape: number[]; strides: number[]; offset: number } {
  const c = componentsPerElement(dtype);
  if (c === 1) return { shape: [...shape], strides: [...strides], offset };
  return { shape: [...shape, c], strides: [...strides.map((s) => s * c), 1], offset: offset * c };
}

/** The view's elements in C order, as exactly `product(shape)` elements with nothing around them. */
export function contiguousData(view: ChunkView, dtype: DataType, scratch?: ScratchLease): ElementArray {
  const n = product(view.shape);
  const c = componentsPerElement(dtype);
  if (isCContiguous(view)) {
    const start = view.offset * c;
    if (start === 0 && view.data.length === n * c) return view.data;
    return ArrayBuffer.isView(view.data)
      ? (view.data.subarray(start, start + n * c) as ElementArray)
      : (view.data.slice(start, start + n * c) as ElementArray);
  }
  const out = chunkElements(dtype, n, scratch);
  const src = componentLayout(view.shape, view.strides, view.offset, dtype);
  const dst = componentLayout(view.shape, contiguousStrides(view.shape), 0, dtype);
  copyStrided(out, dst, view.data, src, src.shape);
  return out;
}

/** `count` elements of a fixed-size type in a buffer of `scratch` (not zeroed: for overwriting). */
export function scratchElements(scratch: ScratchLease, dtype: DataType, count: number): TypedArray {
  const len = count * componentsPerElement(dtype);
  return typedArrayOver(dtype, scratch.take(len * memoryBytesPerComponent(dtype)).buffer, 0, len);
}

/** `count` elements: of `scratch` where given and the type has a fixed size, else fresh. */
export function chunkElements(dtype: DataType, count: number, scratch?: ScratchLease): ElementArray {
  return scratch && !isObjectType(dtype) ? scratchElements(scratch, dtype, count) : allocElements(dtype, count);
}

/** A region of elements `start (+ step)` within an n-d layout of `strides`, beginning at `base`. */
export function regionAt(start: readonly number[], steps: readonly number[] | null, strides: readonly number[], base = 0): StridedRegion {
  let offset = base;
  for (let d = 0; d < start.length; d++) offset += start[d] * strides[d];
  return { offset, strides: steps ? strides.map((s, d) => s * steps[d]) : [...strides] };
}

/** The fill value as memory stores it, one value per component; a null fill (v2 only) is zero. */
export function fillComponents(fillValue: Scalar | null, dtype: DataType): Component[] {
  return scalarToComponents(fillValue ?? zeroOf(dtype), dtype);
}

/** An element region as one region per component (complex: re, then im). */
function componentRegions(region: StridedRegion, c: number): StridedRegion[] {
  if (c === 1) return [region];
  const strides = region.strides.map((s) => s * c);
  return Array.from({ length: c }, (_, k) => ({ offset: region.offset * c + k, strides }));
}

/** Fills a region of elements with per-component values. */
export function fillElements(data: ElementArray, region: StridedRegion, shape: readonly number[], comps: readonly Component[]): void {
  componentRegions(region, comps.length).forEach((r, k) => fillStrided(data, r, shape, comps[k]));
}

/** Whether every element of a region equals the per-component values. */
export function elementsEqual(data: ElementArray, region: StridedRegion, shape: readonly number[], comps: readonly Component[]): boolean {
  return componentRegions(region, comps.length).every((r, k) => allEqualStrided(data, r, shape, comps[k]));
}

/**
 * Whether every element of a region of `shape` is the chunk's fill value: never for a v2 null fill,
 * but an optional array's null fill is a real one (all missing), so such chunks are not stored.
 */
export function allFill(spec: ChunkSpec, data: ElementArray, region: StridedRegion, shape: readonly number[] = spec.shape): boolean {
  return (spec.fillValue !== null || spec.dtype.kind === "optional") && elementsEqual(data, region, shape, fillComponents(spec.fillValue, spec.dtype));
}

/**
 * A failure to decode stored bytes as a CorruptChunkError, `what` failed (a CorruptChunkError as
 * it is when nothing is to be added); other typed errors (an unknown codec) and faults stay as they are.
 */
export function asCorrupt(err: unknown, what?: string): unknown {
  if (err instanceof ZarrError && (err.code !== "CORRUPT_CHUNK" || what === undefined)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new CorruptChunkError(what === undefined ? reason : `${what}: ${reason}`, { cause: err });
}

/** Copies between two element regions, expanding complex elements into their components. */
export function copyElements(
  dtype: DataType,
  dst: ElementArray,
  dstRegion: StridedRegion,
  src: ElementArray,
  srcRegion: StridedRegion,
  shape: readonly number[],
): void {
  const d = componentLayout(shape, dstRegion.strides, dstRegion.offset, dtype);
  const s = componentLayout(shape, srcRegion.strides, srcRegion.offset, dtype);
  copyStrided(dst, d, src, s, d.shape);
}

/** Whether a selection (runs per dimension) is every element of a chunk of `shape`, in order. */
export function coversAll(selection: readonly ChunkRun[], shape: readonly number[]): boolean {
  return selection.every((r, d) => r.start === 0 && r.count === shape[d] && (r.step === 1 || r.count === 1));
}


/** The bytes of a whole chunk of `shape`'s place in `target`, or null when it is not one C-order run. */
export function targetBytes(target: DecodeTarget, shape: readonly number[], dtype: DataType): Uint8Array | null {
  const data = target.data;
  if (!isTypedArray(data)) return null;
  let expected = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] !== 1 && target.strides[d] !== expected) return null;
    expected *= shape[d];
  }
  const c = componentsPerElement(dtype);
  if (target.offset < 0 || (target.offset + product(shape)) * c > data.length) throw new InternalFault("internal error: the chunk's place lies outside the output");
  return new Uint8Array(data.buffer, data.byteOffset + target.offset * c * data.BYTES_PER_ELEMENT, product(shape) * c * data.BYTES_PER_ELEMENT);
}

/** The shortest row a raw chunk is read into directly: its view then costs under a tenth of it. */
const MIN_RUN_BYTES = 1024;

/**
 * Where a whole chunk of `shape` goes when each of its rows is a run of `target` (an innermost
 * stride of 1; every interior chunk of a C-order read): a scatter that puts decoded bytes into
 * those runs, or null when that does not apply.
 */
export function rowScatter(target: DecodeTarget, shape: readonly number[], dtype: DataType): ByteScatter | null {
  const { data, offset: base, strides } = target;
  const nd = shape.length;
  // An outer dimension may run backwards (a backward slice); a row must stay one forward run.
  if (!isTypedArray(data) || nd < 2 || strides[nd - 1] !== 1) return null;
  const elementBytes = componentsPerElement(dtype) * data.BYTES_PER_ELEMENT;
  const rowBytes = shape[nd - 1] * elementBytes;
  const rows = product(shape.slice(0, nd - 1));
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // Byte offset in the output of each row, in the chunk's C order (an odometer over the outer dims).
  const offsets = new Float64Array(rows);
  const idx = new Array<number>(nd - 1).fill(0);
  for (let i = 0; i < rows; i++) {
    let e = base;
    for (let d = 0; d < nd - 1; d++) e += idx[d] * strides[d];
    offsets[i] = e * elementBytes;
    // Before any byte is decoded: a row outside the output is the plan's fault, not the chunk's.
    if (offsets[i] < 0 || offsets[i] + rowBytes > bytes.length) throw new InternalFault(`internal error: row ${i} of the chunk lies outside the output`);
    for (let d = nd - 2; d >= 0 && ++idx[d] === shape[d]; d--) idx[d] = 0;
  }
  const length = rows * rowBytes;
  // Platform.copyBytes, not set, which copies into a shared output 8 bytes a step (see there).
  const copy = platform().copyBytes;
  return {
    length,
    put(at: number, src: Uint8Array): void {
      if (at < 0 || at + src.length > length) throw new CorruptChunkError(`decoded bytes [${at}, ${at + src.length}) overrun the ${length}-byte chunk`);
      let row = Math.floor(at / rowBytes);
      let within = at - row * rowBytes;
      for (let i = 0; i < src.length; row++, within = 0) {
        const n = Math.min(rowBytes - within, src.length - i);
        copy(bytes, offsets[row] + within, src, i, i + n);
        i += n;
      }
    },
    // A view costs about 100 bytes: for rows shorter than this, a read and a copy per row.
    runs: () => (rowBytes < MIN_RUN_BYTES ? null : Array.from(offsets, (o) => bytes.subarray(o, o + rowBytes))),
  };
}
