/**
 * The write of one chunk mirrors its read (issue 27): a whole chunk is `chain.encode(view)`, which
 * never writes into the view it is given (a write encodes straight from the caller's value, filters
 * and transpose included); part of a chunk is `chain.partialEncoder(previous).encode(write)`, whose
 * default decodes the chunk (or takes the fill value), applies the write and encodes, and which
 * says "empty" when the result is all fill value. A shard's partial encoder decodes and re-encodes
 * only the inner chunks the write touches: the others keep their bytes, even bytes that would
 * not decode.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CorruptChunkError, MemoryStore, createArray, slice, type NDArray } from "../src/index.js";
import { CodecPipeline } from "../src/codecs/pipeline.js";
import { codecsReady } from "../src/codecs/registry.js";
import type { ChunkRun, ChunkSpec, DecodeTarget } from "../src/codecs/types.js";
import type { CodecConfig } from "../src/metadata/array-metadata.js";
import { parseDataType } from "../src/metadata/dtype-names.js";

// Chains built directly: the modules of the codecs that load on first use are loaded first.
await codecsReady(["sharding_indexed", "transpose", "bitround", "numcodecs.astype", "numcodecs.delta", "numcodecs.fixedscaleoffset", "numcodecs.quantize"].map((name) => ({ name })));

const BYTES = { name: "bytes", configuration: { endian: "little" } };
const run = (start: number, count: number, step = 1): ChunkRun => ({ start, step, count });

/** Sets the elements of `selection` (2-d) in a decoded chunk to `value(r, c)`, as a write's `put` does. */
function putter(selection: ChunkRun[], value: (r: number, c: number) => number) {
  return (chunk: DecodeTarget): void => {
    const [rows, cols] = selection;
    for (let i = 0; i < rows.count; i++) {
      for (let j = 0; j < cols.count; j++) {
        const r = rows.start + i * rows.step;
        const c = cols.start + j * cols.step;
        (chunk.data as Int32Array)[chunk.offset + r * chunk.strides[0] + c * chunk.strides[1]] = value(r, c);
      }
    }
  };
}

function decoded(chain: CodecPipeline, bytes: Uint8Array, spec: ChunkSpec): Promise<Int32Array> {
  const out = new Int32Array(spec.shape[0] * spec.shape[1]);
  return chain.decodeInto(bytes, { data: out, offset: 0, strides: [spec.shape[1], 1] }).then(() => out);
}

test("a partial encoder through a transpose merges a write into the stored chunk, the fill value where none is stored", async () => {
  const spec: ChunkSpec = { shape: [3, 4], dtype: parseDataType("int32"), fillValue: 7 };
  const chain = CodecPipeline.create([{ name: "transpose", configuration: { order: [1, 0] } }, BYTES, { name: "gzip", configuration: { level: 1 } }], spec);
  const values = Int32Array.from({ length: 12 }, (_, i) => 100 + i);
  const previous = await chain.encode({ data: values, shape: [3, 4], strides: [4, 1], offset: 0 });
  const selection = [run(1, 2), run(1, 2, 2)];
  const write = { selection, put: putter(selection, (r, c) => -(r * 10 + c)) };

  const merged = await chain.partialEncoder(previous).encode(write);
  assert.equal(merged.kind, "bytes");
  const expected = Int32Array.from(values);
  for (const [r, c] of [[1, 1], [1, 3], [2, 1], [2, 3]]) expected[r * 4 + c] = -(r * 10 + c);
  assert.deepEqual(await decoded(chain, (merged as { bytes: Uint8Array }).bytes, spec), expected);

  const fresh = await chain.partialEncoder(undefined).encode(write);
  assert.equal(fresh.kind, "bytes");
  const filled = new Int32Array(12).fill(7);
  for (const [r, c] of [[1, 1], [1, 3], [2, 1], [2, 3]]) filled[r * 4 + c] = -(r * 10 + c);
  assert.deepEqual(await decoded(chain, (fresh as { bytes: Uint8Array }).bytes, spec), filled);
});

test("a partial encoder says 'empty' when the merged chunk is all fill value, unless empty chunks are kept", async () => {
  const spec: ChunkSpec = { shape: [2, 2], dtype: parseDataType("int32"), fillValue: 0 };
  const chain = CodecPipeline.create([{ name: "transpose", configuration: { order: [1, 0] } }, BYTES], spec);
  const previous = await chain.encode({ data: Int32Array.of(0, 5, 0, 0), shape: [2, 2], strides: [2, 1], offset: 0 });
  const selection = [run(0, 1), run(1, 1)];
  const write = { selection, put: putter(selection, () => 0) };
  assert.deepEqual(await chain.partialEncoder(previous).encode(write), { kind: "empty" });
  const kept = await chain.partialEncoder(previous, { writeEmpty: true }).encode(write);
  assert.equal(kept.kind, "bytes");
  assert.deepEqual(await decoded(chain, (kept as { bytes: Uint8Array }).bytes, spec), new Int32Array(4));
});

