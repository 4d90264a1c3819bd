/**
 * The default placement against `threads: 2`, alone and alternating (issue 31: the default
 * blosc-lz4 read measured 10-18% slower than `threads: 2` in `parzarr bench`, where on 2 cores
 * both are the same placement):
 *   node --import tsx bench/default-vs-two.ts [CODEC=blosc-lz4] [ROUNDS=9] [SIZE=8192] [ORDER=ab|ba|default|two|bench]
 * Prints each round's pair (ms), the medians, and what placement each setting got. With ORDER
 * `default` or `two` it times that one setting only (for fresh processes, one setting each).
 * `bench` runs each setting's reads into `out` as `parzarr bench` does, after 5 fresh reads and
 * before 5 writes of the same setting, the two settings' blocks alternating (each round's median).
 */
import "../src/platform/node.js";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { rmSync } from "node:fs";
import { createArray, openArray } from "../src/hierarchy/open.js";
import { placeOperation } from "../src/parallel/execution/coordinator.js";
import { pipelineFor } from "../src/parallel/chunk-io/chunk-codec.js";
import { FileSystemStore } from "../src/stores/filesystem.js";
import { COMPARE_CODECS, ensureDataset, makeData, type CompareCodec } from "./compare/compare.js";
import { median } from "./compare/measure.js";

const codec = (process.argv[2] ?? "blosc-lz4") as CompareCodec;
const rounds = Number(process.argv[3] ?? 9);
const size = Number(process.argv[4] ?? 8192);
const order = process.argv[5] ?? "ab";
if (!COMPARE_CODECS.some((c) => c.codec === codec)) throw new Error(`codec: one of ${COMPARE_CODECS.map((c) => c.codec)}`);
const paths = await ensureDataset(resolve(".bench-data"), size, size, 1024, () => makeData(size, size), console.log);
const arr = await openArray(paths.get(codec)!, { mode: "r" });
const out = new Float32Array(new SharedArrayBuffer(size * size * 4));
const settings: Record<string, { threads?: number }> = { default: {}, two: { threads: 2 } };
const names = order === "ab" || order === "bench" ? ["default", "two"] : order === "ba" ? ["two", "default"] : [order];

// What each setting is placed as (the same request the read makes).
const chunkBytes = 1024 * 1024 * 4;
for (const name of names) {
  const p = placeOperation({ store: new FileSystemStore(paths.get(codec)!), chunkCount: (size / 1024) ** 2, chunkBytes, decodeCost: pipelineFor(arr.metadata).decodeCost, op: "read", data: out }, settings[name]);
  console.log(`${name}: ${p.where === "pool" ? `pool of ${p.pool.threads} threads, ${p.lanes} lanes` : "inline"}`);
}
for (const name of names) await arr.get(null, { out, ...settings[name] }); // warm
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
/** The median of `n` runs of `run`, after one unmeasured (`warm`). */
async function timed(n: number, run: () => Promise<unknown>, warm = true): Promise<number> {
  const xs: number[] = [];
  for (let i = warm ? 0 : 1; i <= n; i++) {
    const t = performance.now();
    await run();
    if (i > 0) xs.push(performance.now() - t);
  }
  return median(xs);
}
const spec = COMPARE_CODECS.find((c) => c.codec === codec)!;
const target = resolve(".bench-data", "writes", `default-vs-two-${codec}.zarr`);
for (let i = 0; i < rounds; i++) {
  if (order !== "bench") {
    for (const name of names) times[name].push(await timed(1, () => arr.get(null, { out, ...settings[name] }), false));
    continue;
  }
  // The settings take turns to go first, so that neither always follows the other's writes.
  for (const name of i % 2 === 1 ? [...names].reverse() : names) {
    await timed(5, () => arr.get(null, settings[name]));
    times[name].push(await timed(5, () => arr.get(null, { out, ...settings[name] })));
    const data = out.slice();
    const write = async () => {
      const a = await createArray(target, { shape: [size, size], chunks: [1024, 1024], dtype: "<f4", fillValue: 0, zarrFormat: 2, compressor: spec.compressor, overwrite: true });
      await a.set(null, { data, shape: [size, size] }, settings[name]);
    };
    await timed(5, write);
  }
}
rmSync(target, { recursive: true, force: true });
console.log(`${codec}, ${rounds} rounds, order ${names.join(" then ")}, load ${loadavg()[0].toFixed(2)}`);
for (const name of names) console.log(`  ${name.padEnd(8)} median ${median(times[name]).toFixed(0)} ms: ${times[name].map((t) => t.toFixed(0)).join(" ")}`);
process.exit(0);
