/**
 * The `parzarr` command runs itself once more with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 on glibc
 * Linux (issue 12): when, how the variable is composed, and that the re-run does not loop.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { hugeTlbEnv } from "../src/cli/hugepages.js";

const linux = { platform: "linux", glibc: "2.36" };

test("hugeTlbEnv: glibc >= 2.35 on Linux adds the tunable, keeping the user's other tunables", () => {
  assert.equal(hugeTlbEnv({ ...linux, env: { HOME: "/h" } })?.GLIBC_TUNABLES, "glibc.malloc.hugetlb=1");
  assert.equal(hugeTlbEnv({ ...linux, env: { HOME: "/h" } })?.HOME, "/h");
  assert.equal(
    hugeTlbEnv({ ...linux, env: { GLIBC_TUNABLES: "glibc.malloc.arena_max=2" } })?.GLIBC_TUNABLES,
    "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
  );
  assert.equal(hugeTlbEnv({ platform: "linux", glibc: "3.0", env: {} })?.GLIBC_TUNABLES, "glibc.malloc.hugetlb=1");
});

test("hugeTlbEnv: no re-run on other systems, old glibc, musl, a tunable already set, or PARZARR_HUGETLB=0", () => {
  assert.equal(hugeTlbEnv({ platform: "darwin", glibc: undefined, env: {} }), null);
  assert.equal(hugeTlbEnv({ platform: "linux", glibc: undefined, env: {} }), null);
  assert.equal(hugeTlbEnv({ platform: "linux", glibc: "2.31", env: {} }), null);
  assert.equal(hugeTlbEnv({ ...linux, env: { GLIBC_TUNABLES: "glibc.malloc.hugetlb=0" } }), null);
  assert.equal(hugeTlbEnv({ ...linux, env: { GLIBC_TUNABLES: "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2" } }), null);
  assert.equal(hugeTlbEnv({ ...linux, env: { PARZARR_HUGETLB: "0" } }), null);
});

test("hugeTlbEnv: cp (one reused slab buffer) runs without the re-run; get keeps it", () => {
  assert.equal(hugeTlbEnv({ ...linux, env: {}, command: "cp" }), null);
  assert.equal(hugeTlbEnv({ ...linux, env: {}, command: "get" })?.GLIBC_TUNABLES, "glibc.malloc.hugetlb=1");
});

const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
const reruns = process.platform === "linux" && glibc !== undefined && hugeTlbEnv({ platform: "linux", glibc, env: {} }) !== null;

test("the command runs once more with the tunable, exactly once, and keeps its output and exit code", { skip: reruns ? false : "not glibc >= 2.35 Linux" }, () => {
  const main = join(import.meta.dirname, "..", "src", "cli", "main.ts");
  const { GLIBC_TUNABLES: _drop, ...base } = process.env;
  const run = (args: string[], env: Record<string, string | undefined>) =>
    spawnSync(process.execPath, ["--import", "tsx", main, ...args], { encoding: "utf8", env: { ...base, PARZARR_DEBUG: "1", ...env } });
  // `get` re-runs (it reads arrays into fresh memory); its usage line stands for its output.
  const r = run(["get", "--help"], {});
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: parzarr get /);
  const notes = r.stderr.split("\n").filter((l) => l.includes("running again with GLIBC_TUNABLES=glibc.malloc.hugetlb=1"));
  assert.equal(notes.length, 1, r.stderr);
  // The exit code of the re-run is the command's: a usage error is still 2.
  const bad = run(["get"], {});
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /running again/);
  assert.match(bad.stderr, /parzarr get: .*PATH/);
  for (const env of [{ GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" }, { PARZARR_HUGETLB: "0" }]) {
    const plain = run(["get", "--help"], env);
    assert.equal(plain.status, 0);
    assert.doesNotMatch(plain.stderr, /running again/);
  }
});

test("a signal to the command reaches the re-run, and the command ends by that signal", { skip: reruns ? false : "not glibc >= 2.35 Linux" }, async () => {
  // A server that accepts and never answers: the re-run's `get` waits on it until signalled.
  let requests = 0;
  const server = createServer(() => void requests++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  try {
    const { GLIBC_TUNABLES: _drop, ...base } = process.env;
    const main = join(import.meta.dirname, "..", "src", "cli", "main.ts");
    const child = spawn(process.execPath, ["--import", "tsx", main, "get", `http://127.0.0.1:${port}/a.zarr`], { env: { ...base, PARZARR_DEBUG: "1" } });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
    // Wait until the re-run is waiting on the server, then signal the command (the parent).
    while (requests === 0) {
      assert.equal(child.exitCode, null, `the command ended before its request: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGTERM");
    const end = await ended;
    assert.equal(end.signal, "SIGTERM", `${JSON.stringify(end)} ${stderr}`);
    assert.match(stderr, /running again/);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

/** The pids whose parent is `ppid`, from /proc (Linux, as the re-run is). */
function childrenOf(ppid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === ppid) pids.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

/** Alive and not a zombie (a container's init may be slow to reap what it inherits). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

test("the re-run does not outlive a command killed with SIGKILL", { skip: reruns ? false : "not glibc >= 2.35 Linux" }, async () => {
  let requests = 0;
  const server = createServer(() => void requests++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  let rerun: number | undefined;
  try {
    const { GLIBC_TUNABLES: _drop, ...base } = process.env;
    const main = join(import.meta.dirname, "..", "src", "cli", "main.ts");
    const child = spawn(process.execPath, ["--import", "tsx", main, "get", `http://127.0.0.1:${port}/a.zarr`], { env: base, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const ended = new Promise<NodeJS.Signals | null>((r) => child.on("exit", (_code, signal) => r(signal)));
    // The re-run is the one waiting on the server.
    while (requests === 0) {
      assert.equal(child.exitCode, null, `the command ended before its request: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const kids = childrenOf(child.pid!);
    assert.equal(kids.length, 1, `one re-run under the command: ${kids.join(", ")}`);
    rerun = kids[0];
    child.kill("SIGKILL");
    assert.equal(await ended, "SIGKILL");
    // It is gone within seconds (it would wait on the server for ever otherwise).
    const deadline = Date.now() + 15_000;
    while (running(rerun!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(running(rerun!), false, `the re-run ${rerun} outlived its parent`);
  } finally {
    if (rerun !== undefined && running(rerun)) process.kill(rerun, "SIGKILL");
    server.closeAllConnections();
    server.close();
  }
});
