/**
 * `parzarr cp --queue` and `parzarr worker` with a real redis-server (TLS, a password) and s3rver
 * started by the test: a v2 array on disk copied to v3 on S3 with new chunks and codec by 3 worker processes,
 * one of them killed with SIGKILL in the middle of a slab; the copy still finishes with every
 * value right. And a slab that cannot be read fails its bounded attempts and is named.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { createArray, openArray, S3Store, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { redisSkip, startRedis, type TestRedis } from "./helpers/redis.js";
import { startS3, type TestS3 } from "./helpers/s3.js";

const skip = redisSkip();
const EMPTY_QUEUE = { completed: 0, failed: 0, waiting: 0, active: 0, delayed: 0 };
const bytesOf = (a: Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const MAIN = new URL("../src/cli/main.ts", import.meta.url).pathname;

interface Proc {
  child: ChildProcess;
  stderr: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when a stderr line matches. */
  waitFor(re: RegExp): Promise<string>;
}

function cli(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const stderr: string[] = [];
  const waiters: { re: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    stderr.push(line);
    for (const w of waiters.splice(0)) {
      if (w.re.test(line)) w.resolve(line);
      else waiters.push(w);
    }
  });
  child.stdout!.resume();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    stderr,
    exit,
    waitFor: (re) => {
      const seen = stderr.find((l) => re.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ re, resolve });
        void exit.then(({ code, signal }) => reject(new Error(`exited (${code ?? signal}) before ${re}: ${stderr.join("\n")}`)));
      });
    },
  };
}

