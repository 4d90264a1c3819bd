/**
 * The whole-array comparison of issues 3 and 12: parzarr (threads 0, 2 and the default pool)
 * against zarrita.js and zarr-python 2 on float32 random walks along rows, Zarr v2, one array per
 * codec (blosc lz4 clevel 5 shuffle, blosc zstd clevel 3 shuffle, zlib level 1, raw). Reads are
 * timed three ways: into fresh memory (`get()`), into fresh memory in a child process started
 * with glibc's huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, as the parzarr command runs),
 * and into one reused output (`get(null, { out })`, zarr-python's `out=`); writes once. Arrays
 * are written once under `dir` and reused; every timing is warm (reads get one untimed warm-up)
 * and the median of `repeats`. Used by `npm run bench:compare` and `parzarr bench`.
 */
// The Node platform (folder stores, worker_threads): the benchmark opens arrays by path.
import "../../src/platform/node.js";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createArray, openArray } from "../../src/hierarchy/open.js";
import type { NDArray } from "../../src/indexing/ndarray.js";
import type { JsonObject } from "../../src/metadata/json.js";
import type { OperationOptions } from "../../src/parallel/execution/options.js";
import { fillRandomWalks } from "./data.js";
import type { PeakMemoryReport } from "./peak-memory.js";
import { ZARR_PYTHON_BENCH } from "./zarr-python-script.js";
import type { HugePageReport } from "./hugepage-reads.js";
import { hugeTlbEnv } from "../../src/cli/hugepages.js";
import { ETL_MEMORY, ETL_RSS_ALLOWANCE, runEtl, summarize, type EtlResult } from "./etl.js";
import { runVolumes, type VolumeResult } from "./volume.js";
import { checksum, loadZarrita, median, runJsonChild, timeRuns } from "./measure.js";

export type CompareCodec = "blosc-lz4" | "blosc-zstd" | "zlib" | "raw";
export type ThreadSetting = number | "default";
export type Implementation = "parzarr" | "zarrita" | "zarr-python";
/** Where a read's output goes: fresh memory, fresh memory with huge pages, a reused buffer. */
export type ReadMode = "fresh" | "hugepages" | "out";
export const READ_MODES: readonly ReadMode[] = ["fresh", "hugepages", "out"];

export interface CompareOptions {
  /** Where the generated arrays are cached (default `.bench-data` in the working directory). */
  dir?: string;
  rows?: number;
  cols?: number;
  /** Square chunk edge. */
  chunk?: number;
  /** Timed runs per measurement; the median is reported. */
  repeats?: number;
  /** parzarr thread settings to time; "default" omits the option (the process-wide pool). */
  threads?: ThreadSetting[];
  /** Edge of the v3 uint16 cubes read against zarrita.js (default 512). */
  volumeEdge?: number;
  log?: (line: string) => void;
}

export interface Measurement {
  impl: Implementation;
  /** parzarr only. */
  threads?: ThreadSetting;
  codec: CompareCodec;
  op: "read" | "write";
  /** Reads only. */
  mode?: ReadMode;
  /** Median seconds, or null when this implementation cannot do it (see `note`). */
  seconds: number | null;
  samples: number[];
  note?: string;
}

export interface TargetCheck {
  /** What is compared, as the issue states it. */
  name: string;
  /** How many times faster parzarr is (the other time over parzarr's), or null when not measured. */
  ratio: number | null;
  /** The ratio the issue asks for. */
  target: number;
  met: boolean | null;
}

export interface MemoryCheck {
  codec: CompareCodec;
  threads: ThreadSetting;
  outputBytes: number;
  /** Peak resident memory above the baseline taken just before the read. */
  peakRssDelta: number;
  /** Peak ArrayBuffer memory above the baseline (sampled). */
  peakArrayBuffersDelta: number;
  /** peakRssDelta / outputBytes; the issue's target is at most 1.5. */
  ratio: number;
}

