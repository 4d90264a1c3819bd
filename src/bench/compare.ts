/**
 * The whole-array comparison of issue 3: parzarr (threads 0, 1, 2 and the default pool) against
 * zarrita.js and zarr-python 2 on float32 random walks along rows, Zarr v2, one array per codec
 * (blosc lz4 clevel 5 shuffle, blosc zstd clevel 3 shuffle, zlib level 1, raw). Arrays are written
 * once under `dir` and reused; every timing is warm (reads get one untimed warm-up) and the median
 * of `repeats`. Used by `npm run bench:compare` and `parzarr bench`.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createArray, openArray } from "../hierarchy/open.js";
import type { NDArray } from "../indexing/ndarray.js";
import type { JsonObject } from "../metadata/json.js";
import type { OperationOptions } from "../parallel/options.js";
import { fillRandomWalks } from "./data.js";
import type { PeakMemoryReport } from "./peak-memory.js";
import { ZARR_PYTHON_BENCH } from "./zarr-python-script.js";

export type CompareCodec = "blosc-lz4" | "blosc-zstd" | "zlib" | "raw";
export type ThreadSetting = number | "default";
export type Implementation = "parzarr" | "zarrita" | "zarr-python";

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
  log?: (line: string) => void;
}

export interface Measurement {
  impl: Implementation;
  /** parzarr only. */
  threads?: ThreadSetting;
  codec: CompareCodec;
  op: "read" | "write";
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
  config: { dir: string; rows: number; cols: number; chunk: number; repeats: number; threads: ThreadSetting[]; cores: number };
  measurements: Measurement[];
  targets: TargetCheck[];
  memory: MemoryCheck[];
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
const PYTHON = process.env.PARZARR_PYTHON ?? "/usr/bin/python3";

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const now = (): number => performance.now() / 1000;

/** The sum of every 97th row's every 89th value, in float64: a cheap "same data?" check. */
function checksum(data: ArrayLike<number>, cols: number, rows: number): number {
  let s = 0;
  for (let r = 0; r < rows; r += 97) for (let c = 0; c < cols; c += 89) s += data[r * cols + c];
  return s;
}

const sameSum = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

function threadOptions(t: ThreadSetting): OperationOptions {
  return t === "default" ? {} : { threads: t };
}

const threadLabel = (t: ThreadSetting): string => (t === "default" ? "default" : String(t));

function makeData(rows: number, cols: number): Float32Array {
  const data = new Float32Array(rows * cols);
  fillRandomWalks(data, rows, cols);
  return data;
}

/** Writes (once) the source arrays; returns the path of each codec's array. */
async function ensureDataset(root: string, rows: number, cols: number, chunk: number, data: () => Float32Array, log: (s: string) => void): Promise<Map<CompareCodec, string>> {
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

async function timeRuns(repeats: number, warmup: boolean, run: () => Promise<void>, before?: () => void): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < repeats + (warmup ? 1 : 0); i++) {
    before?.();
    const t = now();
    await run();
    const dt = now() - t;
    if (!warmup || i > 0) samples.push(dt);
  }
  return samples;
}

interface ZarritaModule {
  open(loc: unknown, opts: { kind: "array" }): Promise<unknown>;
  root(store: unknown): { resolve(path: string): unknown };
  get(arr: unknown): Promise<{ data: ArrayLike<number>; shape: number[]; stride: number[] }>;
  set(arr: unknown, sel: null, value: { data: Float32Array; shape: number[]; stride: number[] }): Promise<void>;
  create(loc: unknown, opts: { shape: number[]; chunkShape: number[]; dtype: "float32"; codecs: JsonObject[]; fillValue: number }): Promise<unknown>;
}

async function loadZarrita(): Promise<{ zarrita: ZarritaModule; Store: new (root: string) => unknown } | string> {
  try {
    // Dynamic and by variable name: zarrita is a devDependency, absent from installed packages.
    const zid = "zarrita";
    const sid = "@zarrita/storage/fs";
    const zarrita = (await import(zid)) as ZarritaModule;
    const storage = (await import(sid)) as { default: new (root: string) => unknown };
    return { zarrita, Store: storage.default };
  } catch (err) {
    return `zarrita.js is not installed (${err instanceof Error ? err.message.split("\n")[0] : String(err)}): skipped`;
  }
}

