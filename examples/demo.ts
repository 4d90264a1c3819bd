/**
 * The newcomer's demo: create a v3 and a v2 array in a temporary folder, write into them, read
 * selections back, and print what happened. Run with `npm run demo`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consolidateMetadata, createArray, createGroup, fromZarr, openArray, slice, WorkerPool, type NDArray } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "parzarr-demo-"));
const t0 = performance.now();

const root = await createGroup(join(dir, "demo.zarr"), { attributes: { title: "parzarr demo" } });
const temps = await root.createArray("temperature", {
  shape: [365, 180, 360],
  chunks: [30, 90, 90],
  dtype: "float32",
  fillValue: "NaN",
  codecs: [{ name: "bytes" }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle" } }],
  dimensionNames: ["day", "lat", "lon"],
  attributes: { units: "degC" },
});
console.log(`created ${temps} with chunks [${temps.chunks}] and codecs ${temps.codecs.map((c) => c.name).join(" -> ")}`);

// A smooth field: warmer at the equator, with a seasonal cycle.
const [days, lats, lons] = temps.shape;
const data = new Float32Array(days * lats * lons);
for (let d = 0; d < days; d++)
  for (let i = 0; i < lats; i++)
    for (let j = 0; j < lons; j++)
      data[(d * lats + i) * lons + j] = 30 * Math.cos(((i - 90) * Math.PI) / 180) - 10 + 8 * Math.sin((2 * Math.PI * d) / 365) + 0.01 * j;
await temps.set(null, { data, shape: temps.shape });
console.log(`wrote ${(data.byteLength / 2 ** 20).toFixed(1)} MiB in ${await temps.nchunksInitialized()} chunks`);

const july = (await temps.get([181, slice(80, 100, 5), slice(0, 360, 90)])) as NDArray<Float32Array>;
console.log(`July 1st, lat 80..100 step 5, lon 0..360 step 90: shape [${july.shape}]`);
for (let i = 0; i < july.shape[0]; i++) {
  const row = Array.from(july.data.subarray(i * july.shape[1], (i + 1) * july.shape[1]) as Float32Array, (v) => v.toFixed(2));
  console.log(`  ${row.join("  ")}`);
}
console.log(`one value: temperature[0, 90, 0] = ${(await temps.get([0, 90, 0])) as number}`);

// The same data as a Zarr v2 array that zarr-python 2 reads.
const v2 = await createArray(join(dir, "v2.zarr"), {
  zarrFormat: 2,
  shape: temps.shape,
  chunks: [73, 90, 90],
  dtype: "<f4",
  compressor: { id: "zlib", level: 1 },
});
await v2.set(null, { data, shape: temps.shape });
const back = await openArray(join(dir, "v2.zarr"), { mode: "r" });
const equal = ((await back.get()) as NDArray<Float32Array>).data.every((v, i) => v === data[i]);
console.log(`v2 copy with zlib: ${readdirSync(join(dir, "v2.zarr")).length - 1} chunk files, read back ${equal ? "identical" : "DIFFERENT"}`);
console.log(`v2 metadata:\n${readFileSync(join(dir, "v2.zarr", ".zarray"), "utf8")}`);
// The same read inline and on a pool of worker threads that decode into a SharedArrayBuffer.
const pool = new WorkerPool({ threads: 2 });
for (const [label, options] of [["inline (threads: 0)", { threads: 0 }], ["on 2 worker threads", { pool }]] as const) {
  const start = performance.now();
  const all = (await temps.get(null, options)) as NDArray<Float32Array>;
  const shared = all.data.buffer instanceof SharedArrayBuffer ? ", SharedArrayBuffer-backed" : "";
  console.log(`whole read ${label}: ${(performance.now() - start).toFixed(0)} ms${shared}`);
}
await pool.close();

// A sharded copy (v3 sharding_indexed): 6 x 5 x 5 inner chunks in each stored object.
const sharded = await root.createArray("temperature_sharded", {
  shape: temps.shape,
  chunks: [5, 18, 18],
  shards: [30, 90, 90],
  dtype: "float32",
  codecs: [{ name: "bytes" }, { name: "zstd", configuration: { level: 3, checksum: false } }],
});
await sharded.set(null, { data, shape: temps.shape });
const one = (await sharded.get([100, slice(0, 18), slice(0, 18)])) as NDArray<Float32Array>;
console.log(`sharded copy: chunks [${sharded.chunks}] in shards [${sharded.shards}]; one inner chunk read back ${one.data.every((v, k) => v === data[100 * lats * lons + Math.floor(k / 18) * lons + (k % 18)]) ? "identical" : "DIFFERENT"}`);

// Consolidated metadata, then the hierarchy as one Zarr Object Model (ZEP 6) document.
await consolidateMetadata(join(dir, "demo.zarr"));
const model = await fromZarr(join(dir, "demo.zarr"));
console.log(`hierarchy model (ZEP 6): members ${Object.keys("members" in model ? model.members : {}).join(", ")}`);
console.log(`done in ${((performance.now() - t0) / 1000).toFixed(2)} s (files under ${dir}, removed now)`);
rmSync(dir, { recursive: true, force: true });
