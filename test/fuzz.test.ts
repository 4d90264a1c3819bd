/**
 * Fuzzed metadata and chunk bytes: whatever the bytes, parzarr answers with a value or a typed
 * ZarrError, never a crash, a hang or a runaway allocation. Chunk shapes that would need absurd
 * memory are refused (TooLargeError) before anything is allocated, under a limit the user can raise.
 */
import { strict as assert } from "node:assert";
import { deflateSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import {
  createArray,
  getMaxChunkBytes,
  MemoryStore,
  openArray,
  setMaxChunkBytes,
  TooLargeError,
  ZarrError,
  type CodecConfig,
  type JsonValue,
} from "../src/index.js";

const enc = new TextEncoder();

function isTyped(err: unknown): true {
  assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  return true;
}

/** Opens whatever is at the root and reads one element and a small corner: value or ZarrError. */
async function openAndRead(store: MemoryStore): Promise<void> {
  try {
    const a = await openArray(store, { mode: "r" });
    await a.get(a.shape.map(() => 0));
    await a.get(a.shape.map((n) => ({ kind: "slice", start: 0, stop: Math.min(n, 3), step: null }) as const));
  } catch (err) {
    isTyped(err);
  }
}

const V2: Record<string, JsonValue> = {
  zarr_format: 2,
  shape: [10, 7],
  chunks: [4, 3],
  dtype: "<f4",
  compressor: { id: "zlib", level: 1 },
  fill_value: 0,
  order: "C",
  filters: null,
};
const V3: Record<string, JsonValue> = {
  zarr_format: 3,
  node_type: "array",
  shape: [10, 7],
  data_type: "int16",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [4, 3] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: 0,
  codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }],
};

/** Values that stress parsers: huge and negative numbers, wrong types, deep nesting. */
const nasty: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
  fc.constantFrom<JsonValue>(1e300, -1, 2 ** 53, 0, 1.5, "NaN", "", [], [1e9, 1e9], [2 ** 31, 2 ** 31, 2 ** 31], [-3], [0], null, {}),
  fc.array(fc.integer({ min: -5, max: 2 ** 40 }), { maxLength: 5 }) as fc.Arbitrary<JsonValue>,
);

function mutateDoc(doc: Record<string, JsonValue>): fc.Arbitrary<Record<string, JsonValue>> {
  const keys = Object.keys(doc);
  return fc.array(fc.tuple(fc.constantFrom(...keys, "extra"), fc.option(nasty, { nil: undefined })), { minLength: 1, maxLength: 3 }).map((edits) => {
    const out: Record<string, JsonValue> = structuredClone(doc);
    for (const [k, v] of edits) {
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    return out;
  });
}

let savedLimit = 0;
before(() => {
  savedLimit = getMaxChunkBytes();
  // Fuzzed chunk shapes must not make the suite allocate hundreds of MiB.
  setMaxChunkBytes(16 * 2 ** 20);
});
after(() => setMaxChunkBytes(savedLimit));

describe("fuzzed metadata", { timeout: 60_000 }, () => {
  for (const [name, doc, key] of [["v2 .zarray", V2, ".zarray"], ["v3 zarr.json", V3, "zarr.json"]] as const) {
    it(`mutated ${name} documents open and read, or fail with a ZarrError`, async () => {
      await fc.assert(
        fc.asyncProperty(mutateDoc(doc), async (d) => {
          const store = new MemoryStore();
          await store.set(key, enc.encode(JSON.stringify(d)));
          await openAndRead(store);
        }),
        { numRuns: 300 },
      );
    });
    it(`random bytes as ${name} fail with a ZarrError`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
          const store = new MemoryStore();
          await store.set(key, bytes);
          await openAndRead(store);
        }),
        { numRuns: 200 },
      );
    });
  }
});

const CHAINS: [string, { zarrFormat: 2 | 3; codecs?: CodecConfig[]; compressor?: Record<string, JsonValue> | null; filters?: Record<string, JsonValue>[] }][] = [
  ["v2 zlib", { zarrFormat: 2, compressor: { id: "zlib", level: 1 } }],
  ["v2 blosc lz4", { zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } }],
  ["v2 blosc zstd bitshuffle", { zarrFormat: 2, compressor: { id: "blosc", cname: "zstd", clevel: 3, shuffle: 2 } }],
  ["v2 lz4", { zarrFormat: 2, compressor: { id: "lz4", acceleration: 1 } }],
  ["v2 raw", { zarrFormat: 2, compressor: null }],
  ["v3 gzip", { zarrFormat: 3, codecs: [{ name: "bytes" }, { name: "gzip", configuration: { level: 1 } }] }],
  ["v3 zstd", { zarrFormat: 3, codecs: [{ name: "bytes" }, { name: "zstd", configuration: { level: 1, checksum: false } }] }],
  ["v3 crc32c", { zarrFormat: 3, codecs: [{ name: "bytes" }, { name: "crc32c" }] }],
  ["v3 zarrs.gdeflate", { zarrFormat: 3, codecs: [{ name: "bytes" }, { name: "zarrs.gdeflate", configuration: { level: 9 } }] }],
  ["v3 transpose blosc", { zarrFormat: 3, codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, { name: "bytes" }, { name: "blosc", configuration: { cname: "blosclz", clevel: 5, shuffle: "shuffle" } }] }],
];

