/**
 * The `reshape` codec (array->array; zarr-extensions codecs/reshape): the chunk's elements keep
 * their C order and take another shape. Each entry of `shape` is a size, a list of input
 * dimensions whose sizes multiply (increasing across the whole list, and aligned so that the
 * output dimension is their raveled index), or one -1 for what the element count leaves.
 */
import { InvalidMetadataError } from "../errors.js";
import type { DataType } from "../metadata/dtype.js";
import { product } from "../indexing/strided.js";
import type { ArrayToArrayCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView, isCContiguous } from "./view.js";

/** `view` with `shape` (same element count): new strides when it is C-contiguous, else one gather. */
function reshapeView(view: ChunkView, dtype: DataType, shape: number[]): ChunkView {
  if (isCContiguous(view)) return { ...contiguousView(view.data, shape), offset: view.offset };
  return contiguousView(contiguousData(view, dtype), shape);
}

/** An array->array codec that only changes the chunk's shape, as `encodedShape` says. */
export class ShapeCodec implements ArrayToArrayCodec {
  readonly kind = "array_to_array";
  constructor(
    readonly name: string,
    private readonly encodedShape: (shape: number[]) => number[],
  ) {}
  encodedSpec(spec: ChunkSpec): ChunkSpec {
    return { ...spec, shape: this.encodedShape(spec.shape) };
  }
  encode(view: ChunkView, spec: ChunkSpec): ChunkView {
    return reshapeView(view, spec.dtype, this.encodedShape(spec.shape));
  }
  decode(view: ChunkView, spec: ChunkSpec): ChunkView {
    return reshapeView(view, spec.dtype, spec.shape);
  }
}

type ShapeEntry = number | number[];

function parseEntries(raw: unknown, ndim: number): ShapeEntry[] {
  const bad = (why: string) => new InvalidMetadataError(`codec "reshape": "shape" ${JSON.stringify(raw)} ${why}`);
  if (!Array.isArray(raw) || raw.length === 0) throw bad("must be a non-empty list");
  let last = -1;
  let autos = 0;
  return raw.map((e: unknown) => {
    if (Array.isArray(e)) {
      for (const d of e) {
        if (typeof d !== "number" || !Number.isInteger(d) || d <= last || d >= ndim) {
          throw bad(`must list input dimensions (of ${ndim}) in increasing order`);
        }
        last = d;
      }
      return e as number[];
    }
    if (e === -1 && ++autos === 1) return -1;
    if (typeof e !== "number" || !Number.isSafeInteger(e) || e < 1) throw bad("must hold positive sizes, lists of input dimensions and at most one -1");
    return e;
  });
}

/** The output shape for input `shape`, checked against the spec's invariants. */
function resolve(entries: ShapeEntry[], shape: number[]): number[] {
  const fail = (why: string) => new InvalidMetadataError(`codec "reshape": "shape" ${JSON.stringify(entries)} cannot reshape [${shape}]: ${why}`);
  const total = product(shape);
  const out = entries.map((e) => (Array.isArray(e) ? product(e.map((d) => shape[d])) : e));
  const auto = out.indexOf(-1);
  if (auto >= 0) {
    const known = product(out.filter((n) => n !== -1));
    if (known === 0 || total % known !== 0) throw fail(`${total} elements do not divide by ${known}`);
    out[auto] = total / known;
  }
  if (product(out) !== total) throw fail(`[${out}] holds ${product(out)} elements, not ${total}`);
  entries.forEach((e, i) => {
    if (!Array.isArray(e) || e.length === 0) return;
    const before = product(shape.slice(0, e[0]));
    const after = product(shape.slice(e[e.length - 1] + 1));
    if (product(out.slice(0, i)) !== before || product(out.slice(i + 1)) !== after) {
      throw fail(`output dimension ${i} is not the raveled index of input dimensions [${e}]`);
    }
  });
  return out;
}

export const reshapeCodec: CodecFactory = (conf, spec) => {
  const entries = parseEntries(conf.shape, spec.shape.length);
  resolve(entries, spec.shape);
  return { codec: new ShapeCodec("reshape", (shape) => resolve(entries, shape)), configuration: { shape: entries } };
};