export interface CompareResult {
  config: { dir: string; rows: number; cols: number; chunk: number; repeats: number; threads: ThreadSetting[]; cores: number; node: string };
  measurements: Measurement[];
  targets: TargetCheck[];
  memory: MemoryCheck[];
  /** `parzarr cp` against zarr-python's `z2[:] = z1` (null when skipped). */
  etl: EtlResult | null;
  /** Whole reads of v3 uint16 cubes, plain and sharded, parzarr against zarrita.js. */
  volumes: VolumeResult[];
  /** Why a peer or a part was skipped. */
  skipped: string[];
  /** Every implementation read the same values (a strided checksum), or the mismatches. */
  checksumMismatches: string[];
}

interface CodecSpec {
  codec: CompareCodec;
  /** The v2 compressor (numcodecs form), or null for raw. */
  compressor: JsonObject | null;
  /** The v3 chain zarrita writes with, or null when zarrita cannot encode it. */
  zarritaCodecs: JsonObject[] | null;
}

const BYTES_LE: JsonObject = { name: "bytes", configuration: { endian: "little" } };

export const COMPARE_CODECS: CodecSpec[] = [
  {
    codec: "blosc-lz4",
    compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
    zarritaCodecs: [BYTES_LE, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }],
  },
  {
    codec: "blosc-zstd",
    compressor: { id: "blosc", cname: "zstd", clevel: 3, shuffle: 1, blocksize: 0 },
    zarritaCodecs: [BYTES_LE, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "shuffle", typesize: 4, blocksize: 0 } }],
  },
  { codec: "zlib", compressor: { id: "zlib", level: 1 }, zarritaCodecs: null },
  { codec: "raw", compressor: null, zarritaCodecs: [BYTES_LE] },
];

/** Bumped when the generator changes, so stale caches are not reused. */
const DATA_VERSION = 1;
export const PYTHON = process.env.PARZARR_PYTHON ?? "/usr/bin/python3";

const sameSum = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

function threadOptions(t: ThreadSetting): OperationOptions {
  return t === "default" ? {} : { threads: t };
}

const threadLabel = (t: ThreadSetting): string => (t === "default" ? "default" : String(t));

export function makeData(rows: number, cols: number): Float32Array {
  const data = new Float32Array(rows * cols);
  fillRandomWalks(data, rows, cols);
  return data;
}

/** Writes (once) the source arrays; returns the path of each codec's array. */
export async function ensureDataset(root: string, rows: number, cols: number, chunk: number, data: () => Float32Array, log: (s: string) => void): Promise<Map<CompareCodec, string>> {
  const base = join(root, `walks-v${DATA_VERSION}-${rows}x${cols}-c${chunk}`);
  mkdirSync(base, { recursive: true });
  const paths = new Map<CompareCodec, string>();
  for (const spec of COMPARE_CODECS) {
    const path = join(base, `${spec.codec}.zarr`);
    const done = join(base, `${spec.codec}.done`);
    paths.set(spec.codec, path);
    if (existsSync(done)) continue;
    log(`generating ${path} ...`);
    rmSync(path, { recursive: true, force: true });
    const a = await createArray(path, {
      shape: [rows, cols],
      chunks: [chunk, chunk],
      dtype: "<f4",
      fillValue: 0,
      zarrFormat: 2,
      compressor: spec.compressor,
    });
    await a.set(null, { data: data(), shape: [rows, cols] });
    writeFileSync(done, new Date().toISOString() + "\n");
  }
  return paths;
}

export interface PythonResult {
  zarr: string;
  numcodecs: string;
  blosc_threads: number | null;
  results: { codec: CompareCodec; read: number[]; readOut: number[]; outSame: boolean; write: number[]; checksum: number }[];
}

export function pythonSkipReason(): string | null {
  const r = spawnSync(PYTHON, ["-c", "import zarr, numcodecs, numpy; assert zarr.__version__.startswith('2'), zarr.__version__"], { encoding: "utf8" });
  if (r.error) return `zarr-python: ${PYTHON} cannot be run (${r.error.message}): skipped`;
  if (r.status !== 0) return `zarr-python 2 is not importable by ${PYTHON} (apt-get install python3-zarr): skipped`;
  return null;
}

function runPythonBench(cases: { codec: CompareCodec; path: string; writePath: string }[], repeats: number): Promise<PythonResult> {
  return runJsonChild("zarr-python benchmark", PYTHON, ["-c", ZARR_PYTHON_BENCH, JSON.stringify({ cases, repeats })]);
}

