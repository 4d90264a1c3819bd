/**
 * zarrs' `zarrs.gdeflate` codec, checked against NVIDIA's GDeflate reference implementation:
 * test/fixtures/gdeflate holds the reference's encodings of fixed inputs (inputs.ts makes them)
 * and the sha256 of our encoder's output that the reference decoder read back equal; README.md
 * there says how they were made.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, InvalidArgumentError, MemoryStore, WorkerPool, copy, createArray, openArray, parseCodecSpec, type NDArray } from "../src/index.js";
import { codecsReady, getCodecFactory } from "../src/codecs/registry.js";
import { CodecPipeline } from "../src/codecs/pipeline.js";
import type { BytesToBytesCodec } from "../src/codecs/types.js";
import type { CodecConfig } from "../src/metadata/array-metadata.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import type { JsonObject } from "../src/metadata/json.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";
import { INPUTS, OUR_LEVELS, VECTORS } from "./fixtures/gdeflate/inputs.js";
import * as gdeflate from "../src/codecs/gdeflate-decode.js";
import { PRECODE_ORDER, gdeflateDecode } from "../src/codecs/gdeflate-decode.js";
import { LaneWriter, codewords } from "../src/codecs/gdeflate-encode.js";

const DIR = join(FIXTURES, "gdeflate");
const vector = (name: string, level: number) => new Uint8Array(readFileSync(join(DIR, `${name}.l${level}.ref`)));

// zarrs.gdeflate's factory loads with the first array naming it (rare-compressors.ts).
await codecsReady([{ name: "zarrs.gdeflate" }]);

/** The codec as an array of `bytes` uint8 elements (decodes up to 2 * that + 1 MiB) builds it. */
function codec(conf: JsonObject = { level: 9 }, elements = 200_000, name = "zarrs.gdeflate"): BytesToBytesCodec {
  const spec = { shape: [elements], dtype: parseDataType("uint8"), fillValue: 0 };
  return getCodecFactory(name)(conf, spec, CodecPipeline.create).codec as BytesToBytesCodec;
}

const u64 = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

test("every reference vector decodes byte-equal to its input, under both names", async () => {
  for (const name of ["zarrs.gdeflate", "https://codec.zarrs.dev/bytes_to_bytes/gdeflate"]) {
    const c = codec({ level: 1 }, 200_000, name);
    for (const [input, level] of VECTORS) {
      assert.deepEqual(await c.decode(vector(input, level)), INPUTS[input](), `${input} at level ${level}`);
    }
  }
});

test("our encoder writes, at every level, exactly the bytes the reference decoder read back equal", async () => {
  const checked = JSON.parse(readFileSync(join(DIR, "ours.json"), "utf8")) as Record<string, string>;
  for (const input of Object.keys(INPUTS)) {
    for (const level of OUR_LEVELS) {
      const c = codec({ level });
      const encoded = await c.encode(INPUTS[input]());
      assert.equal(createHash("sha256").update(encoded).digest("hex"), checked[`${input}.l${level}`], `${input} at level ${level}`);
      assert.deepEqual(await c.decode(encoded), INPUTS[input]());
    }
  }
  // Pages get a Huffman code of their own where the fixed one is worse: text within 20% of the reference.
  assert.ok((await codec({ level: 9 }).encode(INPUTS.text())).length < 1.2 * vector("text", 9).length);
});

