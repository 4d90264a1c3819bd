/**
 * zarrs' `zarrs.squeeze` codec (array->array, no configuration): drops the chunk's dimensions
 * of length 1 (a chunk of only such dimensions becomes [1]); the elements keep their C order.
 */
import { InvalidMetadataError } from "../errors.js";
import { ShapeCodec } from "./reshape.js";
import type { CodecFactory } from "./types.js";

function squeezed(shape: number[]): number[] {
  const kept = shape.filter((n) => n !== 1);
  return kept.length > 0 ? kept : [1];
}

export const squeezeCodec: CodecFactory = (conf) => {
  if (Object.keys(conf).length > 0) throw new InvalidMetadataError(`codec "zarrs.squeeze" takes no configuration, got ${JSON.stringify(conf)}`);
  return { codec: new ShapeCodec("zarrs.squeeze", squeezed), configuration: {} };
};
