/**
 * What reading raw chunks from the file straight into the output saves: a whole inline read of a
 * 4096 x 4096 float32 raw array whose chunks span whole rows (256 x 4096, 4 MiB each), through a
 * FileSystemStore (readInto: file -> output) and through one without readInto (readFile into a
 * fresh buffer, then one copy into place). Variants in turns; best and median.
 *   node --import tsx bench/raw-read-into.ts [RUNS=13]
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, createArray, openArray } from "../src/index.js";
import { median, randomWalk, scratchFolder } from "./pool-data.js";

const runs = Number(process.argv[2] ?? 13);
const root = scratchFolder("raw-read-into");
const shape = [4096, 4096];
const path = join(root, "a.zarr");
const a = await createArray(path, { shape, chunks: [256, 4096], dtype: "<f4", zarrFormat: 2, compressor: null });
await a.set(null, { data: randomWalk(shape), shape }, { threads: 0 });

// The same store with its optional readInto removed: the read path then falls back to get().
const plain = new FileSystemStore(path);
Object.defineProperty(plain, "readInto", { value: undefined });
const variants = [await openArray(new FileSystemStore(path), { mode: "r" }), await openArray(plain, { mode: "r" })];
const xs: number[][] = [[], []];
for (let i = 0; i < runs + 2; i++) {
  for (const [k, arr] of variants.entries()) {
    const t = performance.now();
    await arr.get(null, { threads: 0 });
    if (i >= 2) xs[k].push(performance.now() - t);
  }
}
rmSync(root, { recursive: true, force: true });
const fmt = (x: number[]) => `${Math.min(...x).toFixed(1)} (${median(x).toFixed(1)}) ms`;
console.log(`raw 64 MiB whole read, best (median) of ${runs}: readInto ${fmt(xs[0])}  vs  readFile + copy ${fmt(xs[1])}`);
