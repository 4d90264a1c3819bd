/**
 * The multi-core ETL row of issue 12: `parzarr cp` of the blosc-lz4 benchmark array (v2) into v3
 * zstd:3 with chunks half the source's edge and `--memory 256MiB`, against zarr-python 2's
 * `z2[:] = z1` into the same chunks and codec (a v2 array: zarr-python 2 writes v3 only behind an
 * experimental flag). Both run as whole processes, alternately, under a small Python parent that
 * reports each run's wall time and its peak RSS (getrusage of the children: the largest
 * process, so parzarr's huge-page re-run counts, not its short-lived parent).
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, runJsonChild } from "./measure.js";

/** The budget `cp` gets; the target is a peak RSS within it plus 200 MiB. */
export const ETL_MEMORY = 256 * 2 ** 20;
export const ETL_RSS_ALLOWANCE = 200 * 2 ** 20;

export interface EtlRun {
  seconds: number;
  /** Peak resident memory of the largest process of the run, bytes. */
  peakRss: number;
}

export interface EtlResult {
  /** Destination chunk edge. */
  chunk: number;
  parzarr: EtlRun[];
  zarrPython: EtlRun[];
}

/** Runs `argv` as a child of a Python parent; its wall time and the children's peak RSS. */
const RUSAGE = String.raw`
import json, resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
dt = time.perf_counter() - t
if r.returncode != 0:
    sys.stderr.write(r.stderr.decode(errors="replace")[-2000:])
    sys.exit(r.returncode)
print(json.dumps({"seconds": dt, "peakRss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
`;

const ZARR_PYTHON_ETL = String.raw`
import sys, zarr, numcodecs
z1 = zarr.open_array(sys.argv[1], mode="r")
c = int(sys.argv[3])
z2 = zarr.open_array(sys.argv[2], mode="w", shape=z1.shape, chunks=(c, c), dtype=z1.dtype,
                     compressor=numcodecs.Zstd(level=3), fill_value=z1.fill_value)
z2[:] = z1
`;

function measured(python: string, argv: string[]): Promise<EtlRun> {
  return runJsonChild<EtlRun>(`${argv.slice(0, 3).join(" ")} ...`, python, ["-c", RUSAGE, ...argv]);
}

/** The newest modification time of the files below `dir`. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * The parzarr command to time, as a user runs it: the compiled CLI (`npm run build`) when this
 * benchmark runs from the TypeScript sources and a build newer than every source exists, since
 * under tsx each worker thread compiles the sources again (seconds of CPU that no installed
 * parzarr pays); else the CLI beside this module, with the same runtime and loader flags.
 */
export function parzarrCommand(): { argv: string[]; what: string } {
  const here = fileURLToPath(import.meta.url);
  const root = join(dirname(here), "..", "..");
  if (here.endsWith(".ts")) {
    const built = join(root, "dist", "src", "cli", "main.js");
    try {
      const builtAt = statSync(built).mtimeMs;
      if (builtAt > newestMtime(join(root, "src")) && builtAt > newestMtime(join(root, "workers"))) {
        return { argv: [process.execPath, built], what: "the compiled CLI (dist/)" };
      }
    } catch {
      // No build: the sources through tsx, below.
    }
    return { argv: [process.execPath, ...process.execArgv, join(root, "src", "cli", "main.ts")], what: "the TypeScript CLI through tsx (run `npm run build` first to time the compiled one)" };
  }
  return { argv: [process.execPath, ...process.execArgv, join(root, "src", "cli", "main.js")], what: "the compiled CLI" };
}

export async function runEtl(opts: { source: string; sourceChunk: number; workDir: string; repeats: number; python: string; log: (s: string) => void }): Promise<EtlResult> {
  const chunk = Math.max(1, opts.sourceChunk >> 1);
  const result: EtlResult = { chunk, parzarr: [], zarrPython: [] };
  const ours = join(opts.workDir, "etl-parzarr.zarr");
  const theirs = join(opts.workDir, "etl-zarr-python.zarr");
  const command = parzarrCommand();
  opts.log(`  etl: timing ${command.what}`);
  const cp = [...command.argv, "cp", opts.source, ours, "--chunks", `${chunk},${chunk}`, "--codec", "zstd:3", "--format", "3", "--memory", "256MiB", "--overwrite", "-q"];
  try {
    // Alternately, so that a burst of load elsewhere on the machine hits both about equally.
    for (let i = 0; i < opts.repeats; i++) {
      rmSync(ours, { recursive: true, force: true });
      result.parzarr.push(await measured(opts.python, cp));
      rmSync(theirs, { recursive: true, force: true });
      result.zarrPython.push(await measured(opts.python, [opts.python, "-c", ZARR_PYTHON_ETL, opts.source, theirs, String(chunk)]));
      const last = (runs: EtlRun[]) => `${runs[runs.length - 1].seconds.toFixed(2)} s, ${(runs[runs.length - 1].peakRss / 2 ** 20).toFixed(0)} MiB`;
      opts.log(`  etl run ${i + 1}: parzarr cp ${last(result.parzarr)}; zarr-python ${last(result.zarrPython)}`);
    }
  } finally {
    rmSync(ours, { recursive: true, force: true });
    rmSync(theirs, { recursive: true, force: true });
  }
  return result;
}

/** Median seconds and the largest peak RSS of a set of runs. */
export function summarize(runs: EtlRun[]): { seconds: number; peakRss: number } {
  return { seconds: median(runs.map((r) => r.seconds)), peakRss: Math.max(...runs.map((r) => r.peakRss)) };
}
