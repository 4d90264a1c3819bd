/**
 * An array's storage layout as a user thinks of it: the read chunk, and the shard that holds a
 * grid of them when the array is sharded (`sharding_indexed` as its array->bytes codec, whose
 * outer chunk is the shard).
 */
import type { CodecConfig } from "../metadata/array-metadata.js";
import type { ZarrArray } from "./array.js";

export interface Layout {
  /** The chunk a reader decodes: the inner chunk of a sharded array. */
  chunks: number[];
  /** The stored object's shape when sharded, else null. */
  shards: number[] | null;
  /** The codecs inside each shard (sharded) or the whole chain. */
  codecs: CodecConfig[];
}

export function layoutOf(arr: ZarrArray): Layout {
  const codecs = arr.codecs;
  const sharding = codecs.find((c) => c.name === "sharding_indexed");
  const inner = sharding?.configuration?.chunk_shape;
  if (sharding && Array.isArray(inner) && inner.every((x) => typeof x === "number")) {
    const innerCodecs = Array.isArray(sharding.configuration?.codecs) ? (sharding.configuration.codecs as unknown as CodecConfig[]) : [];
    // The shard is the chunk grid's chunk (`arr.shards`); `arr.chunks` is the inner chunk.
    return { chunks: inner as number[], shards: arr.shards, codecs: innerCodecs };
  }
  return { chunks: arr.chunks, shards: null, codecs };
}

