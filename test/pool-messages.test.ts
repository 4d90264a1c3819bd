/**
 * What a task message carries to a worker (issue 31): the array's metadata without its
 * attributes, which no task reads and which every message would otherwise clone (an array with
 * 1 MB of attributes read on 2 threads took 4-5x the CPU of the same array without).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createArray, openArray, WorkerPool } from "../src/index.js";
import type { TaskMessage } from "../src/parallel/execution/task-outcome.js";
import { scratchDir } from "./helpers/paths.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());
const sent: TaskMessage[] = [];
const run = pool.run.bind(pool);
pool.run = (message: TaskMessage) => {
  sent.push(message);
  return run(message);
};

test("task messages carry no attributes, reads and writes, and the results are whole", async () => {
  const attributes = { note: "x".repeat(10000), nested: { list: [1, 2, 3] } };
  const shape = [64, 48];
  const a = await createArray(scratchDir(), { shape, chunks: [16, 16], dtype: "<i4", zarrFormat: 3, attributes, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1 } }] });
  const data = Int32Array.from({ length: 64 * 48 }, (_, i) => i - 1000);
  await a.set(null, { data, shape }, { pool, threads: 2 });
  const b = await openArray(a.store, { path: a.path });
  assert.deepEqual(b.attrs, attributes, "the array keeps its attributes");
  const out = new Int32Array(new SharedArrayBuffer(data.byteLength));
  await b.get(null, { out, pool, threads: 2 });
  assert.deepEqual(out, data);
  assert.ok(sent.some((m) => m.task.kind === "write") && sent.some((m) => m.task.kind === "read"), "both went to the pool");
  for (const m of sent) assert.deepEqual(m.task.meta.attributes, {}, `a ${m.task.kind} task carried the attributes`);
});