interface PythonResult {
  zarr: string;
  numcodecs: string;
  blosc_threads: number | null;
  results: { codec: CompareCodec; read: number[]; write: number[]; checksum: number }[];
}

function pythonSkipReason(): string | null {
  const r = spawnSync(PYTHON, ["-c", "import zarr, numcodecs, numpy; assert zarr.__version__.startswith('2'), zarr.__version__"], { encoding: "utf8" });
  if (r.error) return `zarr-python: ${PYTHON} cannot be run (${r.error.message}): skipped`;
  if (r.status !== 0) return `zarr-python 2 is not importable by ${PYTHON} (apt-get install python3-zarr): skipped`;
  return null;
}

/** Runs a child process and parses the JSON on its last line of output; fails with its last stderr lines. */
function runJsonChild<T>(what: string, command: string, args: string[]): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${what} failed (exit ${code}): ${err.trim().split("\n").slice(-3).join(" | ")}`));
      else resolvePromise(JSON.parse(out.trim().split("\n").pop()!) as T);
    });
  });
}

function runPythonBench(cases: { codec: CompareCodec; path: string; writePath: string }[], repeats: number): Promise<PythonResult> {
  return runJsonChild("zarr-python benchmark", PYTHON, ["-c", ZARR_PYTHON_BENCH, JSON.stringify({ cases, repeats })]);
}

/** Runs the peak-memory child (same runtime, same loader flags) for one whole read. */
function measurePeakMemory(path: string, threads: ThreadSetting): Promise<PeakMemoryReport> {
  const here = fileURLToPath(import.meta.url);
  const script = join(dirname(here), `peak-memory${here.endsWith(".ts") ? ".ts" : ".js"}`);
  return runJsonChild("peak-memory child", process.execPath, [...process.execArgv, "--expose-gc", script, path, threadLabel(threads)]);
}

/** The issue's targets, computed from the measurements (parzarr at its default thread setting). */
function checkTargets(ms: Measurement[], threads: ThreadSetting[]): TargetCheck[] {
  const best: ThreadSetting = threads.includes("default") ? "default" : threads[threads.length - 1];
  const t = (impl: Implementation, codec: CompareCodec, op: "read" | "write", th?: ThreadSetting): number | null =>
    ms.find((m) => m.impl === impl && m.codec === codec && m.op === op && (impl !== "parzarr" || m.threads === (th ?? best)))?.seconds ?? null;
  const ratio = (other: number | null, ours: number | null): number | null => (other !== null && ours !== null && ours > 0 ? other / ours : null);
  const check = (name: string, r: number | null, target: number): TargetCheck => ({ name, ratio: r, target, met: r === null ? null : r >= target });
  const pz = (codec: CompareCodec, op: "read" | "write") => t("parzarr", codec, op);
  return [
    check("read blosc-lz4 vs zarr-python", ratio(t("zarr-python", "blosc-lz4", "read"), pz("blosc-lz4", "read")), 1),
    check("read raw vs zarr-python", ratio(t("zarr-python", "raw", "read"), pz("raw", "read")), 1),
    check("read blosc-zstd vs zarr-python", ratio(t("zarr-python", "blosc-zstd", "read"), pz("blosc-zstd", "read")), 0.7),
    check("read zlib vs zarr-python", ratio(t("zarr-python", "zlib", "read"), pz("zlib", "read")), 3),
    check("read blosc-lz4 vs zarrita.js", ratio(t("zarrita", "blosc-lz4", "read"), pz("blosc-lz4", "read")), 5),
    check("write blosc-lz4 vs zarr-python", ratio(t("zarr-python", "blosc-lz4", "write"), pz("blosc-lz4", "write")), 0.8),
    check("write zlib vs zarr-python", ratio(t("zarr-python", "zlib", "write"), pz("zlib", "write")), 3),
    check("read blosc-lz4, 2 threads vs 1", ratio(t("parzarr", "blosc-lz4", "read", 1), t("parzarr", "blosc-lz4", "read", 2)), 1.7),
    check("read zlib, 2 threads vs 1", ratio(t("parzarr", "zlib", "read", 1), t("parzarr", "zlib", "read", 2)), 1.7),
  ];
}

const fmt = (s: number | null): string => (s === null ? "-" : `${s.toFixed(3)} s`);

/** The result as the table the issue uses: one row per codec and operation, one column per runner. */
export function formatCompare(r: CompareResult): string[] {
  const cols: { label: string; impl: Implementation; threads?: ThreadSetting }[] = [
    ...r.config.threads.map((t) => ({ label: `parzarr t=${threadLabel(t)}`, impl: "parzarr" as const, threads: t })),
    { label: "zarrita.js", impl: "zarrita" },
    { label: "zarr-python", impl: "zarr-python" },
  ];
  const lines: string[] = [];
  const head = ["", ...cols.map((c) => c.label)];
  const rows: string[][] = [];
  for (const op of ["read", "write"] as const) {
    for (const spec of COMPARE_CODECS) {
      const cells = cols.map((c) => {
        const m = r.measurements.find((x) => x.impl === c.impl && x.codec === spec.codec && x.op === op && (c.impl !== "parzarr" || x.threads === c.threads));
        if (!m) return "skipped";
        return m.seconds === null ? (m.note ?? "n/a") : fmt(m.seconds);
      });
      rows.push([`${op} ${spec.codec}`, ...cells]);
    }
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  lines.push(line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line));
  lines.push("", "Targets (ratio = other's time / parzarr's; parzarr at its default thread setting):");
  for (const t of r.targets) {
    const state = t.met === null ? "not measured" : t.met ? "met" : `missed (${((t.ratio! / t.target) * 100).toFixed(0)}% of target)`;
    lines.push(`  ${t.name.padEnd(34)} ${t.ratio === null ? "-" : `${t.ratio.toFixed(2)}x`}  (target >= ${t.target}x)  ${state}`);
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
  const threads = opts.threads ?? [0, 1, 2, "default"];
  const dir = resolve(opts.dir ?? ".bench-data");
  const { availableParallelism } = await import("node:os");
  const config = { dir, rows, cols, chunk, repeats, threads, cores: availableParallelism() };
  const measurements: Measurement[] = [];
  const skipped: string[] = [];
  const mismatches: string[] = [];
  const bytes = rows * cols * 4;
  log(`dataset: ${rows} x ${cols} float32 random walks along rows, chunks ${chunk} x ${chunk}, Zarr v2 (${(bytes / 2 ** 20).toFixed(0)} MiB); ${config.cores} cores; median of ${repeats}, warm`);

  let data: Float32Array | null = null;
  const getData = (): Float32Array => (data ??= makeData(rows, cols));
  const paths = await ensureDataset(dir, rows, cols, chunk, getData, log);
  const expected = checksum(getData(), cols, rows);
  const writeRoot = join(dir, "writes");
  mkdirSync(writeRoot, { recursive: true });
  const record = (m: Measurement): void => {
    measurements.push(m);
    const who = m.impl === "parzarr" ? `parzarr t=${threadLabel(m.threads!)}` : m.impl;
    log(`  ${who.padEnd(18)} ${m.op.padEnd(5)} ${m.codec.padEnd(10)} ${m.seconds === null ? (m.note ?? "n/a") : `${fmt(m.seconds)}  (${m.samples.map((s) => s.toFixed(3)).join(", ")})`}`);
  };
  const verify = (who: string, codec: CompareCodec, sum: number): void => {
    if (!sameSum(sum, expected)) mismatches.push(`${who} read different values for ${codec} (checksum ${sum} vs ${expected})`);
  };

  // parzarr
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
      record({ impl: "parzarr", threads: t, codec: spec.codec, op: "read", seconds: median(reads), samples: reads });
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
      record({ impl: "zarrita", codec: spec.codec, op: "read", seconds: median(reads), samples: reads });
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
        record({ impl: "zarr-python", codec: r.codec, op: "read", seconds: median(r.read), samples: r.read });
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

  const result: CompareResult = { config, measurements, targets: checkTargets(measurements, threads), memory, skipped, checksumMismatches: mismatches };
  log("");
  for (const line of formatCompare(result)) log(line);
  return result;
}
