/**
 * Rechunk + recompress, parzarr's CLI against zarr-python 2 doing the same job.
 *
 * Source: the worker-pool issue's dataset, a float32 random walk along rows, Zarr v2, blosc-lz4
 * (clevel 5, byte shuffle), chunks 1024 x 1024. Job: write it as zstd level 3 in 512 x 512
 * chunks — parzarr as Zarr v3 (`parzarr cp --format 3 --chunks 512,512 --codec zstd:3`),
 * zarr-python 2 as v2 with numcodecs' Zstd(3) (`z2[:] = z1`; it cannot write v3). Same bytes of
 * work: decode every lz4 chunk, encode every zstd chunk.
 *
 * Each side runs as its own process under /usr/bin/time: wall time and peak RSS. The table also
 * shows each process's start-up alone (node + tsx, python + zarr imports), and the copy time each
 * side measured inside itself.
 *
 *   npx tsx bench/rechunk.ts [--size 8192] [--chunks 1024] [--out-chunks 512] [--memory 512MiB]
 *                            [--threads N] [--dir .bench-data/rechunk]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openArray, slice, type NDArray, type TypedArray } from "../src/index.js";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "8192" },
    chunks: { type: "string", default: "1024" },
    "out-chunks": { type: "string", default: "512" },
    memory: { type: "string", default: "512MiB" },
    threads: { type: "string" },
    dir: { type: "string", default: ".bench-data/rechunk" },
  },
});
const N = Number(values.size);
const C = Number(values.chunks);
const OC = Number(values["out-chunks"]);
const ROOT = resolve(new URL("..", import.meta.url).pathname);
const DIR = resolve(values.dir!);
const SRC = join(DIR, `src-${N}-${C}.zarr`);
const PY = "/usr/bin/python3";
const hasPython = spawnSync(PY, ["-c", "import zarr, numcodecs"]).status === 0;
const hasTime = existsSync("/usr/bin/time");

function folderBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, f));
    if (s.isFile()) n += s.size;
  }
  return n;
}

interface Measured {
  wall: number;
  rssMiB: number;
  stdout: string;
}

/** Runs a command under /usr/bin/time: wall seconds and peak resident memory. */
function measure(cmd: string, args: string[]): Measured {
  const t0 = performance.now();
  const full = hasTime ? ["/usr/bin/time", ["-f", "TIME %e %M", cmd, ...args]] as const : [cmd, args] as const;
  const r = spawnSync(full[0], full[1], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
  const m = /TIME ([\d.]+) (\d+)/.exec(r.stderr);
  return { wall, rssMiB: m ? Number(m[2]) / 1024 : NaN, stdout: r.stdout };
}

function generate(): void {
  if (existsSync(join(SRC, ".zarray"))) return;
  mkdirSync(DIR, { recursive: true });
  if (!hasPython) throw new Error("generating the dataset needs zarr-python (/usr/bin/python3)");
  console.log(`generating ${SRC} (${N}x${N} float32, chunks ${C}x${C}, blosc lz4)...`);
  execFileSync(PY, ["-c", `
import numpy as np, zarr, numcodecs, sys
n, c = ${N}, ${C}
z = zarr.open(sys.argv[1], mode="w", shape=(n, n), chunks=(c, c), dtype="<f4",
              compressor=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))
rng = np.random.default_rng(0)
for i in range(0, n, c):
    z[i:i + c] = np.cumsum(rng.standard_normal((min(c, n - i), n), dtype=np.float32), axis=1)
`, SRC]);
}

const PY_COPY = `
import sys, time, zarr, numcodecs
z1 = zarr.open(sys.argv[1], mode="r")
t0 = time.perf_counter()
z2 = zarr.open(sys.argv[2], mode="w", shape=z1.shape, chunks=(int(sys.argv[3]),) * 2, dtype=z1.dtype,
               compressor=numcodecs.Zstd(level=3))
z2[:] = z1
print("COPY", time.perf_counter() - t0)
`;

/** The two outputs hold the same values (parzarr reads both), compared band by band. */
async function sameValues(a: string, b: string): Promise<boolean> {
  const x = await openArray(a, { mode: "r" });
  const y = await openArray(b, { mode: "r" });
  for (let i = 0; i < N; i += C) {
    const sel = [slice(i, Math.min(N, i + C)), null];
    const [p, q] = [(await x.get(sel)) as NDArray<TypedArray>, (await y.get(sel)) as NDArray<TypedArray>];
    const pb = new Uint8Array(p.data.buffer, p.data.byteOffset, p.data.byteLength);
    const qb = new Uint8Array(q.data.buffer, q.data.byteOffset, q.data.byteLength);
    if (Buffer.compare(pb, qb) !== 0) return false;
  }
  return true;
}

generate();
const srcBytes = folderBytes(SRC);
const rows: string[][] = [];
const mib = (n: number) => (n / 2 ** 20).toFixed(1);

// parzarr: the CLI as a user runs it.
const outP = join(DIR, "parzarr-v3.zarr");
rmSync(outP, { recursive: true, force: true });
const nodeStart = measure(process.execPath, ["--import", "tsx", "src/cli/main.ts", "--version"]);
const cpArgs = ["--import", "tsx", "src/cli/main.ts", "cp", SRC, outP, "--format", "3", "--chunks", `${OC},${OC}`,
  "--codec", "zstd:3", "--memory", values.memory!, "--overwrite", "-q"];
if (values.threads !== undefined) cpArgs.push("--threads", values.threads);
const p = measure(process.execPath, cpArgs);
rows.push(["parzarr cp (v3, zstd 3)", p.wall.toFixed(2), (p.wall - nodeStart.wall).toFixed(2), mib(p.rssMiB * 2 ** 20), mib(folderBytes(outP))]);

let pyOk = "zarr-python not installed: skipped";
if (hasPython) {
  const outZ = join(DIR, "zarr-python-v2.zarr");
  rmSync(outZ, { recursive: true, force: true });
  const pyStart = measure(PY, ["-c", "import zarr, numcodecs"]);
  const z = measure(PY, ["-c", PY_COPY, SRC, outZ, String(OC)]);
  const inner = Number(/COPY ([\d.]+)/.exec(z.stdout)?.[1]);
  rows.push(["zarr-python 2.13 `z2[:] = z1` (v2, Zstd 3)", z.wall.toFixed(2), inner.toFixed(2), mib(z.rssMiB * 2 ** 20), mib(folderBytes(outZ))]);
  pyOk = (await sameValues(outP, outZ)) ? "the two outputs hold identical values" : "THE OUTPUTS DIFFER";
  void pyStart;
}

console.log(`\nRechunk ${N}x${N} float32 (${mib(N * N * 4)} MiB; source ${mib(srcBytes)} MiB on disk), ` +
  `v2 blosc-lz4 ${C}^2 -> zstd 3 ${OC}^2, --memory ${values.memory}; ${pyOk}\n`);
console.log("| | wall (s) | without start-up (s) | peak RSS (MiB) | output (MiB) |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
console.log(`\nparzarr's start-up (node + tsx, \`--version\`): ${nodeStart.wall.toFixed(2)} s, ${mib(nodeStart.rssMiB * 2 ** 20)} MiB RSS.`);