/** A sibling script of this module, run with the same runtime and loader flags. */
function childScript(name: string, nodeFlags: string[] = []): string[] {
  const here = fileURLToPath(import.meta.url);
  return [...process.execArgv, ...nodeFlags, join(dirname(here), `${name}${here.endsWith(".ts") ? ".ts" : ".js"}`)];
}

/** Runs the peak-memory child (same runtime, same loader flags) for one whole read. */
function measurePeakMemory(path: string, threads: ThreadSetting): Promise<PeakMemoryReport> {
  return runJsonChild("peak-memory child", process.execPath, [...childScript("peak-memory", ["--expose-gc"]), path, threadLabel(threads)]);
}

/** The glibc version at run time, undefined off glibc. */
function glibcVersion(): string | undefined {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime;
}

/** Fresh reads with huge pages: a child started with the tunable; a reason string where it cannot be. */
async function measureHugePageReads(cases: { codec: CompareCodec; path: string }[], repeats: number, rows: number, cols: number): Promise<HugePageReport | string> {
  const env = hugeTlbEnv({ platform: process.platform, glibc: glibcVersion(), env: { ...process.env, GLIBC_TUNABLES: undefined, PARZARR_HUGETLB: undefined } });
  if (env === null) return `huge pages: this is not Linux with glibc >= 2.35 (GLIBC_TUNABLES=glibc.malloc.hugetlb=1 is glibc's): skipped`;
  return runJsonChild("huge-page reads child", process.execPath, [...childScript("hugepage-reads"), JSON.stringify({ cases, repeats, rows, cols })], env as NodeJS.ProcessEnv);
}

/** One target of the issue: `other` over `ours` (both seconds) should be at least `target`. */
function check(name: string, other: number | null, ours: number | null, target: number): TargetCheck {
  const ratio = other !== null && ours !== null && ours > 0 ? other / ours : null;
  return { name, ratio, target, met: ratio === null ? null : ratio >= target };
}

/** The ETL and volume targets: cp's speed and peak memory, and each cube read against zarrita.js. */
function checkEtlAndVolumes(etl: EtlResult | null, volumes: VolumeResult[]): TargetCheck[] {
  const targets: TargetCheck[] = [];
  if (etl !== null && etl.parzarr.length > 0) {
    const ours = summarize(etl.parzarr);
    const theirs = summarize(etl.zarrPython);
    targets.push(check("etl: parzarr cp (v3 zstd:3, --memory 256MiB) vs zarr-python z2[:] = z1", theirs.seconds, ours.seconds, 1.5));
    // As a ratio like the others: the allowance over the peak, at least 1 when within it.
    targets.push(check(`etl: cp peak RSS within --memory + 200 MiB (${((ETL_MEMORY + ETL_RSS_ALLOWANCE) / 2 ** 20).toFixed(0)} MiB)`, ETL_MEMORY + ETL_RSS_ALLOWANCE, ours.peakRss, 1));
  }
  for (const v of volumes) {
    targets.push(check(`read v3 ${v.edge}^3 uint16 zstd ${v.layout} vs zarrita.js`, v.zarrita === null ? null : median(v.zarrita), median(v.parzarr), 5));
  }
  return targets;
}

/**
 * The targets, computed from the measurements (parzarr at its default thread setting): issue 31's
 * for reads into a reused `out` (against zarr-python's `out=`, 2 threads against inline, and the
 * default placement within 10% of the better of the two), issue 12's for the rest.
 */