const INNER_CODECS = [BYTES, { name: "gzip", configuration: { level: 1 } }];
const SHARDING: CodecConfig = {
  name: "sharding_indexed",
  configuration: { chunk_shape: [4, 4], codecs: INNER_CODECS, index_codecs: [BYTES, { name: "crc32c" }], index_location: "end" },
};

/** A shard's inner chunks' bytes (C order; null: not stored), read from its index at the end. */
function innerChunks(shard: Uint8Array, n: number): (Uint8Array | null)[] {
  const index = new DataView(shard.buffer, shard.byteOffset + shard.length - (16 * n + 4), 16 * n);
  return Array.from({ length: n }, (_, i) => {
    const offset = index.getBigUint64(16 * i, true);
    const length = index.getBigUint64(16 * i + 8, true);
    if (offset === 2n ** 64n - 1n) return null;
    return shard.slice(Number(offset), Number(offset + length));
  });
}

test("a shard's partial encoder re-encodes only the inner chunks a write touches; the others keep their bytes, undecodable ones too", async () => {
  const spec: ChunkSpec = { shape: [8, 8], dtype: parseDataType("int32"), fillValue: 0 };
  const chain = CodecPipeline.create([SHARDING], spec);
  const values = Int32Array.from({ length: 64 }, (_, i) => i + 1);
  const previous = await chain.encode({ data: values, shape: [8, 8], strides: [8, 1], offset: 0 });
  const before = innerChunks(previous, 4);
  // Inner chunk 3 (rows 4-7, columns 4-7) no longer decodes: the write does not touch it.
  before[3]![before[3]!.length - 9] ^= 0xff;
  const damaged = previous.slice();
  const at = innerChunks(previous, 4).slice(0, 3).reduce((n, b) => n + b!.length, 0);
  damaged.set(before[3]!, at);

  // Rows 1-2 of columns 1 and 3: inner chunk 0 only.
  const selection = [run(1, 2), run(1, 2, 2)];
  const result = await chain.partialEncoder(damaged).encode({ selection, put: putter(selection, () => -1) });
  assert.equal(result.kind, "bytes");
  const after = innerChunks((result as { bytes: Uint8Array }).bytes, 4);
  assert.notDeepEqual(after[0], before[0], "the touched inner chunk is encoded again");
  for (const i of [1, 2, 3]) assert.deepEqual(after[i], before[i], `untouched inner chunk ${i} keeps its bytes`);
  const inner = CodecPipeline.create(INNER_CODECS, { ...spec, shape: [4, 4] });
  const first = await decoded(inner, after[0]!, { ...spec, shape: [4, 4] });
  const expected = Int32Array.from({ length: 16 }, (_, k) => values[Math.floor(k / 4) * 8 + (k % 4)]);
  for (const [r, c] of [[1, 1], [1, 3], [2, 1], [2, 3]]) expected[r * 4 + c] = -1;
  assert.deepEqual(first, expected);
});

test("a shard's partial encoder on a missing shard stores only the touched inner chunks; all fill value is 'empty'", async () => {
  const spec: ChunkSpec = { shape: [8, 8], dtype: parseDataType("int32"), fillValue: 0 };
  const chain = CodecPipeline.create([SHARDING], spec);
  const selection = [run(5, 1), run(0, 8)];
  const result = await chain.partialEncoder(undefined).encode({ selection, put: putter(selection, (_r, c) => c + 1) });
  assert.equal(result.kind, "bytes");
  assert.deepEqual(
    innerChunks((result as { bytes: Uint8Array }).bytes, 4).map((b) => b !== null),
    [false, false, true, true],
  );
  assert.deepEqual(await chain.partialEncoder(undefined).encode({ selection, put: putter(selection, () => 0) }), { kind: "empty" });
});

