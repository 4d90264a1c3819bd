/**
 * The newcomer's demo: create a v3 and a v2 array in a temporary folder, write into them, read
 * selections back, and print what happened. Run with `npm run demo`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, createGroup, openArray, slice, type NDArray } from "../src/index.js";

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
console.log(`done in ${((performance.now() - t0) / 1000).toFixed(2)} s (files under ${dir}, removed now)`);
rmSync(dir, { recursive: true, force: true });
