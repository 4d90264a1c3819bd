/**
 * Writers that race on purpose: concurrent `set` calls in one process, worker threads fighting for
 * the same lock slots, four OS processes with a ProcessSynchronizer, and a writer killed with
 * SIGKILL. Every test ends by checking every element, and for v2 arrays zarr-python checks too.
 */
import { strict as assert } from "node:assert";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, mkdirSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import {
  createArray,
  FileSystemStore,
  LockTimeoutError,
  MemoryStore,
  openArray,
  ProcessSynchronizer,
  slice,
  type NDArray,
  type ZarrArray,
} from "../src/index.js";
import { LOCK_SLOTS, lockSlot, processLockTable, withChunkLock } from "../src/parallel/sync/lock-table.js";
import { releaseLocksOfExitedThread, releaseThreadLocks } from "../src/parallel/sync/lock-owners.js";
import { resolvedInChild } from "./helpers/resolved-in-child.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { countLost, raceShape, raceValue, raceRegion, SMALL_RACE, type RaceWorkload } from "./helpers/race-workload.js";

const tmp = mkdtempSync(join(tmpdir(), "parzarr-race-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let serial = 0;
const fresh = (name: string) => join(tmp, `${name}-${serial++}`);

const WRITER = new URL("./helpers/race-writer.ts", import.meta.url).pathname;
// Node 20 does not pass tsx's loader hooks on to worker threads: the worker registers them itself.
const LOCK_WORKER = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(new URL("./helpers/lock-worker.ts", import.meta.url).href)}); });`;

function spawnWriter(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", WRITER, ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

function finished(child: ChildProcess): Promise<void> {
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`writer exited with ${code ?? signal}: ${stderr}`)),
    );
  });
}

async function createRaceArray(path: string, w: RaceWorkload, zarrFormat: 2 | 3): Promise<ZarrArray> {
  const codecs = zarrFormat === 3 ? { codecs: ["bytes", { name: "gzip", configuration: { level: 1 } }] } : { compressor: { id: "zlib", level: 1 } };
  return createArray(path, { shape: raceShape(w), chunks: w.chunks, dtype: "int32", fillValue: 0, zarrFormat, ...codecs });
}

for (const threads of [0, 2]) {
  describe(`one process, threads: ${threads}`, () => {
    for (const kind of ["memory", "filesystem"] as const) {
      it(`many concurrent unaligned set calls on shared chunks lose nothing (${kind} store)`, async () => {
        const w: RaceWorkload = { writers: 8, perWriter: 5, stripe: 3, rows: 6, chunks: [4, 16] };
        const store = kind === "memory" ? new MemoryStore() : new FileSystemStore(fresh("inproc"));
        const a = await createRaceArray(store as unknown as string, w, 3);
        for (let round = 1; round <= 3; round++) {
          const writes: Promise<void>[] = [];
          for (let i = 0; i < w.writers; i++) {
            for (let r = 0; r < w.perWriter; r++) {
              const [c0, c1] = raceRegion(w, i, r);
              // Scalars and arrays both: two different gather paths inside the task.
              const value = (i + r) % 2 === 0 ? raceValue(i, r, round) : { data: new Int32Array(w.rows * (c1 - c0)).fill(raceValue(i, r, round)), shape: [w.rows, c1 - c0] };
              writes.push(a.set([null, slice(c0, c1)], value, { threads }));
            }
          }
          await Promise.all(writes);
          const got = (await a.get(null, { threads })) as NDArray;
          assert.equal(countLost(w, round, got.data as Int32Array), 0, `round ${round}: elements lost`);
        }
      });
    }

    it("overlapping strided writes end with one writer's whole value per element", async () => {
      const a = await createArray(new MemoryStore(), { shape: [50], chunks: [7], dtype: "int16", fillValue: -1 });
      // Writers k = 0..9 each write every 10th element from k: disjoint, all chunks shared.
      await Promise.all(Array.from({ length: 10 }, (_, k) => a.set([slice(k, 50, 10)], k * 3 + 1, { threads })));
      const got = (await a.get(null, { threads })) as NDArray;
      assert.deepEqual(Array.from(got.data as Int16Array), Array.from({ length: 50 }, (_, i) => (i % 10) * 3 + 1));
    });
  });
}

for (const threads of [0, 2]) {
  it(`concurrent vindex, oindex and backward-slice writes into shared chunks lose nothing (threads: ${threads})`, async () => {
    // 12 writers, each owning the columns c with c % 12 == i, all writing into the same chunks at
    // once through the three new write paths (points, integer lists, backward strided runs).
    const n = 48;
    const writers = 12;
    const a = await createArray(new FileSystemStore(fresh("fancy")), { shape: [6, n], chunks: [4, 16], dtype: "int32", fillValue: 0 });
    const writes: Promise<void>[] = [];
    for (let i = 0; i < writers; i++) {
      const cols = Array.from({ length: n / writers }, (_, k) => i + k * writers);
      const value = i + 1;
      if (i % 3 === 0) {
        const rows = cols.flatMap(() => [0, 1, 2, 3, 4, 5]);
        writes.push(a.vindex.set([rows, cols.flatMap((c) => [c, c, c, c, c, c])], value, { threads }));
      } else if (i % 3 === 1) {
        writes.push(a.oindex.set([null, cols.reverse()], value, { threads }));
      } else {
        // i, i+12, i+24, i+36 backwards: a step of -12 from the last.
        writes.push(a.set([null, slice(i + n - writers, null, -writers)], value, { threads }));
      }
    }
    await Promise.all(writes);
    const got = (await a.get(null, { threads })) as NDArray;
    const data = got.data as Int32Array;
    let lost = 0;
    for (let r = 0; r < 6; r++) for (let c = 0; c < n; c++) if (data[r * n + c] !== (c % writers) + 1) lost++;
    assert.equal(lost, 0, "elements lost");
  });
}

describe("the lock table", () => {
  it("spreads keys over the slots and tells arrays apart", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(lockSlot("file:/a", `c/${i}/0`));
    assert.ok(seen.size > 800, `only ${seen.size} slots for 1000 keys`);
    for (const s of seen) assert.ok(s >= 0 && s < LOCK_SLOTS);
    let same = 0;
    for (let i = 0; i < 100; i++) if (lockSlot("file:/a", `${i}`) === lockSlot("file:/b", `${i}`)) same++;
    assert.ok(same < 5);
  });

  it("excludes main-thread tasks and worker threads from one another on the same key", async () => {
    const table = processLockTable();
    // A plain counter in shared memory, incremented non-atomically with a pause in between: any
    // two holders at once would lose an increment.
    const counter = new Int32Array(new SharedArrayBuffer(8));
    const ref = { table, scope: "test:exclusion" };
    const rounds = 40;
    const workers = [0, 1].map(() => new Worker(LOCK_WORKER, { eval: true, workerData: { counter, ref } }));
    const done = workers.map((wk) => new Promise<void>((res, rej) => (wk.once("message", () => res()), wk.once("error", rej))));
    workers.forEach((wk) => wk.postMessage({ mode: "count", rounds }));
    const mainTasks = Array.from({ length: 3 }, async () => {
      for (let i = 0; i < rounds; i++) {
        await withChunkLock(ref, "0.0", async () => {
          const v = counter[0];
          await new Promise((r) => setTimeout(r, Math.random() * 2));
          counter[0] = v + 1;
        });
      }
    });
    await Promise.all([...done, ...mainTasks]);
    await Promise.all(workers.map((wk) => wk.terminate()));
    assert.equal(counter[0], rounds * 7);
    assert.equal(Atomics.load(new Int32Array(table), lockSlot(ref.scope, "0.0")), 0, "the slot is free again");
  });

  it("frees the slots of a worker terminated while holding a lock", async () => {
    const table = processLockTable();
    const ref = { table, scope: "test:terminated" };
    const wk = new Worker(LOCK_WORKER, { eval: true, workerData: { ref } });
    wk.postMessage({ mode: "hold" });
    const tid = await new Promise<number>((res, rej) => (wk.once("message", res), wk.once("error", rej)));
    let got = false;
    const waiter = withChunkLock(ref, "k", async () => {
      got = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(got, false, "the worker still holds the lock");
    await wk.terminate();
    // What a pool calls when its worker died: it finds the process's table on its own.
    assert.equal(releaseLocksOfExitedThread(tid), 1);
    assert.equal(releaseThreadLocks(table, tid), 0, "freed once");
    await waiter;
    assert.equal(got, true);
  });

  it("a worker that dies before any write locked frees nothing, and makes no table", () => {
    const { stdout } = resolvedInChild(
      `const { releaseLocksOfExitedThread } = await import("./src/parallel/sync/lock-owners.ts");
      console.log(releaseLocksOfExitedThread(2 ** 28), globalThis[Symbol.for("parzarr.lockTable.v1")] === undefined);`,
      /\/(src\/[^?]+)$/,
    );
    assert.equal(stdout, "0 true");
  });
});

describe("ProcessSynchronizer", () => {
  it("a lock wait that times out is a LockTimeoutError naming the chunk key", async () => {
    const root = fresh("timeout");
    const lockDir = fresh("locks");
    const sync = new ProcessSynchronizer(lockDir, { timeoutMs: 200 });
    const a = await createArray(root, { shape: [10], chunks: [5], dtype: "uint8", zarrFormat: 2, synchronizer: sync });
    const store = new FileSystemStore(root);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // Another holder (as if another process) keeps chunk "0" locked.
    const holder = new ProcessSynchronizer(lockDir).withLock(`file:${store.root}`, "0", () => held);
    await new Promise((r) => setTimeout(r, 20));
    await assert.rejects(a.set([slice(1, 3)], 7), (err: unknown) => {
      assert.ok(err instanceof LockTimeoutError);
      assert.equal(err.code, "LOCK_TIMEOUT");
      assert.equal(err.key, "0");
      assert.match(err.message, /chunk "0"/);
      return true;
    });
    // Whole-chunk writes take no lock and go through.
    await a.set([slice(5, 10)], 9);
    release();
    await holder;
    await a.set([slice(1, 3)], 7);
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Uint8Array), [0, 7, 7, 0, 0, 9, 9, 9, 9, 9]);
  });

  it("takes over a lock left behind by a dead holder once it is stale", async () => {
    const root = fresh("stale");
    const lockDir = fresh("locks");
    const sync = new ProcessSynchronizer(lockDir, { staleMs: 2000, timeoutMs: 10_000 });
    const a = await createArray(root, { shape: [10], chunks: [5], dtype: "uint8", zarrFormat: 3, synchronizer: sync });
    // What a SIGKILLed holder leaves: the lock directory, last refreshed long ago.
    const path = sync.lockPath(`file:${new FileSystemStore(root).root}`, "c/0");
    mkdirSync(path, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    await a.set([slice(2, 4)], 3);
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Uint8Array), [0, 0, 3, 3, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(readdirSync(lockDir), [], "the lock is released after the write");
  });

  it("is refused when it is not a ProcessSynchronizer, and checks its options", async () => {
    await assert.rejects(
      openArray(new MemoryStore(), { mode: "a", shape: [1], dtype: "uint8", synchronizer: { dir: "x" } as unknown as ProcessSynchronizer }),
      { code: "INVALID_ARGUMENT" },
    );
    assert.throws(() => new ProcessSynchronizer(tmp, { timeoutMs: -1 }), RangeError);
  });
});

describe("four processes on one FileSystemStore array", () => {
  const python = zarrPythonSkip();
  // v2 only, so that zarr-python can check it too; v3 takes the same code path in the writers.
  for (const zarrFormat of [2] as const) {
    it(`unaligned writes with several in flight lose nothing, round after round (v${zarrFormat})`, async () => {
      const w = SMALL_RACE;
      const root = fresh(`procs-v${zarrFormat}`);
      const lockDir = fresh("locks");
      await createRaceArray(root, w, zarrFormat);
      const rounds = 3;
      // Started once, the writers run round after round when told to over stdin; half of them
      // plan with threads: 2.
      const kids = Array.from({ length: w.writers }, (_, i) =>
        spawn(process.execPath, ["--import", "tsx", WRITER, root, lockDir, String(i), "0", String(i % 2 === 0 ? 0 : 2), JSON.stringify(w), "--serve"], {
          stdio: ["pipe", "pipe", "inherit"],
        }),
      );
      const answers = kids.map((k) => createInterface({ input: k.stdout })[Symbol.asyncIterator]());
      try {
        for (let round = 1; round <= rounds; round++) {
          kids.forEach((k) => k.stdin.write(`${round}\n`));
          for (const a of answers) {
            const next = await a.next();
            assert.ok(!next.done, "a writer died");
            assert.equal((JSON.parse(next.value) as { round: number }).round, round);
          }
          const got = (await (await openArray(root, { mode: "r" })).get()) as NDArray;
          assert.equal(countLost(w, round, got.data as Int32Array), 0, `round ${round}: elements lost`);
        }
      } finally {
        kids.forEach((k) => k.stdin.end());
        await Promise.all(kids.map((k) => new Promise((r) => (k.exitCode !== null ? r(null) : k.on("exit", r)))));
      }
      assert.deepEqual(readdirSync(lockDir), [], "no lock left behind");
      if (zarrFormat === 2 && !python) {
        const r = runPython("import sys, json, zarr; print(json.dumps(zarr.open(sys.argv[1], mode='r')[:].tolist()))", root);
        assert.equal(r.status, 0, r.stderr);
        const rows = JSON.parse(r.stdout) as number[][];
        assert.deepEqual([rows.length, rows[0].length], raceShape(w));
        assert.equal(countLost(w, rounds, rows.flat()), 0, "zarr-python reads every element as written");
      }
    });
  }
});

describe("a writer killed with SIGKILL", () => {
  it("leaves old or new bytes in every chunk, no temp file read as a chunk, and no lock that blocks past the stale timeout", async () => {
    const w: RaceWorkload = { ...SMALL_RACE, writers: 1, perWriter: 12 };
    const root = fresh("kill");
    const lockDir = fresh("locks");
    await createRaceArray(root, w, 2);
    const child = spawnWriter([root, lockDir, "0", "1", "0", JSON.stringify(w), "--loop"]);
    const exited = new Promise((r) => child.on("exit", r));
    // Kill it once it has written a few rounds, in the middle of the next one.
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (b: Buffer) => {
        out += b.toString();
        if ((out.match(/round/g) ?? []).length >= 3) resolve();
      });
      child.on("exit", (code) => reject(new Error(`the writer exited by itself (${code})`)));
    });
    // Round boundaries hold no lock; a round lasts tens of milliseconds, most of it under locks.
    await new Promise((r) => setTimeout(r, 15));
    child.kill("SIGKILL");
    await exited;

    // A reader: every chunk decodes, and every element holds a value its writer wrote in some round.
    const reader = await openArray(root, { mode: "r" });
    const got = (await reader.get()) as NDArray;
    const cols = raceShape(w)[1];
    const data = got.data as Int32Array;
    for (let i = 0; i < data.length; i++) {
      const c = i % cols;
      const r = Math.floor(c / w.stripe);
      const round = (data[i] - raceValue(0, r, 0)) / 10_000;
      assert.ok(Number.isInteger(round) && round >= 1, `element ${i} holds ${data[i]}, which no write put there`);
    }
    const store = new FileSystemStore(root);
    for (const key of await store.list("")) assert.ok(!key.includes(".tmp"), `listed ${key}`);
    const keys = (await store.list("")).filter((k) => !k.startsWith("."));
    assert.equal(keys.length, reader.chunkGrid.reduce((x, y) => x * y, 1));

    // A new writer with a synchronizer: any lock the dead one held is stale after 2 s.
    const sync = new ProcessSynchronizer(lockDir, { staleMs: 2000, timeoutMs: 15_000 });
    const writer = await openArray(root, { mode: "r+", synchronizer: sync });
    await Promise.all(
      Array.from({ length: w.perWriter }, (_, r) => {
        const [c0, c1] = raceRegion(w, 0, r);
        return writer.set([null, slice(c0, c1)], raceValue(0, r, 99));
      }),
    );
    assert.equal(countLost(w, 99, ((await reader.get()) as NDArray).data as Int32Array), 0);
    for (const f of readdirSync(root)) assert.ok(statSync(join(root, f)).isFile());
  });
});