test("an array written with zarrs.gdeflate reads back, and a chunk the reference wrote reads as zarrs' array", async () => {
  const store = new MemoryStore();
  const values = Float32Array.from({ length: 50_000 }, (_, i) => Math.round(Math.sin(i / 300) * 1000) / 8);
  const a = await createArray(store, { shape: [50_000], chunks: [40_000], dtype: "float32", codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zarrs.gdeflate", configuration: { level: 6 } }] });
  await a.set(null, values);
  const b = await openArray(store, {});
  assert.deepEqual(((await b.get()) as NDArray).data, values);
  assert.deepEqual(b.metadata.codecs?.at(-1), { name: "zarrs.gdeflate", configuration: { level: 6 } });
  // A chunk of 160 KB spans three pages: its stored bytes say so.
  const chunk = (await store.get("c/0"))!;
  assert.equal(new DataView(chunk.buffer, chunk.byteOffset).getUint32(8, true), 3);

  const meta = { zarr_format: 3, node_type: "array", shape: [20_000], data_type: "float32", chunk_grid: { name: "regular", configuration: { chunk_shape: [20_000] } }, chunk_key_encoding: { name: "default" }, fill_value: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "https://codec.zarrs.dev/bytes_to_bytes/gdeflate", configuration: { level: 12 } }] };
  const zs = new MemoryStore();
  await zs.set("zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
  await zs.set("c/0", vector("floats", 12));
  const z = await openArray(zs, {});
  assert.deepEqual(((await z.get()) as NDArray).data, new Float32Array(INPUTS.floats().buffer));
});

test("a level outside 0..12 is INVALID_METADATA", async () => {
  for (const level of [13, -1, 1.5, "9"]) {
    assert.throws(() => codec({ level } as JsonObject), { code: "INVALID_METADATA" });
  }
});

test("truncated, padded and inconsistent chunks are CORRUPT_CHUNK", async () => {
  const c = codec();
  const good = vector("text", 9);
  // Cut anywhere: in the header, in the sizes, in a page.
  for (const end of [0, 7, 15, 16, 23, 40, 200, good.length >> 1, good.length - 1]) {
    await assert.rejects(async () => c.decode(good.subarray(0, end)), { code: "CORRUPT_CHUNK" }, `cut at ${end}`);
  }
  await assert.rejects(async () => c.decode(concat(good, new Uint8Array(1))), { code: "CORRUPT_CHUNK" });
  const text = INPUTS.text();
  const withHeader = (size: bigint, pages: bigint, ...rest: Uint8Array[]) => concat(u64(size), u64(pages), ...rest);
  const body = good.subarray(32);
  const sizes = good.subarray(16, 32);
  // Page count that does not match the length; a length that does not match the pages.
  await assert.rejects(async () => c.decode(withHeader(BigInt(text.length), 1n, sizes.subarray(0, 8), body)), { code: "CORRUPT_CHUNK" });
  await assert.rejects(async () => c.decode(withHeader(BigInt(text.length - 1), 2n, sizes, body)), { code: "CORRUPT_CHUNK" });
  await assert.rejects(async () => c.decode(withHeader(65_536n * 2n, 2n, sizes, body)), { code: "CORRUPT_CHUNK" });
  // Page sizes swapped: each page is read with the other's length.
  await assert.rejects(async () => c.decode(withHeader(BigInt(text.length), 2n, sizes.subarray(8), sizes.subarray(0, 8), body)), { code: "CORRUPT_CHUNK" });
});

test("hostile headers are refused before anything is allocated for them", async () => {
  const c = codec();
  // 2^60 bytes declared, in 2^44 pages: past the chunk's limit, nothing allocated.
  await assert.rejects(async () => c.decode(concat(u64(1n << 60n), u64(1n << 44n))), { code: "CORRUPT_CHUNK" });
  // A size past 2^53, and page sizes past the data.
  await assert.rejects(async () => c.decode(concat(u64(1n << 62n), u64(0n))), { code: "CORRUPT_CHUNK" });
  await assert.rejects(async () => c.decode(concat(u64(100n), u64(1n), u64(1n << 40n), new Uint8Array(200))), { code: "CORRUPT_CHUNK" });
  await assert.rejects(async () => c.decode(concat(u64(100n), u64(1n), u64(1n << 58n), new Uint8Array(200))), { code: "CORRUPT_CHUNK" });
  // Consistent sizes, over the limit of a chunk of 10 elements (2 * 10 + 1 MiB) but not of a larger one.
  const pages = Math.ceil(3e6 / 65_536);
  const big = concat(u64(3_000_000n), u64(BigInt(pages)), ...Array.from({ length: pages }, () => u64(0n)));
  await assert.rejects(async () => codec({ level: 1 }, 10).decode(big), (e: Error & { code?: string }) => e.code === "CORRUPT_CHUNK" && /limit/.test(e.message));
  await assert.rejects(async () => codec({ level: 1 }, 2e6).decode(big), (e: Error & { code?: string }) => e.code === "CORRUPT_CHUNK" && !/limit/.test(e.message));
});

test("hostile pages end in CORRUPT_CHUNK, never in a hang or another error", async () => {
  const c = codec();
  const page = (bytes: Uint8Array, size = 1000) => concat(u64(BigInt(size)), u64(1n), u64(BigInt(bytes.length)), bytes);
  // All zeros: empty stored blocks, none final, until lane 0's words run out.
  await assert.rejects(async () => c.decode(page(new Uint8Array(4096))), { code: "CORRUPT_CHUNK" });
  // Lane 0 says block type 3 (reserved).
  await assert.rejects(async () => c.decode(page(concat(Uint8Array.of(0b111, 0, 0, 0), new Uint8Array(124)))), { code: "CORRUPT_CHUNK" });
  // A page decoding to fewer bytes than the header says.
  const u16 = vector("u16ramp", 1);
  await assert.rejects(async () => c.decode(concat(u64(65n), u16.subarray(8))), { code: "CORRUPT_CHUNK" });
  await assert.rejects(async () => c.decode(concat(u64(63n), u16.subarray(8))), { code: "CORRUPT_CHUNK" });
  // Flipped bits anywhere in pages of every block kind: corrupt or some bytes of the right length, nothing else.
  let seed = 1;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
  for (const [input, level] of [["text", 9], ["text", 1], ["page", 0], ["floats", 2], ["zeros", 12]] as const) {
    const good = vector(input, level);
    const header = 16 + 8 * new DataView(good.buffer, good.byteOffset).getUint32(8, true);
    for (let i = 0; i < 150; i++) {
      const bad = good.slice();
      for (let k = 0; k < 3; k++) bad[header + rand(bad.length - header)] ^= 1 << rand(8);
      try {
        assert.equal((await c.decode(bad)).length, INPUTS[input]().length);
      } catch (e) {
        assert.equal((e as { code?: string }).code, "CORRUPT_CHUNK", `${input} l${level}: ${String(e)}`);
      }
    }
  }
});

/**
 * One page of `blocks` dynamic blocks, each an end-of-block only (the last one also the literal 0)
 * under litlen and distance codes whose longest codewords are 15 bits: about 28 bytes a block.
 */
function longCodeBlocks(blocks: number): Uint8Array {
  const w = new LaneWriter();
  const pre = new Uint8Array(19); // the precode: lengths 1..15 and run 18, 4 bits each (complete)
  pre.fill(4, 1, 16)[18] = 4;
  const lit = new Uint8Array(257); // symbols 0..14 at 2..15, 15 again, 256 at 1 bit (complete)
  for (let i = 0; i < 15; i++) lit[i] = Math.min(i + 2, 15);
  lit[256] = 1;
  const dist = Uint8Array.from({ length: 16 }, (_, i) => Math.min(i + 1, 15));
  // The code lengths as precode symbols [symbol, extra bits' value, their count]: 241 zeros are two runs of 18.
  const runs = [...Array.from(lit.subarray(0, 15), (l) => [l, 0, 0]), [18, 138 - 11, 7], [18, 103 - 11, 7], [1, 0, 0], ...Array.from(dist, (l) => [l, 0, 0])];
  const [preCodes, litCodes] = [codewords(pre), codewords(lit)];
  for (let b = 0; b < blocks; b++) {
    const last = b === blocks - 1;
    w.put(0, last ? 1 : 0, 1);
    w.put(0, 2, 2);
    w.refill(0);
    w.put(0, 0, 5); // 257 litlen lengths
    w.put(0, 15, 5); // 16 distance lengths
    w.put(0, 15, 4); // 19 precode lengths
    w.refill(0);
    for (let i = 0; i < 19; i++) {
      w.put(i, pre[PRECODE_ORDER[i]], 3);
      w.refill(i);
    }
    runs.forEach(([s, v, n], i) => {
      w.put(i % 32, preCodes[s], pre[s]);
      w.put(i % 32, v, n);
      w.refill(i % 32);
    });
    let lane = 0;
    if (last) {
      w.put(0, litCodes[0], lit[0]);
      w.refill(lane++);
    }
    w.put(lane, litCodes[256], 1);
    for (let k = 0; k <= 32; k++, lane = (lane + 1) % 32) w.refill(lane);
  }
  return w.finish();
}

test("a page of many small dynamic blocks with 15-bit codes costs each block a bounded table, not 2^15 entries", async () => {
  const blocks = 300;
  const page = longCodeBlocks(blocks);
  // Table work is table size: count the Int32Array elements the decode allocates.
  let allocated = 0;
  const original = globalThis.Int32Array;
  globalThis.Int32Array = class extends original {
    constructor(length: number) {
      super(length);
      allocated += this.length;
    }
  } as typeof Int32Array;
  let out: Uint8Array;
  try {
    out = gdeflateDecode(concat(u64(1n), u64(1n), u64(BigInt(page.length)), page), 1 << 20);
  } finally {
    globalThis.Int32Array = original;
  }
  assert.deepEqual(out, Uint8Array.of(0));
  // The tables are made once and reused: decoding a page allocates none per block.
  assert.ok(allocated <= 4096, `${allocated} Int32 elements allocated for ${blocks} blocks of ${page.length} bytes`);
  // Building one is filling it: these 15-bit codes fill a 2^10 main table and subtables (bounded by the code's size), not 2^15.
  const lit = new Uint8Array(257);
  for (let i = 0; i < 15; i++) lit[i] = Math.min(i + 2, 15);
  lit[256] = 1;
  const table = new Int32Array(1 << 15);
  const filled = gdeflate.buildTable(lit, table, 10);
  assert.ok(filled <= 1024 + 1536, `${filled} entries`);
  // Each codeword decodes from its bits (sent first bit first) through main table and subtable alike.
  const codes = codewords(lit);
  for (const sym of [0, 7, 12, 13, 14, 256]) {
    const bits = codes[sym] | (0x5a5a << lit[sym]);
    let e = table[bits & 1023];
    if (e & 16) e = table[(e >>> 5) + ((bits >>> 10) & ((1 << (e & 15)) - 1))];
    assert.deepEqual([e >>> 5, e & 15], [sym, lit[sym]], `symbol ${sym}`);
  }
});

test("a chunk decodes straight into its destination; one of another length is CORRUPT_CHUNK", async () => {
  const c = codec({ level: 1 });
  const decodeInto = c.decodeInto;
  assert.ok(decodeInto, "zarrs.gdeflate has decodeInto");
  const text = INPUTS.text();
  const dest = new Uint8Array(text.length);
  await decodeInto(vector("text", 9), dest);
  assert.deepEqual(dest, text);
  for (const n of [text.length - 1, text.length + 1]) {
    await assert.rejects(async () => decodeInto(vector("text", 9), new Uint8Array(n)), { code: "CORRUPT_CHUNK" }, `${n} bytes`);
  }
});

test("copy (parzarr cp --codec) recompresses to gdeflate[:LEVEL] in v3, keeps it, and says v2 has no such compressor", async () => {
  const src = new MemoryStore();
  const values = Int32Array.from({ length: 30_000 }, (_, i) => (i * 7919) % 1000);
  const a = await createArray(src, { path: "a", shape: [30_000], chunks: [20_000], dtype: "int32", zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
  await a.set(null, values);
  const dest = new MemoryStore();
  await copy({ store: src, path: "a" }, { store: dest }, { format: 3, codec: "gdeflate:4", threads: 0 });
  const b = await openArray(dest, { path: "a" });
  assert.deepEqual(b.metadata.codecs?.at(-1), { name: "zarrs.gdeflate", configuration: { level: 4 } });
  assert.deepEqual(((await b.get()) as NDArray).data, values);
  // A v3 to v3 copy without --codec keeps gdeflate; the level defaults to 9.
  const again = new MemoryStore();
  await copy({ store: dest, path: "a" }, { store: again }, { threads: 0 });
  assert.deepEqual((await openArray(again, { path: "a" })).metadata.codecs?.at(-1), { name: "zarrs.gdeflate", configuration: { level: 4 } });
  assert.deepEqual(parseCodecSpec("gdeflate"), { kind: "gdeflate", level: 9 });
  assert.throws(() => parseCodecSpec("gdeflate:13"), InvalidArgumentError);
  await assert.rejects(copy({ store: src, path: "a" }, { store: new MemoryStore() }, { format: 2, codec: "gdeflate" }), (e: Error) => e instanceof InvalidArgumentError && /v2/.test(e.message));
  await assert.rejects(copy({ store: dest, path: "a" }, { store: new MemoryStore() }, { format: 2 }), (e: Error) => e instanceof InvalidArgumentError && /v2/.test(e.message));
});

test("chunks encode and decode on a worker pool as inline, byte for byte", async () => {
  const root = scratchDir();
  const pool = new WorkerPool({ threads: 2 });
  try {
    const values = Float64Array.from({ length: 40_000 }, (_, i) => Math.round(Math.cos(i / 50) * 64));
    const codecs: CodecConfig[] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zarrs.gdeflate", configuration: { level: 3 } }];
    const store = new FileSystemStore(root);
    const a = await createArray(store, { path: "pool", shape: [40_000], chunks: [10_000], dtype: "float64", codecs });
    await a.set(null, values, { pool, threads: 2 });
    const b = await createArray(store, { path: "inline", shape: [40_000], chunks: [10_000], dtype: "float64", codecs });
    await b.set(null, values, { threads: 0 });
    for (const k of ["c/0", "c/3"]) assert.deepEqual(await store.get(`pool/${k}`), await store.get(`inline/${k}`), k);
    assert.deepEqual(((await b.get(null, { pool, threads: 2 })) as NDArray).data, values);
  } finally {
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test("placement prices zarrs.gdeflate, under both names, as the costly decoder it is (over zlib), not as an unmeasured codec", () => {
  const spec = { shape: [1024, 1024], dtype: parseDataType("float32"), fillValue: 0 };
  const cost = (configs: CodecConfig[]) => CodecPipeline.create(configs, spec).decodeCost;
  const LE = { name: "bytes", configuration: { endian: "little" } };
  const zlib = cost([LE, { name: "numcodecs.zlib", configuration: { level: 1 } }]);
  for (const name of ["zarrs.gdeflate", "https://codec.zarrs.dev/bytes_to_bytes/gdeflate"]) {
    const gdeflate = cost([LE, { name, configuration: { level: 6 } }]);
    assert.ok(gdeflate > 2 * zlib, `${name}: ${gdeflate} ns/B against zlib's ${zlib}`);
  }
});