describe("cp --queue with parzarr worker processes", { skip }, () => {
  let redis: TestRedis;
  let s3: TestS3;
  let env: Record<string, string>;
  const procs: Proc[] = [];
  const dirs: string[] = [];
  before(async () => {
    // The queue's Redis is reached over TLS with a password, as a managed one would be; every
    // process trusts the test's own CA through NODE_EXTRA_CA_CERTS.
    [redis, s3] = await Promise.all([startRedis({ tls: true, password: "queue pass" }), startS3()]);
    env = { ...s3.env, ...redis.env };
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    await Promise.all(procs.map((p) => p.exit));
    await Promise.all([redis.close(), s3.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Jobs in each state of the queue, as BullMQ counts them. */
  const queueCounts = async (name: string) => {
    const connection = new Redis(redis.url, { ...redis.clientOptions, maxRetriesPerRequest: null });
    const q = new Queue(name, { connection });
    try {
      return await q.getJobCounts("completed", "failed", "waiting", "active", "delayed");
    } finally {
      await q.close();
      connection.disconnect();
    }
  };

  const startWorker = (queueName: string, extraEnv: Record<string, string> = {}) => {
    const p = cli(["worker", "--queue", redis.url, "--queue-name", queueName, "--lease-ms", "1500"], { ...env, ...extraEnv });
    procs.push(p);
    return p;
  };

  test("3 workers, one killed with SIGKILL mid-slab: a 64 MiB v2 array on disk becomes v3 on S3, every value right", async () => {
    const dir = scratchDir("parzarr-queue-");
    dirs.push(dir);
    const src = join(dir, "src.zarr");
    // 64 MiB of float32 in 512 x 512 lz4 chunks (a fast codec: the test is about the queue); the
    // copy writes 512 x 1024 zstd chunks in 8 slabs of 8 MiB.
    const n = 4096;
    const shape = [n, n];
    const a = await createArray(src, { shape, chunks: [512, 512], dtype: "<f4", zarrFormat: 2, compressor: { id: "lz4", acceleration: 1 } });
    const data = new Float32Array(n * n);
    for (let i = 0; i < data.length; i++) data[i] = (i % 4099) * 0.25 - (i >> 12);
    await a.set(null, { data, shape });

    const queueName = "q-kill";
    // The first worker dies the hard way in its first slab, after some of its chunks are written.
    const doomed = startWorker(queueName, { PARZARR_WORKER_CRASH_AFTER_SLABS: "0" });
    const others = [startWorker(queueName), startWorker(queueName)];
    await Promise.all([doomed, ...others].map((w) => w.waitFor(/waiting for slab jobs/)));

    const dest = `s3://${s3.bucket}/queued/dst.zarr`;
    const cp = cli(["cp", src, dest, "--format", "3", "--chunks", "512,1024", "--codec", "zstd:1", "--memory", "40MiB", "--queue", redis.url, "--queue-name", queueName], env);
    procs.push(cp);
    const done = await cp.exit;
    assert.equal(done.code, 0, cp.stderr.join("\n"));
    // 8 slabs for 3 workers: the doomed one took one (the test fails, not hangs, if it did not).
    assert.equal(doomed.child.signalCode, "SIGKILL", `the doomed worker should have killed itself mid-slab: ${doomed.stderr.join("\n")}`);
    const summary = cp.stderr.find((l) => /slab\(s\) copied by the queue's workers/.test(l));
    assert.ok(summary, cp.stderr.join("\n"));
    const slabs = Number(/cp: (\d+) slab/.exec(summary!)![1]);
    assert.equal(slabs, 8);
    // Every slab ran somewhere; the killed one was taken over by a survivor.
    const ran = [...others, doomed].flatMap((w) => w.stderr.filter((l) => / done$/.test(l)));
    assert.ok(ran.length >= slabs, `${ran.length} slab runs for ${slabs} slabs`);

    const out = await openArray(new S3Store(dest, s3.options), { mode: "r" });
    assert.equal(out.zarrFormat, 3);
    assert.deepEqual(out.chunks, [512, 1024]);
    assert.ok(out.codecs.some((c) => c.name === "zstd"));
    const got = (await out.get()) as NDArray;
    assert.deepEqual(got.shape, shape);
    // Compared as bytes: 16 Mi elements one by one through deepEqual would take a while.
    assert.ok(got.data instanceof Float32Array);
    assert.equal(Buffer.compare(bytesOf(got.data), bytesOf(data)), 0, "every element equal to the source");
    assert.deepEqual(await queueCounts(queueName), EMPTY_QUEUE, "the finished copy leaves no jobs in the queue");
    // The journal of an unfinished copy is gone: the copy is complete.
    assert.ok(!(await new S3Store(dest, s3.options).list("")).some((k) => k.includes("journal")));

    for (const w of others) w.child.kill("SIGTERM");
    for (const w of others) assert.equal((await w.exit).code, 0, "SIGTERM lets a worker finish and exit 0");
    assert.ok(others.every((w) => w.stderr.includes("worker: stopped")));
  });

  test("a wrong password: cp and worker exit 1 at once with Redis's reason, the password masked, nothing written", async () => {
    const dir = scratchDir("parzarr-queue-auth-");
    dirs.push(dir);
    const src = join(dir, "src.zarr");
    await createArray(src, { shape: [8], chunks: [4], dtype: "<i4", zarrFormat: 2 });
    const wrong = redis.url.replace("queue%20pass", "not%20it");
    assert.notEqual(wrong, redis.url);
    const dest = `s3://${s3.bucket}/queued/never.zarr`;
    const runs = [cli(["cp", src, dest, "--queue", wrong], env), cli(["worker", "--queue", wrong], env)];
    procs.push(...runs);
    for (const run of runs) {
      assert.equal((await run.exit).code, 1, run.stderr.join("\n"));
      const text = run.stderr.join("\n");
      assert.match(text, /STORE_ERROR: cannot reach Redis at rediss:\/\/:\*\*\*@127\.0\.0\.1:\d+ for the copy queue: WRONGPASS/);
      assert.doesNotMatch(text, /not%20it|not it/);
    }
    assert.deepEqual(await new S3Store(dest, s3.options).list(""), [], "no node created for a queue that cannot be reached");
  });

  test("a slab that keeps failing is retried a bounded number of times, then named, and cp exits 1", async () => {
    const dir = scratchDir("parzarr-queue-bad-");
    dirs.push(dir);
    const src = join(dir, "src.zarr");
    const a = await createArray(src, { shape: [64, 64], chunks: [16, 16], dtype: "<i4", zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
    await a.set(null, { data: Int32Array.from({ length: 64 * 64 }, (_, i) => i), shape: [64, 64] });
    // The last chunk's bytes are not zlib any more: its slab cannot be read.
    const last = readdirSync(src).filter((f) => f === "3.3")[0]!;
    const fd = openSync(join(src, last), "r+");
    writeSync(fd, new Uint8Array(16).fill(0xee), 0, 16, 0);
    closeSync(fd);
    const queueName = "q-bad";
    const workers = [startWorker(queueName), startWorker(queueName)];
    await Promise.all(workers.map((w) => w.waitFor(/waiting for slab jobs/)));
    const cp = cli(["cp", src, `s3://${s3.bucket}/queued/bad.zarr`, "--chunks", "32,32", "--memory", "32KiB", "--queue", redis.url, "--queue-name", queueName], env);
    procs.push(cp);
    const done = await cp.exit;
    assert.equal(done.code, 1, cp.stderr.join("\n"));
    const line = cp.stderr.find((l) => /slab\(s\) failed/.test(l)) ?? "";
    assert.match(line, /cp: 1 of 2 slab\(s\) failed: \/ slab 1 \(.*corrupt/);
    const failures = workers.flatMap((w) => w.stderr.filter((l) => / failed: /.test(l)));
    assert.equal(failures.length, 3, `3 attempts, no more: ${failures.join("\n")}`);
    // Reported, so removed too: neither the slab that copied nor the one that failed stays.
    assert.deepEqual(await queueCounts(queueName), EMPTY_QUEUE);
    for (const w of workers) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exit));
  });
});
