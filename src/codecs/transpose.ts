/**
 * The `transpose` codec (array->array). Encoded chunks are the C-order bytes of the chunk with its
 * axes permuted by `order`; in memory that is only a permutation of strides, no copy.
 */
import { InvalidMetadataError } from "../errors.js";
import type { ArrayToArrayCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";

class TransposeCodec implements ArrayToArrayCodec {
  readonly kind = "array_to_array";
  readonly name = "transpose";
  constructor(private readonly order: number[]) {}

  encodedSpec(spec: ChunkSpec): ChunkSpec {
    return { ...spec, shape: this.order.map((axis) => spec.shape[axis]) };
  }

  encode(view: ChunkView): ChunkView {
    return {
      data: view.data,
      offset: view.offset,
      shape: this.order.map((axis) => view.shape[axis]),
      strides: this.order.map((axis) => view.strides[axis]),
    };
  }

  decode(view: ChunkView): ChunkView {
    const shape = new Array<number>(this.order.length);
    const strides = new Array<number>(this.order.length);
    this.order.forEach((axis, i) => {
      shape[axis] = view.shape[i];
      strides[axis] = view.strides[i];
    });
    return { data: view.data, offset: view.offset, shape, strides };
  }
}

export const transposeCodec: CodecFactory = (conf, spec) => {
  const ndim = spec.shape.length;
  let order: number[];
  // Early v3 drafts (and zarrita) allowed "C" and "F" for the identity and the reversal.
  if (conf.order === "C") order = [...Array(ndim).keys()];
  else if (conf.order === "F") order = [...Array(ndim).keys()].reverse();
  else if (Array.isArray(conf.order)) order = conf.order as number[];
  else throw new InvalidMetadataError(`codec "transpose": "order" must be a permutation, got ${JSON.stringify(conf.order)}`);
  const sorted = [...order].sort((a, b) => a - b);
  if (order.length !== ndim || sorted.some((v, i) => v !== i)) {
    throw new InvalidMetadataError(`codec "transpose": "order" ${JSON.stringify(conf.order)} is not a permutation of ${ndim} axes`);
  }
  return { codec: new TransposeCodec(order), configuration: { order } };
};
