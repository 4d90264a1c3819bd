/**
 * Whole reads of one array in a loop, as a script that reads many arrays (or one many times)
 * does: the time and the process's resident memory after each read. It shows what the memory of
 * a dropped result costs the next read. Issue 12 found that a 256 MiB result on a
 * SharedArrayBuffer, dropped, is not collected until some unrelated collection (V8 does not count
 * shared memory towards its heap pressure), so the process grew by the result each read and each
 * read paid fresh pages; results are ordinary memory now (src/parallel/execution/staged-output.ts).
 *   node --import tsx bench/read-loop.ts ARRAY [THREADS=default|0|1|2...] [READS=6] [--out]
 * `--out` reads into one reused ordinary Float32Array/whatever-typed out instead of a fresh result.
 * Try it with and without GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (README, "Memory and huge pages").
 */
import "../src/platform/node.js";
import { openArray } from "../src/hierarchy/open.js";
import { allocElements } from "../src/metadata/elements.js";

const [path, threadsArg = "default", readsArg = "6"] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (path === undefined) throw new Error("usage: bench/read-loop.ts ARRAY [THREADS] [READS] [--out]");
const threads = threadsArg === "default" ? undefined : Number(threadsArg);
const useOut = process.argv.includes("--out");
const arr = await openArray(path, { mode: "r" });
const out = useOut ? allocElements(arr.metadata.dtype, arr.shape.reduce((a, b) => a * b, 1), false) : undefined;
const rss = (): string => (process.memoryUsage().rss / 2 ** 20).toFixed(0);
console.log(`${path}: threads ${threadsArg}, ${useOut ? "into one reused out" : "a fresh result each read"}, rss ${rss()} MiB`);
for (let i = 0; i < Number(readsArg); i++) {
  const t0 = performance.now();
  const r = await arr.get(null, { ...(threads === undefined ? {} : { threads }), ...(out ? { out } : {}) });
  const ms = performance.now() - t0;
  const data = (r as { data: ArrayBufferView }).data;
  console.log(`read ${i}: ${ms.toFixed(0)} ms, rss ${rss()} MiB, result on a SharedArrayBuffer: ${data.buffer instanceof SharedArrayBuffer}`);
}
process.exit(0);