function checkTargets(ms: Measurement[], threads: ThreadSetting[]): TargetCheck[] {
  const best: ThreadSetting = threads.includes("default") ? "default" : threads[threads.length - 1];
  const t = (impl: Implementation, codec: CompareCodec, op: "read" | "write", mode?: ReadMode, th?: ThreadSetting): number | null =>
    ms.find(
      (m) => m.impl === impl && m.codec === codec && m.op === op && m.mode === mode && (impl !== "parzarr" || mode === "hugepages" || m.threads === (th ?? best)),
    )?.seconds ?? null;
  const targets: TargetCheck[] = [];
  const outTargets: [CompareCodec, number][] = [["blosc-lz4", 1.2], ["blosc-zstd", 1.2], ["zlib", 2], ["raw", 1]];
  for (const [codec, target] of outTargets) {
    targets.push(check(`read into out, ${codec}, vs zarr-python out=`, t("zarr-python", codec, "read", "out"), t("parzarr", codec, "read", "out"), target));
  }
  targets.push(check("read fresh + huge pages, blosc-lz4, vs zarr-python z[:]", t("zarr-python", "blosc-lz4", "read", "fresh"), t("parzarr", "blosc-lz4", "read", "hugepages"), 0.8));
  targets.push(check("read blosc-lz4 vs zarrita.js (both huge pages)", t("zarrita", "blosc-lz4", "read", "hugepages"), t("parzarr", "blosc-lz4", "read", "hugepages"), 5));
  targets.push(check("write blosc-lz4 vs zarr-python", t("zarr-python", "blosc-lz4", "write"), t("parzarr", "blosc-lz4", "write"), 1.5));
  targets.push(check("write zlib vs zarr-python", t("zarr-python", "zlib", "write"), t("parzarr", "zlib", "write"), 3));
  if (threads.includes(0) && threads.includes(2)) {
    const twoThreads: [CompareCodec, number][] = [["blosc-lz4", 1.6], ["blosc-zstd", 1.6], ["zlib", 1.8]];
    for (const [codec, target] of twoThreads) {
      targets.push(check(`read into out, ${codec}, 2 threads vs inline`, t("parzarr", codec, "read", "out", 0), t("parzarr", codec, "read", "out", 2), target));
    }
    if (threads.includes("default")) {
      // At most 10% slower than the better of inline and 2 threads: that one's time over the default's >= 1 / 1.1.
      for (const codec of ["blosc-lz4", "blosc-zstd", "zlib", "raw"] as CompareCodec[]) {
        const inline = t("parzarr", codec, "read", "out", 0);
        const two = t("parzarr", codec, "read", "out", 2);
        const better = inline === null || two === null ? null : Math.min(inline, two);
        targets.push(check(`read into out, ${codec}, default vs the better of inline, 2 thr`, better, t("parzarr", codec, "read", "out", "default"), 1 / 1.1));
      }
    }
  }
  return targets;
}

const fmt = (s: number | null): string => (s === null ? "-" : `${s.toFixed(3)} s`);

const MODE_LABEL: Record<ReadMode, string> = { fresh: "read fresh", hugepages: "read huge pages", out: "read into out" };

