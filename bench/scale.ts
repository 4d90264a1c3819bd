/**
 * The scaling curve of issue 31: whole reads of the bench:compare arrays (float32 random walks,
 * Zarr v2, chunks 1024 x 1024; blosc-lz4, blosc-zstd, zlib, raw) into one reused `out` (shared
 * memory, so workers write in place), inline and on 1, 2, 4, ... threads up to
 * os.availableParallelism(), and with the default placement, beside zarr-python 2's
 * `get_basic_selection(..., out=)`. Settings take turns run by run so that all meet the same load;
 * medians. It also prints this machine's memcpy bandwidth (one large TypedArray.set) and each
 * read's speed as a share of it, and how many cores each setting kept busy (the process's CPU
 * over its wall time, every thread counted).
 *
 *   npm run bench:scale                         # 8192 x 8192 (256 MiB), median of 5
 *   npm run bench:scale -- --size 4096 --repeats 7 --codecs raw,blosc-lz4
 *   npm run bench:scale -- --json scale.json
 */
import "../src/platform/node.js";
import { availableParallelism, loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { openArray } from "../src/hierarchy/open.js";
import { COMPARE_CODECS, ensureDataset, makeData, PYTHON, pythonSkipReason, type CompareCodec, type PythonResult } from "./compare/compare.js";
import { ZARR_PYTHON_BENCH } from "./compare/zarr-python-script.js";
import { checksum, median, runJsonChild } from "./compare/measure.js";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "8192" },
    chunk: { type: "string", default: "1024" },
    repeats: { type: "string", default: "5" },
    codecs: { type: "string" },
    dir: { type: "string" },
    json: { type: "string" },
  },
});
const size = Number(values.size);
const chunk = Number(values.chunk);
const repeats = Number(values.repeats);
const codecs = (values.codecs?.split(",") ?? COMPARE_CODECS.map((c) => c.codec)) as CompareCodec[];
const dir = resolve(values.dir ?? ".bench-data");
const cores = availableParallelism();
const bytes = size * size * 4;
const MiB = 2 ** 20;

/** Inline, then powers of two up to the cores (and the cores themselves), then the default placement. */
const settings: (number | "default")[] = [0];
for (let t = 1; t < cores; t *= 2) settings.push(t);
settings.push(cores, "default");
const label = (t: number | "default"): string => (t === "default" ? "default" : t === 0 ? "inline" : `${t} thr`);

/** GB/s of one large TypedArray.set (bytes copied per second), median of 9 after a warm-up. */
function memcpyBandwidth(n: number): number {
  const src = new Uint8Array(n).fill(1);
  const dst = new Uint8Array(n);
  const xs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    dst.set(src);
    if (i > 0) xs.push(performance.now() - t);
  }
  return n / (median(xs) / 1000) / 1e9;
}

