/**
 * `parzarr cp` after it was killed: the temporary files a killed copy leaves in its destination (a
 * zip archive's `.X.zip.<pid>.<hex>.tmp`, a folder's chunk temporaries) are removed by the next
 * run, which finishes with the source's values. The copies run as child processes, killed for real.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createArray, openArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;
const MAIN = join(ROOT, "src/cli/main.ts");
/** Temporary files as FileSystemStore and ZipStore name them: `.<name>.<pid>.<hex>.tmp`. */
const TEMP = /^\..+\.\d+\.[0-9a-f]+\.tmp~?$/;
const SIDE = 1024;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  pid: number;
}

/** Runs the CLI; `whenRunning` may kill it once it has started (it gets the child). */
function cli(args: string[], env: Record<string, string> = {}, whenRunning?: (child: ReturnType<typeof spawn>) => void): Promise<Exit> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  whenRunning?.(child);
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr, pid: child.pid! })));
}

/** Every temporary file under `dir`, as paths relative to it. */
function temps(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => TEMP.test(p.split("/").pop()!));
}

async function source(dir: string): Promise<{ src: string; data: Float32Array }> {
  const src = join(dir, "src.zarr");
  // 4 MiB: several slabs under a 1 MiB budget.
  const a = await createArray(src, { shape: [SIDE, SIDE], chunks: [64, 64], dtype: "float32", zarrFormat: 3 });
  const data = Float32Array.from({ length: SIDE * SIDE }, (_, i) => Math.sin(i / 97) * 1000);
  await a.set(null, { data, shape: [SIDE, SIDE] });
  return { src, data };
}

async function assertCopied(dst: string, data: Float32Array): Promise<void> {
  const got = await (await openArray(dst, { mode: "r" })).get(null);
  assert.deepEqual(got.shape, [SIDE, SIDE]);
  assert.deepEqual(got.data, data);
}

test("a cp into a zip killed mid-copy leaves a .tmp that the next run removes", async () => {
  const dir = scratchDir();
  const { src, data } = await source(dir);
  const dst = join(dir, "out.zip");
  const args = ["cp", src, dst, "--chunks", "32,32", "--codec", "gzip:1", "--memory", String(2 ** 20), "-q"];
  const killed = await cli(args, { PARZARR_CP_CRASH_AFTER_SLABS: "1" });
  assert.equal(killed.signal, "SIGKILL", `the hook should have killed the copy: ${killed.stderr}`);
  const left = readdirSync(dir).filter((n) => n.startsWith(".out.zip.") && TEMP.test(n));
  assert.equal(left.length, 1, `the killed copy's archive in progress: ${readdirSync(dir).join(", ")}`);
  assert.ok(!existsSync(dst), "a killed copy never puts a half archive in place");

  const again = await cli(args);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(readdirSync(dir).filter((n) => TEMP.test(n)), [], "no temporary file is left beside the archive");
  await assertCopied(`${dst}`, data);
});

test("cp --resume after a SIGINT removes the chunk temporaries the interrupted copy left", async () => {
  const dir = scratchDir();
  const { src, data } = await source(dir);
  const dst = join(dir, "out.zarr");
  const journal = join(dst, ".parzarr-cp-journal.json");
  const args = ["cp", src, dst, "--chunks", "32,32", "--codec", "gzip:1", "--format", "2", "--memory", String(2 ** 20), "-q"];
  // Interrupted once the journal records a finished slab, while later ones are being written.
  const interrupted = await cli(args, {}, (child) => {
    const poll = setInterval(() => {
      const done = existsSync(journal) && /"done":\[\[/.test(readFileSync(journal, "utf8"));
      if (done || child.exitCode !== null) {
        clearInterval(poll);
        child.kill("SIGINT");
      }
    }, 5);
  });
  assert.equal(interrupted.signal, "SIGINT", `the copy should have been interrupted: ${interrupted.stderr}`);
  assert.ok(existsSync(journal), "the interrupted copy left its journal");
  // A write interrupted between its temporary file and the rename leaves that file behind; the
  // interrupt may fall between writes, so one such file of the dead copy is made sure of here.
  if (temps(dst).length === 0) writeFileSync(join(dst, `.0.0.${interrupted.pid}.1f.tmp`), "partial chunk");
  assert.ok(temps(dst).length > 0);

  const resumed = await cli([...args, "--resume"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(temps(dst), [], "no temporary file is left in the destination");
  assert.ok(!existsSync(journal), "the journal is removed at the end");
  await assertCopied(dst, data);
});