/** The result as the issue's table: one row per operation and codec, one column per runner. */
export function formatCompare(r: CompareResult): string[] {
  const cols: { label: string; impl: Implementation; threads?: ThreadSetting }[] = [
    ...r.config.threads.map((t) => ({ label: `parzarr t=${threadLabel(t)}`, impl: "parzarr" as const, threads: t })),
    { label: "zarrita.js", impl: "zarrita" },
    { label: "zarr-python", impl: "zarr-python" },
  ];
  const lines: string[] = [];
  const head = ["", ...cols.map((c) => c.label)];
  const rows: string[][] = [];
  const ops: { op: "read" | "write"; mode?: ReadMode; label: string }[] = [
    ...READ_MODES.map((mode) => ({ op: "read" as const, mode, label: MODE_LABEL[mode] })),
    { op: "write", label: "write" },
  ];
  for (const { op, mode, label } of ops) {
    for (const spec of COMPARE_CODECS) {
      const cells = cols.map((c) => {
        const m = r.measurements.find(
          (x) => x.impl === c.impl && x.codec === spec.codec && x.op === op && x.mode === mode && (c.impl !== "parzarr" || x.threads === c.threads),
        );
        if (!m) return "-";
        return m.seconds === null ? (m.note ?? "n/a") : fmt(m.seconds);
      });
      rows.push([`${label} ${spec.codec}`, ...cells]);
    }
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  lines.push(line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line));
  lines.push(
    "",
    `Node ${r.config.node}. "read huge pages" runs in a child started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (parzarr with its default threads, in the t=default column); zarr-python's fresh reads get huge pages from numpy already.`,
    "Targets (ratio = other's time / parzarr's; parzarr at its default thread setting):",
  );
  for (const t of r.targets) {
    const state = t.met === null ? "not measured" : t.met ? "met" : `missed (${((t.ratio! / t.target) * 100).toFixed(0)}% of target)`;
    lines.push(`  ${t.name.padEnd(68)} ${t.ratio === null ? "-" : `${t.ratio.toFixed(2)}x`}  (target >= ${Number(t.target.toFixed(3))}x)  ${state}`);
  }
  if (r.etl !== null && r.etl.parzarr.length > 0) {
    const ours = summarize(r.etl.parzarr);
    const theirs = summarize(r.etl.zarrPython);
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    lines.push(
      "",
      `ETL (chunks ${r.etl.chunk}^2, zstd:3; parzarr writes v3, zarr-python 2 writes v2): parzarr cp ${fmt(ours.seconds)}, peak RSS ${mib(ours.peakRss)}; zarr-python z2[:] = z1 ${fmt(theirs.seconds)}, peak RSS ${mib(theirs.peakRss)}`,
    );
  }
  if (r.memory.length) {
    lines.push("", "Peak memory of a whole parzarr read (child process, RSS above the pre-read baseline):");
    for (const m of r.memory) {
      lines.push(
        `  ${m.codec} t=${threadLabel(m.threads)}: ${(m.peakRssDelta / 2 ** 20).toFixed(0)} MiB RSS for ${(m.outputBytes / 2 ** 20).toFixed(0)} MiB of output = ${m.ratio.toFixed(2)}x (target <= 1.5x); ArrayBuffers +${(m.peakArrayBuffersDelta / 2 ** 20).toFixed(0)} MiB`,
      );
    }
  }
  for (const s of r.skipped) lines.push(`note: ${s}`);
  for (const s of r.checksumMismatches) lines.push(`WARNING: ${s}`);
  return lines;
}

