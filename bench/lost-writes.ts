/**
 * Lost writes: the race workload of test/concurrency.test.ts (4 processes, each with several
 * chunk-unaligned writes in flight, on one v2 FileSystemStore array, several rounds), run by
 * parzarr with and without its locks and by zarr-python 2 with and without its
 * ProcessSynchronizer. After each round every element is checked; the table gives the elements
 * lost (summed over rounds) and the writers' time (the slowest writer of each round, summed,
 * process start-up left out).
 *
 *   npx tsx bench/lost-writes.ts [rounds] [only rows whose name contains this]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray, openArray, type NDArray } from "../src/index.js";
import { countLost, raceShape, type RaceWorkload } from "../test/helpers/race-workload.js";
import { PYTHON, zarrPythonSkip } from "../test/helpers/peers.js";

const ROUNDS = Number(process.argv[2] ?? 5);
const W: RaceWorkload = { writers: 4, perWriter: 8, stripe: 5, rows: 64, chunks: [16, 32] };
const NODE_WRITER = new URL("../test/helpers/race-writer.ts", import.meta.url).pathname;
const PY_WRITER = new URL("./lost_writes_writer.py", import.meta.url).pathname;

interface Variant {
  name: string;
  /** Command and args for writer i in a round. */
  argv: (root: string, lockDir: string, writer: number, round: number) => string[];
}

const node = (extra: string[], locks: boolean): Variant["argv"] => (root, lockDir, i, round) => [
  process.execPath,
  "--import",
  "tsx",
  NODE_WRITER,
  root,
  locks ? lockDir : "-",
  String(i),
  String(round),
  "0",
  JSON.stringify(W),
  ...extra,
];
const python = (locks: boolean, threads: number): Variant["argv"] => (root, lockDir, i, round) => [
  PYTHON,
  PY_WRITER,
  root,
  locks ? lockDir : "-",
  String(i),
  String(round),
  String(threads),
  JSON.stringify(W),
];

const variants: Variant[] = [
  { name: "parzarr, no locks at all", argv: node(["--no-table"], false) },
  { name: "parzarr, in-process lock table only", argv: node([], false) },
  { name: "parzarr + ProcessSynchronizer", argv: node([], true) },
];
const skipPython = zarrPythonSkip();
if (!skipPython) {
  variants.push(
    { name: `zarr-python 2, no synchronizer (${W.perWriter} threads)`, argv: python(false, W.perWriter) },
    { name: `zarr-python 2 + ProcessSynchronizer (${W.perWriter} threads)`, argv: python(true, W.perWriter) },
    { name: "zarr-python 2 + ProcessSynchronizer (1 write at a time)", argv: python(true, 1) },
  );
}

const only = process.argv[3];
if (only) variants.splice(0, variants.length, ...variants.filter((v) => v.name.includes(only)));

function run(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${argv.slice(0, 4).join(" ")} exited with ${code}: ${err}`));
      const last = out.trim().split("\n").at(-1) ?? "";
      resolve((JSON.parse(last) as { ms: number }).ms);
    });
  });
}

const tmp = mkdtempSync(join(tmpdir(), "parzarr-lost-"));
const total = raceShape(W).reduce((a, b) => a * b, 1) * ROUNDS;
const rows: string[] = [];
try {
  for (const v of variants) {
    const root = join(tmp, `a-${rows.length}`);
    const lockDir = join(tmp, `locks-${rows.length}`);
    await createArray(root, { shape: raceShape(W), chunks: W.chunks, dtype: "int32", fillValue: 0, zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
    let lost = 0;
    let ms = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const times = await Promise.all(Array.from({ length: W.writers }, (_, i) => run(v.argv(root, lockDir, i, round))));
      ms += Math.max(...times);
      const got = (await (await openArray(root, { mode: "r" })).get()) as NDArray;
      lost += countLost(W, round, got.data as Int32Array);
    }
    const pct = ((100 * lost) / total).toFixed(1);
    rows.push(`| ${v.name} | ${lost} (${pct}%) | ${(ms / 1000).toFixed(2)} s |`);
    console.error(rows.at(-1));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const [r, c] = raceShape(W);
console.log(
  `\n${W.writers} processes x ${W.perWriter} writes in flight, ${W.stripe}-column stripes of a ${r} x ${c} int32 v2 array ` +
    `(chunks ${W.chunks.join(" x ")}, zlib), ${ROUNDS} rounds, ${total} elements checked\n`,
);
console.log("| writers | elements lost | write time |");
console.log("| --- | --- | --- |");
for (const row of rows) console.log(row);
if (skipPython) console.log(`\nzarr-python rows skipped: ${skipPython}`);
