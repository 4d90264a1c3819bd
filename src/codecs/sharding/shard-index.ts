/**
 * The shard index: for every inner chunk (C order over the chunks-per-shard grid) a little table
 * entry of two uint64, offset and length in bytes within the shard; both 2^64-1 mark a chunk that
 * is not stored. The index is itself an array [...chunksPerShard, 2] encoded by `index_codecs`.
 */
import { CorruptChunkError } from "../../errors.js";
import { parseDataType } from "../../metadata/dtype-names.js";
import { product } from "../../indexing/strided.js";
import type { CodecPipeline } from "../pipeline.js";
import type { ChunkSpec } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";

const EMPTY = 0xffffffffffffffffn;

/** Offsets and lengths as numbers; -1 marks an empty inner chunk. */
export interface ShardIndex {
  offsets: Float64Array;
  lengths: Float64Array;
}

export function indexSpec(chunksPerShard: readonly number[]): ChunkSpec {
  return { shape: [...chunksPerShard, 2], dtype: parseDataType("uint64"), fillValue: null };
}

export function emptyIndex(n: number): ShardIndex {
  return { offsets: new Float64Array(n).fill(-1), lengths: new Float64Array(n).fill(-1) };
}

export async function encodeIndex(index: ShardIndex, chunksPerShard: readonly number[], pipeline: CodecPipeline): Promise<Uint8Array> {
  const n = index.offsets.length;
  const table = new BigUint64Array(2 * n);
  for (let i = 0; i < n; i++) {
    const empty = index.offsets[i] < 0;
    table[2 * i] = empty ? EMPTY : BigInt(index.offsets[i]);
    table[2 * i + 1] = empty ? EMPTY : BigInt(index.lengths[i]);
  }
  return pipeline.encode(contiguousView(table, [...chunksPerShard, 2]));
}

/** Decodes and checks an index: stored chunks must lie in `region`, the shard's bytes outside it. */
export async function decodeIndex(
  bytes: Uint8Array,
  chunksPerShard: readonly number[],
  pipeline: CodecPipeline,
  region: { start: number; end: number },
): Promise<ShardIndex> {
  const view = await pipeline.decode(bytes);
  const table = contiguousData(view, parseDataType("uint64")) as BigUint64Array;
  const n = product(chunksPerShard);
  if (table.length !== 2 * n) throw new CorruptChunkError(`shard index holds ${table.length / 2} entries, expected ${n}`);
  const index = emptyIndex(n);
  const [start, end] = [BigInt(region.start), BigInt(region.end)];
  for (let i = 0; i < n; i++) {
    const off = table[2 * i];
    const len = table[2 * i + 1];
    if (off === EMPTY && len === EMPTY) continue;
    if (off === EMPTY || len === EMPTY || off < start || off + len > end) {
      const to = region.end === Number.MAX_SAFE_INTEGER ? " on" : `-${region.end}`;
      throw new CorruptChunkError(`shard index entry ${i} (offset ${off}, length ${len}) lies outside the bytes ${region.start}${to} of the shard that may hold inner chunks`);
    }
    index.offsets[i] = Number(off);
    index.lengths[i] = Number(len);
  }
  return index;
}