test("chain.encode never writes into the view it is given: filters, transpose, byte order, blosc, sharding", async () => {
  const chains: Record<string, { dtype: string; codecs: CodecConfig[] }> = {
    delta: { dtype: "int32", codecs: [{ name: "numcodecs.delta", configuration: { dtype: "<i4" } }, BYTES] },
    "delta+transpose": { dtype: "int32", codecs: [{ name: "numcodecs.delta", configuration: { dtype: "<i4" } }, { name: "transpose", configuration: { order: [1, 0] } }, BYTES] },
    fixedscaleoffset: { dtype: "float64", codecs: [{ name: "numcodecs.fixedscaleoffset", configuration: { scale: 10, offset: 1, dtype: "<f8", astype: "<i4" } }, BYTES] },
    quantize: { dtype: "float64", codecs: [{ name: "numcodecs.quantize", configuration: { digits: 2, dtype: "<f8" } }, BYTES] },
    astype: { dtype: "float64", codecs: [{ name: "numcodecs.astype", configuration: { encode_dtype: "<f4", decode_dtype: "<f8" } }, BYTES] },
    bitround: { dtype: "float32", codecs: [{ name: "bitround", configuration: { keepbits: 3 } }, BYTES] },
    "big-endian": { dtype: "int32", codecs: [{ name: "bytes", configuration: { endian: "big" } }] },
    blosc: { dtype: "int32", codecs: [BYTES, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }] },
    sharding: { dtype: "int32", codecs: [SHARDING] },
  };
  for (const [name, { dtype, codecs }] of Object.entries(chains)) {
    const dt = parseDataType(dtype);
    const chain = CodecPipeline.create(codecs, { shape: [8, 8], dtype: dt, fillValue: 0 });
    // The chunk seen through a strided view of a wider value, and as one contiguous run.
    for (const view of [
      { data: dtype === "int32" ? new Int32Array(8 * 12) : dtype === "float32" ? new Float32Array(8 * 12) : new Float64Array(8 * 12), shape: [8, 8], strides: [12, 1], offset: 2 },
      { data: dtype === "int32" ? new Int32Array(64) : dtype === "float32" ? new Float32Array(64) : new Float64Array(64), shape: [8, 8], strides: [8, 1], offset: 0 },
    ]) {
      view.data.forEach((_, i) => (view.data[i] = (i * 7.25) % 50));
      const snapshot = view.data.slice();
      await chain.encode(view);
      assert.deepEqual(view.data, snapshot, `${name}: the encode left its input as it was`);
    }
  }
});

test("a partial write into a shard leaves an undecodable inner chunk it does not touch as it was, and succeeds", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [8, 8], chunks: [4, 4], shards: [8, 8], dtype: "int32", fillValue: 0, codecs: INNER_CODECS });
  await a.set(null, Int32Array.from({ length: 64 }, (_, i) => i + 1));
  const key = "c/0/0";
  const shard = (await store.get(key))!;
  const inner = innerChunks(shard, 4);
  const at = inner.slice(0, 3).reduce((n, b) => n + b!.length, 0);
  const damaged = shard.slice();
  damaged[at + inner[3]!.length - 9] ^= 0xff;
  await store.set(key, damaged);

  await a.set([slice(0, 2), slice(0, 2)], -1);
  const got = (await a.get([slice(0, 4), slice(0, 8)])) as NDArray;
  assert.deepEqual(Array.from(got.data as Int32Array).slice(0, 4), [-1, -1, 3, 4]);
  assert.deepEqual(innerChunks((await store.get(key))!, 4)[3], innerChunks(damaged, 4)[3]);
  await assert.rejects(a.get([slice(4, 8), slice(4, 8)]), CorruptChunkError);
});

test("two arrays that differ only in their fill value: a partial write into a missing chunk starts from each one's own fill value, inline and on the pool", async () => {
  // The property test's counterexample: each thread keeps one codec chain per layout, and the
  // chain's default partial encoder fills a missing chunk with its spec's fill value.
  for (const threads of [0, 2]) {
    const four = await createArray(new MemoryStore(), { shape: [1, 4], chunks: [2, 2], dtype: "float32", fillValue: 4 });
    await four.set([0, 0], 1, { threads });
    const zero = await createArray(new MemoryStore(), { shape: [1, 4], chunks: [2, 2], dtype: "float32", fillValue: 0 });
    await zero.set([0, 0], 1, { threads });
    assert.deepEqual(Array.from(((await four.get(null, { threads })) as NDArray).data as Float32Array), [1, 4, 4, 4], `threads ${threads}`);
    assert.deepEqual(Array.from(((await zero.get(null, { threads })) as NDArray).data as Float32Array), [1, 0, 0, 0], `threads ${threads}`);
  }
});

test("a write that covers the chunk decodes nothing under it: not the stored bytes (a plain chain or a shard), not the fill value", async () => {
  const spec: ChunkSpec = { shape: [4, 4], dtype: parseDataType("int32"), fillValue: 9 };
  const garbage = new Uint8Array([1, 2, 3, 4, 5]);
  const whole: ChunkRun[] = [{ start: 0, step: 1, count: 4 }, { start: 0, step: 1, count: 4 }];
  const put = (chunk: DecodeTarget) => {
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) (chunk.data as Int32Array)[chunk.offset + i * chunk.strides[0] + j * chunk.strides[1]] = 7;
  };
  const chains: CodecConfig[][] = [
    [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }],
    [{ name: "sharding_indexed", configuration: { chunk_shape: [2, 2], codecs: [{ name: "bytes", configuration: { endian: "little" } }], index_codecs: [{ name: "bytes", configuration: { endian: "little" } }] } }],
  ];
  for (const configs of chains) {
    const chain = CodecPipeline.create(configs, spec);
    // Stored bytes that would not decode: a covering write never looks at them.
    const out = await chain.partialEncoder(garbage).encode({ selection: whole, covers: true, put });
    assert.equal(out.kind, "bytes", configs[0].name);
    const back = await chain.decode((out as { bytes: Uint8Array }).bytes);
    assert.deepEqual(Array.from(back.data as Int32Array), new Array(16).fill(7), configs[0].name);
  }
});
