/**
 * Many tiny chunks: a side x side read of a [20000, 20000] uint8 Zarr v2 array with [1, 1] chunks
 * (no compressor), parzarr against zarr-python 2 on the same files. Each reader runs as its own
 * process and reports its read time, its peak RSS (VmHWM, reset before the read where Linux
 * allows) and a checksum of what it read, so both are seen to read the same bytes.
 *
 * Two reads: the region that was written (side^2 chunk files, each read) and a region of the
 * same size with no chunk stored (side^2 missing keys, each a failed open, read as fill).
 *
 *   npx tsx bench/tiny-chunks.ts [--side 1000] [--dir .bench-data/tiny] [--regions stored,missing]
 *
 * `--regions missing` needs no chunk written (the array's metadata only), for large sides.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createArray, slice } from "../src/index.js";

const { values } = parseArgs({
  options: {
    side: { type: "string", default: "1000" },
    dir: { type: "string", default: ".bench-data/tiny" },
    child: { type: "string" },
    regions: { type: "string", default: "stored,missing" },
  },
});
const SIDE = Number(values.side);
const ROOT = resolve(new URL("..", import.meta.url).pathname);
const ARRAY = join(resolve(values.dir!), `a-${SIDE}.zarr`);
const SHAPE = 20000;

interface ReadReport {
  seconds: number;
  /** RSS just before the read, and the high-water mark during it (both MiB). */
  rssBeforeMiB: number | null;
  peakRssMiB: number | null;
  checksum: number;
}

async function parzarrChild(region: string): Promise<void> {
  const { openArray } = await import("../src/index.js");
  const { readFileSync, writeFileSync } = await import("node:fs");
  const a = await openArray(ARRAY, { mode: "r" });
  const start = region === "stored" ? 0 : SIDE;
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // not Linux: the peak includes start-up
  }
  const before = /VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  const t = performance.now();
  const got = (await a.get([slice(start, start + SIDE), slice(start, start + SIDE)])) as { data: Uint8Array };
  const seconds = (performance.now() - t) / 1000;
  const status = readFileSync("/proc/self/status", "utf8");
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  let checksum = 0;
  for (let i = 0; i < got.data.length; i++) checksum = (checksum + got.data[i] * ((i % 65521) + 1)) % 2147483647;
  const report: ReadReport = {
    seconds,
    rssBeforeMiB: before ? Number(before[1]) / 1024 : null,
    peakRssMiB: m ? Number(m[1]) / 1024 : null,
    checksum,
  };
  console.log(JSON.stringify(report));
}

const PY_READ = String.raw`
import json, sys, time, resource
import numpy as np, zarr
path, side, region = sys.argv[1], int(sys.argv[2]), sys.argv[3]
z = zarr.open(path, mode="r")
s = 0 if region == "stored" else side
try:
    open("/proc/self/clear_refs", "w").write("5")
except Exception:
    pass
before = None
for line in open("/proc/self/status"):
    if line.startswith("VmRSS:"):
        before = int(line.split()[1]) / 1024
t = time.perf_counter()
d = z[s:s + side, s:s + side]
dt = time.perf_counter() - t
hwm = None
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        hwm = int(line.split()[1]) / 1024
flat = d.reshape(-1).astype(np.int64)
w = (np.arange(flat.size, dtype=np.int64) % 65521) + 1
checksum = 0
for a, b in zip(np.array_split(flat, 64), np.array_split(w, 64)):
    checksum = (checksum + int((a * b).sum() % 2147483647)) % 2147483647
print(json.dumps({"seconds": dt, "rssBeforeMiB": before, "peakRssMiB": hwm, "checksum": checksum, "zarr": zarr.__version__}))
`;

function run(cmd: string, args: string[]): ReadReport & { zarr?: string } {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

async function main(): Promise<void> {
  if (values.child) return parzarrChild(values.child);
  const regions = values.regions!.split(",");
  if (!regions.includes("stored")) {
    if (!existsSync(join(ARRAY, ".zarray"))) {
      await createArray(ARRAY, { shape: [SHAPE, SHAPE], chunks: [1, 1], dtype: "uint8", zarrFormat: 2, compressor: null, fillValue: 0 });
    }
  } else if (!existsSync(join(ARRAY, "0.0"))) {
    const t = performance.now();
    const a = await createArray(ARRAY, { shape: [SHAPE, SHAPE], chunks: [1, 1], dtype: "uint8", zarrFormat: 2, compressor: null, fillValue: 0, overwrite: true });
    const value = new Uint8Array(SIDE * SIDE);
    for (let i = 0; i < SIDE; i++) for (let j = 0; j < SIDE; j++) value[i * SIDE + j] = (i * 7 + j) % 251;
    await a.set([slice(0, SIDE), slice(0, SIDE)], value);
    console.log(`wrote ${SIDE * SIDE} chunk files in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  console.log(`read ${SIDE} x ${SIDE} of [${SHAPE}, ${SHAPE}] uint8, chunks [1, 1], v2, no compressor (${ARRAY})`);
  for (const region of regions) {
    const p = run(process.execPath, ["--import", "tsx", "bench/tiny-chunks.ts", "--side", String(SIDE), "--dir", values.dir!, "--child", region]);
    const z = run("/usr/bin/python3", ["-c", PY_READ, ARRAY, String(SIDE), region]);
    const same = p.checksum === z.checksum ? "same bytes" : `CHECKSUMS DIFFER (${p.checksum} vs ${z.checksum})`;
    const mem = (r: ReadReport): string =>
      r.peakRssMiB === null || r.rssBeforeMiB === null ? "?" : `peak ${r.peakRssMiB.toFixed(0)} MiB (+${(r.peakRssMiB - r.rssBeforeMiB).toFixed(0)} over the ${r.rssBeforeMiB.toFixed(0)} before)`;
    console.log(
      `${region.padEnd(8)} parzarr ${p.seconds.toFixed(2)} s, ${mem(p)} | ` +
        `zarr-python ${z.zarr} ${z.seconds.toFixed(2)} s, ${mem(z)} | ` +
        `time ratio parzarr/zarr-python ${(p.seconds / z.seconds).toFixed(2)} | ${same}`,
    );
  }
}

await main();