console.log(`scaling: ${size} x ${size} float32 (${(bytes / MiB).toFixed(0)} MiB), chunks ${chunk}^2, v2, into a reused shared out; ${cores} cores; Node ${process.version}; median of ${repeats}; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const memcpy = memcpyBandwidth(bytes);
console.log(`memcpy (TypedArray.set of ${(bytes / MiB).toFixed(0)} MiB): ${memcpy.toFixed(1)} GB/s`);

let data: Float32Array | null = null;
const paths = await ensureDataset(dir, size, size, chunk, () => (data ??= makeData(size, size)), (l) => console.log(l));
data = null;

const out = new Float32Array(new SharedArrayBuffer(bytes));
const seconds = new Map<string, number>();
/** CPU seconds of the whole process (every thread: workers, libuv's file reads) over wall seconds, all runs of a setting. */
const busy = new Map<string, number>();
/** Mean CPU seconds of one run of a setting (every thread). */
const cpuPerRun = new Map<string, number>();
const samples: Record<string, number[]> = {};
const sums = new Map<CompareCodec, number>();
for (const codec of codecs) {
  const arr = await openArray(paths.get(codec)!, { mode: "r" });
  const run = (t: number | "default") => arr.get(null, t === "default" ? { out } : { out, threads: t });
  for (const t of settings) await run(t); // warm: JIT, workers, page cache
  sums.set(codec, checksum(out, size, size));
  const xs: number[][] = settings.map(() => []);
  const cpu: number[] = settings.map(() => 0);
  for (let i = 0; i < repeats; i++) {
    for (let k = 0; k < settings.length; k++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await run(settings[k]);
      xs[k].push((performance.now() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpu[k] += (c.user + c.system) / 1e6;
    }
  }
  settings.forEach((t, k) => {
    seconds.set(`${codec} ${label(t)}`, median(xs[k]));
    busy.set(`${codec} ${label(t)}`, cpu[k] / xs[k].reduce((a, b) => a + b, 0));
    cpuPerRun.set(`${codec} ${label(t)}`, cpu[k] / repeats);
    samples[`${codec} ${label(t)}`] = xs[k];
  });
}

let python: PythonResult | string = pythonSkipReason() ?? "";
if (python === "") {
  const cases = codecs.map((codec) => ({ codec, path: paths.get(codec)!, writePath: "" }));
  python = await runJsonChild<PythonResult>("zarr-python benchmark", PYTHON, ["-c", ZARR_PYTHON_BENCH, JSON.stringify({ cases, repeats, outOnly: true })]);
}

const head = ["codec", ...settings.map(label), "zarr-python", "2 thr/inline", "default/best", "default vs zp", "default % memcpy"];
const rows: string[][] = [];
for (const codec of codecs) {
  const s = (t: number | "default") => seconds.get(`${codec} ${label(t)}`)!;
  const zp = typeof python === "string" ? null : median(python.results.find((r) => r.codec === codec)!.readOut);
  const best = Math.min(s(0), s(Math.min(2, cores)));
  rows.push([
    codec,
    ...settings.map((t) => `${(s(t) * 1000).toFixed(0)} ms`),
    zp === null ? "-" : `${(zp * 1000).toFixed(0)} ms`,
    `${(s(0) / s(Math.min(2, cores))).toFixed(2)}x`,
    `${(s("default") / best).toFixed(2)}`,
    zp === null ? "-" : `${(zp / s("default")).toFixed(2)}x`,
    `${((bytes / s("default") / 1e9 / memcpy) * 100).toFixed(0)}%`,
  ]);
}
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i])).join(" | ")} |`;
console.log([line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n"));
console.log(`default/best: the default's time over the better of inline and 2 threads (issue 31: at most 1.10); default vs zp: zarr-python's time over the default's`);
// How many cores each setting kept busy. An inline read of files is not one core's work: libuv's
// threads read the next chunks while this thread decodes. So 2 threads can be at most
// 2 / (inline's cores) times faster than inline with the same CPU; "2 thr bound" is what they
// would reach keeping both cores busy with the CPU they did use (inline's median time over half
// the 2-thread runs' mean CPU).
const busyHead = ["cores busy", ...settings.map(label), "2 thr bound"];
const two = Math.min(2, cores);
const busyRows = codecs.map((codec) => {
  const b = (t: number | "default") => busy.get(`${codec} ${label(t)}`)!;
  const inline = seconds.get(`${codec} ${label(0)}`)!;
  return [codec, ...settings.map((t) => b(t).toFixed(2)), `${((two * inline) / cpuPerRun.get(`${codec} ${label(two)}`)!).toFixed(2)}x`];
});
const busyWidths = busyHead.map((h, i) => Math.max(h.length, ...busyRows.map((r) => r[i].length)));
const busyLine = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(busyWidths[i])).join(" | ")} |`;
console.log([busyLine(busyHead), `|${busyWidths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...busyRows.map(busyLine)].join("\n"));
if (typeof python === "string") console.log(`note: ${python}`);
else {
  for (const r of python.results) {
    if (Math.abs(r.checksum - sums.get(r.codec)!) > 1e-6 * Math.max(1, Math.abs(r.checksum))) console.log(`WARNING: zarr-python read different values for ${r.codec}`);
  }
}
if (values.json) writeFileSync(values.json, JSON.stringify({ size, chunk, repeats, cores, memcpyGBps: memcpy, seconds: Object.fromEntries(seconds), coresBusy: Object.fromEntries(busy), cpuSecondsPerRun: Object.fromEntries(cpuPerRun), samples, python }, null, 2));
process.exit(0);
