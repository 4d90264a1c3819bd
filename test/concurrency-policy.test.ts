/**
 * One concurrency policy (issue 27): every number that says how much runs at once lives in
 * src/parallel/execution/concurrency.ts, and the modules that fan out read it from there, so that changing
 * one value changes what every module relying on it plans for (the copy engine's memory plan
 * counts the inline executor's tasks in flight, the coordinator's lanes a worker's tasks).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createArray, openArray } from "../src/index.js";
import { CONCURRENCY, poolLanes } from "../src/parallel/execution/concurrency.js";

const ROOT = new URL("../", import.meta.url).pathname;

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

/** Ways a module could hold a concurrency number of its own. */
const OWN_NUMBERS: [string, RegExp][] = [
  ["a numeric in-flight constant", /\bconst\s+[A-Z_]*(IN_FLIGHT|AHEAD|CONCURRENCY|TASKS|PER_WORKER)[A-Z_]*\s*=\s*\d/],
  ["a numeric tasksPerWorker", /\btasksPerWorker\s*[=:]\s*\d/i],
  ["the lanes formula", /tasksPerWorker\s*\+\s*1/],
  ["runners counted by a literal", /length:\s*Math\.min\(\s*\d/],
];

test("no module outside parallel/execution/concurrency.ts defines how much runs at once", () => {
  const found: string[] = [];
  for (const dir of ["src", "workers"]) {
    for (const file of tsFiles(join(ROOT, dir))) {
      const rel = relative(ROOT, file);
      if (rel === join("src", "parallel", "execution", "concurrency.ts")) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const [what, re] of OWN_NUMBERS) if (re.test(line)) found.push(`${rel}:${i + 1}: ${what}: ${line.trim()}`);
        });
    }
  }
  assert.deepEqual(found, [], `read these from CONCURRENCY (src/parallel/execution/concurrency.ts):\n${found.join("\n")}`);
});

test("the policy is one frozen object of positive integers", () => {
  assert.ok(Object.isFrozen(CONCURRENCY));
  for (const [name, n] of Object.entries(CONCURRENCY)) assert.ok(Number.isInteger(n) && n > 0, `${name}: ${n}`);
});

test("poolLanes: the whole pool gets one waiting task per worker; fewer threads get exactly that many", () => {
  const pool = { threads: 3, tasksPerWorker: 2 };
  assert.equal(poolLanes(pool, undefined), 9);
  assert.equal(poolLanes(pool, 3), 9);
  assert.equal(poolLanes(pool, 8), 9);
  assert.equal(poolLanes(pool, 2), 2);
  assert.equal(poolLanes(pool, 1), 1);
});

test("an inline read keeps exactly CONCURRENCY.inlineInFlight chunk reads open", async () => {
  const files = new Map<string, Uint8Array>();
  const store = { get: async (key: string) => files.get(key), set: async (key: string, v: Uint8Array) => void files.set(key, new Uint8Array(v)) };
  const a = await createArray(store, { shape: [64], chunks: [1], dtype: "<i4", fillValue: 0 });
  await a.set(null, Int32Array.from({ length: 64 }, (_, i) => i + 1), { threads: 0 });
  let open = 0;
  let most = 0;
  const slow = {
    get: async (key: string) => {
      if (!key.endsWith("zarr.json")) most = Math.max(most, ++open);
      await new Promise((r) => setTimeout(r, 2));
      if (!key.endsWith("zarr.json")) open--;
      return files.get(key);
    },
  };
  const got = await (await openArray(slow)).get(null, { threads: 0 });
  assert.equal((got as { data: Int32Array }).data[63], 64);
  assert.equal(most, CONCURRENCY.inlineInFlight);
});
