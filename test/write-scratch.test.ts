/**
 * Writes encode into reused scratch memory (issue 12): with a lease the encoded chunk is a view of
 * a leased buffer (no fresh memory per chunk), without one the caller gets bytes of its own that a
 * later encode does not touch; a store that keeps its values (MemoryStore) never receives scratch;
 * folders written inline and on a pool hold what zarr-python reads back.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore, WorkerPool, createArray, type NDArray } from "../src/index.js";
import { CodecPipeline } from "../src/codecs/pipeline.js";
import { codecsReady } from "../src/codecs/registry.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import type { JsonObject } from "../src/metadata/json.js";
import { ScratchLease, scratchAllocations } from "../src/scratch.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const skip = zarrPythonSkip();
const pool = new WorkerPool({ threads: 2 });
const dirs: string[] = [];
after(async () => {
  await pool.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const BYTES = { name: "bytes", configuration: { endian: "little" } };
const CHAINS = {
  "blosc-lz4": [BYTES, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }],
  "blosc-zstd": [BYTES, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "bitshuffle", typesize: 4, blocksize: 0 } }],
  "blosc-clevel0": [BYTES, { name: "blosc", configuration: { cname: "lz4", clevel: 0, shuffle: "noshuffle", typesize: 4, blocksize: 0 } }],
  lz4: [BYTES, { name: "numcodecs.lz4", configuration: { acceleration: 1 } }],
  raw: [BYTES],
};

// numcodecs.lz4's factory loads with the first array naming it (rare-compressors.ts).
await codecsReady(Object.values(CHAINS).flat());

/** A 64 x 64 float32 chunk seen through a strided view of a wider array (as a write's value is). */
function stridedChunk(seed: number): { view: { data: Float32Array; shape: number[]; strides: number[]; offset: number }; values: Float32Array } {
  const wide = new Float32Array(64 * 200);
  for (let i = 0; i < wide.length; i++) wide[i] = Math.fround(Math.sin(i * 0.01 + seed) * 100);
  const values = new Float32Array(64 * 64);
  for (let r = 0; r < 64; r++) for (let c = 0; c < 64; c++) values[r * 64 + c] = wide[r * 200 + 10 + c];
  return { view: { data: wide, shape: [64, 64], strides: [200, 1], offset: 10 }, values };
}

test("encoding under a lease leaves the chunk in leased scratch; without one the bytes are the caller's own", async () => {
  const spec = { shape: [64, 64], dtype: parseDataType("float32"), fillValue: 0 };
  for (const [name, chain] of Object.entries(CHAINS)) {
    const p = CodecPipeline.create(chain, spec);
    const a = stridedChunk(1);
    const b = stridedChunk(2);
    const lease = new ScratchLease();
    const leased = await p.encode(a.view, lease);
    assert.ok(lease.owns(leased), `${name}: the encoded chunk is a view of leased scratch, not fresh memory`);
    const leasedCopy = leased.slice();
    lease.release();
    const own = await p.encode(a.view);
    assert.deepEqual(own, leasedCopy, `${name}: the same bytes with and without a lease`);
    const ownCopy = own.slice();
    // A later encode reuses the same scratch buffers: what the first returned must not change.
    await p.encode(b.view);
    assert.deepEqual(own, ownCopy, `${name}: a later encode leaves the earlier result alone`);
    assert.deepEqual(new Float32Array((await p.decode(own)).data as Float32Array), a.values, `${name}: decodes to the values`);
  }
});

test("a MemoryStore (which keeps what it is given) never holds scratch memory: every chunk keeps its bytes", async () => {
  const store = new MemoryStore();
  const rows = 64 * 5 + 7;
  const values = new Float32Array(rows * 200);
  for (let i = 0; i < values.length; i++) values[i] = Math.fround(Math.cos(i * 0.003) * 50);
  for (const [k, [name, chain]] of Object.entries(CHAINS).entries()) {
    const a = await createArray(store, { path: `a${k}`, shape: [rows, 200], chunks: [64, 64], dtype: "float32", fillValue: 0, codecs: chain });
    await a.set(null, { data: values, shape: [rows, 200] }, { threads: 0 });
    const back = (await a.get(null, { threads: 0 })) as NDArray<Float32Array>;
    assert.deepEqual(back.data, values, name);
  }
});

test("writes to a folder, inline and on a pool, reuse scratch and hold what zarr-python reads", { skip }, async () => {
  const root = scratchDir();
  dirs.push(root);
  const rows = 64 * 4 + 9;
  const cols = 64 * 3 + 5;
  const values = new Float32Array(new SharedArrayBuffer(rows * cols * 4));
  for (let i = 0; i < values.length; i++) values[i] = Math.fround(((i * 7919) % 1000) / 7 - 60);
  const compressors: Record<string, JsonObject | null> = {
    "blosc-lz4": { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
    zlib: { id: "zlib", level: 1 },
    lz4: { id: "lz4", acceleration: 1 },
    raw: null,
  };
  const written: [string, string][] = [];
  for (const [name, compressor] of Object.entries(compressors)) {
    for (const threads of [0, 2]) {
      const path = join(root, `${name}-${threads}.zarr`);
      const a = await createArray(path, { shape: [rows, cols], chunks: [64, 64], dtype: "<f4", fillValue: 0, zarrFormat: 2, compressor });
      await a.set(null, { data: values, shape: [rows, cols] }, { threads, pool });
      if (threads === 0) {
        // The first write took what it needed; writing again takes nothing new.
        const before = scratchAllocations();
        await a.set(null, { data: values, shape: [rows, cols] }, { threads: 0 });
        assert.equal(scratchAllocations(), before, `${name}: a second write allocates no scratch buffer`);
      }
      written.push([`${name}, threads ${threads}`, path]);
    }
  }
  const r = runPython(
    `import base64, json, sys, zarr, numpy as np
print(json.dumps([base64.b64encode(np.ascontiguousarray(zarr.open_array(p, mode="r")[:], dtype="<f4").tobytes()).decode() for p in sys.argv[1:]]))`,
    ...written.map(([, path]) => path),
  );
  assert.equal(r.status, 0, r.stderr);
  const arrays = JSON.parse(r.stdout) as string[];
  written.forEach(([what], i) => {
    const bytes = Buffer.from(arrays[i], "base64");
    const got = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    assert.deepEqual(got, new Float32Array(values), `${what}: zarr-python reads what was written`);
  });
});