/** A damaged copy of chunk bytes: truncated, bits flipped, bytes overwritten, grown or replaced. */
const damage = (good: Uint8Array): fc.Arbitrary<Uint8Array> =>
  fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, good.length - 1) }).map((n) => good.slice(0, n)),
    fc.array(fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 8 }).map((flips) => {
      const b = good.slice();
      for (const [i, bit] of flips) b[i] ^= 1 << bit;
      return b;
    }),
    fc.array(fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((edits) => {
      const b = good.slice();
      for (const [i, v] of edits) b[i] = v;
      return b;
    }),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((extra) => new Uint8Array([...good, ...extra])),
    fc.uint8Array({ maxLength: 300 }),
  );

describe("fuzzed chunk bytes", { timeout: 60_000 }, () => {
  for (const [name, opts] of CHAINS) {
    it(`${name}: a damaged chunk reads back or fails with a ZarrError`, async () => {
      const store = new MemoryStore();
      const a = await createArray(store, { shape: [12, 10], chunks: [6, 5], dtype: "int32", fillValue: 0, ...opts });
      await a.set(null, { data: Int32Array.from({ length: 120 }, (_, i) => i * 7919), shape: [12, 10] });
      const key = a.chunkKey([1, 0]);
      const good = (await store.get(key))!;
      await fc.assert(
        fc.asyncProperty(damage(good), async (bad) => {
          await store.set(key, bad);
          try {
            await a.get(null);
          } catch (err) {
            isTyped(err);
            // A damaged chunk blocks a partial write too, with a typed error and nothing written.
          }
          try {
            await a.set([7, 6], 1);
          } catch (err) {
            isTyped(err);
          }
        }),
        { numRuns: 150 },
      );
    });
  }

  it("a zstd frame followed by a stray byte is refused (numcodecs.js's decoder spun on it forever)", async () => {
    // Found by the fuzzing above: a valid 129-byte chunk of the v3 zstd array plus one byte.
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [12, 10], chunks: [6, 5], dtype: "int32", ...CHAINS[6][1] });
    await a.set(null, { data: Int32Array.from({ length: 120 }, (_, i) => i * 7919), shape: [12, 10] });
    const key = a.chunkKey([1, 0]);
    const good = (await store.get(key))!;
    await store.set(key, new Uint8Array([...good, 0x50]));
    await assert.rejects(a.get(), { code: "CORRUPT_CHUNK", message: /stray bytes/ });
    await store.set(key, good.subarray(0, good.length - 1));
    await assert.rejects(a.get(), { code: "CORRUPT_CHUNK", message: /truncated/ });
  });

  it("a deflate bomb stops at the chunk's declared size instead of inflating in full", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [16], chunks: [16], dtype: "uint8", zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
    // 8 MiB of zeros compress to about 8 KiB; the chunk holds 16 bytes, so inflating stops at 1 MiB.
    await store.set("0", new Uint8Array(deflateSync(new Uint8Array(8 * 2 ** 20))));
    await assert.rejects(a.get(), (err: unknown) => {
      assert.ok(err instanceof ZarrError && err.code === "CORRUPT_CHUNK", String(err));
      // zlib's own refusal to inflate past the cap, somewhere down the chain of causes.
      const codes: unknown[] = [];
      for (let c: unknown = err.cause; c instanceof Error; c = c.cause) codes.push((c as NodeJS.ErrnoException).code);
      assert.ok(codes.includes("ERR_BUFFER_TOO_LARGE"), `causes: ${codes.join(", ")}`);
      return true;
    });
  });
});

describe("memory limits", () => {
  it("refuses metadata declaring a chunk over the limit, before allocating, and the limit can be raised", async () => {
    const store = new MemoryStore();
    await store.set(".zarray", enc.encode(JSON.stringify({ ...V2, shape: [1e6, 1e6], chunks: [1e5, 1e5] })));
    await assert.rejects(openArray(store, { mode: "r" }), (err: unknown) => {
      assert.ok(err instanceof TooLargeError);
      assert.equal(err.code, "TOO_LARGE");
      assert.match(err.message, /setMaxChunkBytes/);
      return true;
    });
    await assert.rejects(createArray(new MemoryStore(), { shape: [1e9], chunks: [1e9], dtype: "float64" }), { code: "TOO_LARGE" });
    await assert.rejects(createArray(new MemoryStore(), { shape: [1e300], chunks: [1e300], dtype: "uint8" }), isTyped);
    const limit = getMaxChunkBytes();
    setMaxChunkBytes(2 ** 40);
    try {
      // Opening allocates nothing; reading one element of a missing chunk needs one element.
      const a = await openArray(store, { mode: "r" });
      assert.equal(await a.get([5, 5]), 0);
      // The whole array would need 4 TB at once: refused before allocating.
      await assert.rejects(a.get(), { code: "TOO_LARGE" });
    } finally {
      setMaxChunkBytes(limit);
    }
    assert.throws(() => setMaxChunkBytes(0), RangeError);
  });
});