export async function runCompare(opts: CompareOptions = {}): Promise<CompareResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const rows = opts.rows ?? 8192;
  const cols = opts.cols ?? 8192;
  const chunk = opts.chunk ?? 1024;
  const repeats = opts.repeats ?? 3;
  const threads = opts.threads ?? [0, 2, "default"];
  const dir = resolve(opts.dir ?? ".bench-data");
  const { availableParallelism } = await import("node:os");
  const config = { dir, rows, cols, chunk, repeats, threads, cores: availableParallelism(), node: process.version };
  const measurements: Measurement[] = [];
  const skipped: string[] = [];
  const mismatches: string[] = [];
  const bytes = rows * cols * 4;
  log(`dataset: ${rows} x ${cols} float32 random walks along rows, chunks ${chunk} x ${chunk}, Zarr v2 (${(bytes / 2 ** 20).toFixed(0)} MiB); ${config.cores} cores; Node ${process.version}; median of ${repeats}, warm`);

  let data: Float32Array | null = null;
  const getData = (): Float32Array => (data ??= makeData(rows, cols));
  const paths = await ensureDataset(dir, rows, cols, chunk, getData, log);
  const expected = checksum(getData(), cols, rows);
  const writeRoot = join(dir, "writes");
  mkdirSync(writeRoot, { recursive: true });
  const record = (m: Measurement): void => {
    measurements.push(m);
    const who = m.impl === "parzarr" ? `parzarr t=${threadLabel(m.threads!)}` : m.impl;
    const what = m.op === "read" ? MODE_LABEL[m.mode!] : "write";
    log(`  ${who.padEnd(18)} ${what.padEnd(15)} ${m.codec.padEnd(10)} ${m.seconds === null ? (m.note ?? "n/a") : `${fmt(m.seconds)}  (${m.samples.map((s) => s.toFixed(3)).join(", ")})`}`);
  };
  const verify = (who: string, codec: CompareCodec, sum: number): void => {
    if (!sameSum(sum, expected)) mismatches.push(`${who} read different values for ${codec} (checksum ${sum} vs ${expected})`);
  };

  // parzarr: fresh reads, reads into one reused output (shared memory, so workers write into it),
  // writes; per thread setting.
  const out = new Float32Array(new SharedArrayBuffer(bytes));
  for (const t of threads) {
    const options = threadOptions(t);
    for (const spec of COMPARE_CODECS) {
      const path = paths.get(spec.codec)!;
      const arr = await openArray(path, { mode: "r" });
      let last: NDArray | null = null;
      const reads = await timeRuns(repeats, true, async () => {
        last = null;
        last = (await arr.get(null, options)) as NDArray;
      });
      verify(`parzarr t=${threadLabel(t)}`, spec.codec, checksum(last!.data as Float32Array, cols, rows));
      last = null;
      record({ impl: "parzarr", threads: t, codec: spec.codec, op: "read", mode: "fresh", seconds: median(reads), samples: reads });
      out.fill(0);
      const intoOut = await timeRuns(repeats, true, async () => {
        await arr.get(null, { ...options, out });
      });
      verify(`parzarr t=${threadLabel(t)} out`, spec.codec, checksum(out, cols, rows));
      record({ impl: "parzarr", threads: t, codec: spec.codec, op: "read", mode: "out", seconds: median(intoOut), samples: intoOut });
      const target = join(writeRoot, `parzarr-${spec.codec}.zarr`);
      const input = getData();
      const writes = await timeRuns(
        repeats,
        false,
        async () => {
          const a = await createArray(target, { shape: [rows, cols], chunks: [chunk, chunk], dtype: "<f4", fillValue: 0, zarrFormat: 2, compressor: spec.compressor, overwrite: true });
          await a.set(null, { data: input, shape: [rows, cols] }, options);
        },
        () => rmSync(target, { recursive: true, force: true }),
      );
      rmSync(target, { recursive: true, force: true });
      record({ impl: "parzarr", threads: t, codec: spec.codec, op: "write", seconds: median(writes), samples: writes });
    }
  }

  // zarrita.js
  const z = await loadZarrita();
  if (typeof z === "string") {
    skipped.push(z);
    log(z);
  } else {
    const { zarrita, Store } = z;
    for (const spec of COMPARE_CODECS) {
      const arr = await zarrita.open(zarrita.root(new Store(paths.get(spec.codec)!)), { kind: "array" });
      let sum = 0;
      const reads = await timeRuns(repeats, true, async () => {
        const r = await zarrita.get(arr);
        sum = checksum(r.data, cols, rows);
      });
      verify("zarrita.js", spec.codec, sum);
      record({ impl: "zarrita", codec: spec.codec, op: "read", mode: "fresh", seconds: median(reads), samples: reads });
      record({ impl: "zarrita", codec: spec.codec, op: "read", mode: "out", seconds: null, samples: [], note: "no out" });
      if (spec.zarritaCodecs === null) {
        record({ impl: "zarrita", codec: spec.codec, op: "write", seconds: null, samples: [], note: "cannot encode" });
        continue;
      }
      const target = join(writeRoot, `zarrita-${spec.codec}.zarr`);
      const input = getData();
      const codecs = spec.zarritaCodecs;
      const writes = await timeRuns(
        repeats,
        false,
        async () => {
          mkdirSync(target, { recursive: true });
          const a = await zarrita.create(zarrita.root(new Store(target)), { shape: [rows, cols], chunkShape: [chunk, chunk], dtype: "float32", codecs, fillValue: 0 });
          await zarrita.set(a, null, { data: input, shape: [rows, cols], stride: [cols, 1] });
        },
        () => rmSync(target, { recursive: true, force: true }),
      );
      rmSync(target, { recursive: true, force: true });
      record({ impl: "zarrita", codec: spec.codec, op: "write", seconds: median(writes), samples: writes, note: "v3 (zarrita writes v3 only)" });
    }
  }

  // Fresh reads with huge pages, parzarr (default threads) and zarrita.js, in a child process.
  log("  huge pages: running a child with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ...");
  try {
    const hp = await measureHugePageReads(COMPARE_CODECS.map((s) => ({ codec: s.codec, path: paths.get(s.codec)! })), repeats, rows, cols);
    if (typeof hp === "string") {
      skipped.push(hp);
      log(hp);
    } else {
      skipped.push(...hp.skipped.map((s) => `huge pages child: ${s}`));
      for (const r of hp.results) {
        verify("parzarr (huge pages)", r.codec, r.parzarrSum);
        record({ impl: "parzarr", threads: "default", codec: r.codec, op: "read", mode: "hugepages", seconds: median(r.parzarr), samples: r.parzarr });
        if (r.zarrita !== null) {
          verify("zarrita.js (huge pages)", r.codec, r.zarritaSum!);
          record({ impl: "zarrita", codec: r.codec, op: "read", mode: "hugepages", seconds: median(r.zarrita), samples: r.zarrita });
        }
      }
    }
  } catch (err) {
    const msg = `huge pages: ${err instanceof Error ? err.message : String(err)}`;
    skipped.push(msg);
    log(msg);
  }

  // zarr-python 2
  const why = pythonSkipReason();
  if (why !== null) {
    skipped.push(why);
    log(why);
  } else {
    log("  zarr-python: running ...");
    try {
      const py = await runPythonBench(
        COMPARE_CODECS.map((s) => ({ codec: s.codec, path: paths.get(s.codec)!, writePath: join(writeRoot, `python-${s.codec}.zarr`) })),
        repeats,
      );
      for (const r of py.results) {
        verify("zarr-python", r.codec, r.checksum);
        if (!r.outSame) mismatches.push(`zarr-python's out= read differs from its z[:] for ${r.codec}`);
        record({ impl: "zarr-python", codec: r.codec, op: "read", mode: "fresh", seconds: median(r.read), samples: r.read });
        record({ impl: "zarr-python", codec: r.codec, op: "read", mode: "out", seconds: median(r.readOut), samples: r.readOut });
        record({ impl: "zarr-python", codec: r.codec, op: "write", seconds: median(r.write), samples: r.write });
      }
      log(`  (zarr ${py.zarr}, numcodecs ${py.numcodecs})`);
    } catch (err) {
      const msg = `zarr-python: ${err instanceof Error ? err.message : String(err)}`;
      skipped.push(msg);
      log(msg);
    }
  }

  // Peak memory of a whole read, in a fresh process.
  const memory: MemoryCheck[] = [];
  data = null;
  for (const t of [0, "default"] as ThreadSetting[]) {
    if (!threads.includes(t)) continue;
    try {
      const m = await measurePeakMemory(paths.get("blosc-lz4")!, t);
      const delta = Math.max(0, m.peakRss - m.rssBefore);
      memory.push({
        codec: "blosc-lz4",
        threads: t,
        outputBytes: m.outputBytes,
        peakRssDelta: delta,
        peakArrayBuffersDelta: Math.max(0, m.peakArrayBuffers - m.arrayBuffersBefore),
        ratio: delta / m.outputBytes,
      });
    } catch (err) {
      skipped.push(`peak memory (threads ${threadLabel(t)}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  // The ETL: parzarr cp against zarr-python, whole processes, alternately.
  let etl: EtlResult | null = null;
  if (why !== null) skipped.push(`etl: ${why}`);
  else {
    log("  etl: parzarr cp and zarr-python z2[:] = z1, alternately ...");
    try {
      etl = await runEtl({ source: paths.get("blosc-lz4")!, sourceChunk: chunk, workDir: writeRoot, repeats, python: PYTHON, log });
    } catch (err) {
      skipped.push(`etl: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  // v3 uint16 cubes, plain and sharded, against zarrita.js.
  let volumes: VolumeResult[] = [];
  try {
    volumes = await runVolumes({ dir, edge: opts.volumeEdge ?? 512, repeats, log });
    for (const v of volumes) if (v.note) skipped.push(`volume ${v.layout}: ${v.note}`);
  } catch (err) {
    skipped.push(`volumes: ${err instanceof Error ? err.message : String(err)}`);
  }

  const targets = [...checkTargets(measurements, threads), ...checkEtlAndVolumes(etl, volumes)];
  const result: CompareResult = { config, measurements, targets, memory, etl, volumes, skipped, checksumMismatches: mismatches };
  log("");
  for (const line of formatCompare(result)) log(line);
  return result;
}
