/**
 * Whole shards decode inner chunk by inner chunk straight into the output (issue 12): no
 * shard-sized buffer in between. The zarrs fixture (inner chunks stored out of order) reads as
 * its manifest says into strided outputs, backwards, and on a pool into shared memory.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createArray, FileSystemStore, MemoryStore, registerCodec, WorkerPool, ZarrError, openArray, slice, type NDArray } from "../src/index.js";
import { ShardingCodec } from "../src/codecs/sharding/codec.js";
import { FIXTURES, loadManifest } from "./helpers/manifest.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());

test("whole shards of the zarrs fixture decode into place: strided out, backward slices, a pool", async () => {
  const dir = join(FIXTURES, "zarrs");
  const entry = loadManifest(dir).find((e) => e.path === "sharded_array_write_read.zarr/group/array")!;
  const arr = await openArray(new FileSystemStore(dir, { readOnly: true }), { path: entry.path, mode: "r" });
  // The sharding chain places whole shards itself: never a shard decoded into a buffer of its own (inline).
  const decode = ShardingCodec.prototype.decode;
  let shardBuffers = 0;
  ShardingCodec.prototype.decode = function (...args) {
    shardBuffers++;
    return decode.apply(this, args);
  };
  after(() => void (ShardingCodec.prototype.decode = decode));
  const want = Uint16Array.from(entry.values as number[]);
  // A strided out: every row of the 8 x 8 array in a row of 11 (the rest untouched).
  const wide = new Uint16Array(new SharedArrayBuffer(8 * 11 * 2)).fill(7);
  for (const options of [{ threads: 0 }, { threads: 2, pool }]) {
    wide.fill(7);
    await arr.get(null, { ...options, out: { data: wide, shape: [8, 8], stride: [11, 1] } });
    for (let r = 0; r < 8; r++) {
      assert.deepEqual(Array.from(wide.subarray(r * 11, r * 11 + 8)), Array.from(want.subarray(r * 8, r * 8 + 8)), `row ${r}`);
      assert.deepEqual(Array.from(wide.subarray(r * 11 + 8, r * 11 + 11)), [7, 7, 7], `padding of row ${r}`);
    }
    // Backwards along both axes: each shard is still whole, placed in reverse.
    const back = (await arr.get([slice(null, null, -1), slice(null, null, -1)], options)) as NDArray<Uint16Array>;
    assert.deepEqual(Array.from(back.data), Array.from(want).reverse());
  }
  assert.equal(shardBuffers, 0);
});

test("a shard whose inner chunk fails leaves nothing still writing into the output once the read has failed", async () => {
  // Inner chunks decode after a timer, except one whose first value is -1: it fails at once.
  registerCodec("test.slow-or-fail", () => ({
    codec: {
      kind: "bytes_to_bytes",
      name: "test.slow-or-fail",
      encode: (b: Uint8Array) => b,
      decode: async (b: Uint8Array) => {
        if (new DataView(b.buffer, b.byteOffset, 4).getInt32(0, true) === -1) throw new Error("bad inner chunk");
        await new Promise((r) => setTimeout(r, 20));
        return b;
      },
    },
    configuration: {},
  }));
  const a = await createArray(new MemoryStore(), {
    shape: [8, 8],
    chunks: [4, 4],
    shards: [8, 8],
    dtype: "int32",
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "test.slow-or-fail" }],
  });
  const data = new Int32Array(64).fill(1);
  data[0] = -1;
  await a.set(null, { data, shape: [8, 8] });
  const out = new Int32Array(64);
  await assert.rejects(a.get(null, { threads: 0, out: { data: out, shape: [8, 8], stride: [8, 1] } }), (err: unknown) => err instanceof ZarrError && err.code === "CORRUPT_CHUNK");
  const atFailure = Array.from(out);
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(Array.from(out), atFailure, "inner chunks went on writing into the output after the read failed");
});
