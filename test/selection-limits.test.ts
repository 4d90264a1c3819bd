/**
 * Selections too large to serve are refused with a typed error, early and in bounded memory
 * (issue 26 item 10): the result's size is checked before the read is planned, a plan costs
 * memory per chunk only as its chunks are taken, and point and index-array selections are
 * counted before anything proportional to them is built. Each case runs in a child process
 * with a small heap, so a refusal that comes only after gigabytes fails the test (the child
 * runs out of memory) instead of taking the machine with it.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createArray, MemoryStore, MAX_SELECTION_POINTS, slice, ZarrError } from "../src/index.js";

const SRC = join(import.meta.dirname, "..", "src", "index.ts");

/**
 * Runs `body` (an async function body that gets the library as `z`) in a child whose V8 heap
 * is capped at `heapMiB`; returns what it printed. A body that runs the heap out crashes the
 * child, which shows in `status` and stderr.
 */
function inSmallHeap(body: string, heapMiB = 200): { status: number | null; stdout: string; stderr: string } {
  const code = `const z = await import(${JSON.stringify(SRC)});\n${body}`;
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMiB}`, "--import", "tsx", "--input-type=module", "-e", code], {
    encoding: "utf8",
    // Generous: only a child stuck in garbage collection near its heap limit comes close.
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.slice(-2000) };
}

/** The body's refusal as `CODE message`, printed by the child. */
const REPORT = `.then(() => console.log("no error"), (e) => console.log(e.code ?? e.name, e.message))`;

function assertRefused(r: { status: number | null; stdout: string; stderr: string }, code: string, message: RegExp): void {
  assert.equal(r.status, 0, `the child failed (status ${r.status}):\n${r.stderr}`);
  const line = r.stdout.trim();
  assert.ok(line.startsWith(`${code} `), `expected ${code}, got: ${line}`);
  assert.match(line, message);
}

describe("selection limits", () => {
  it("get(null) of shape [2^45] in chunks [2^20] is TOO_LARGE before its 2^25 chunks are planned", () => {
    const r = inSmallHeap(`
      const a = await z.createArray(new z.MemoryStore(), { shape: [2 ** 45], chunks: [2 ** 20], dtype: "<i4", zarrFormat: 2 });
      await a.get(null)${REPORT};`);
    assertRefused(r, "TOO_LARGE", /2\^53|bytes/);
  });

  it("a plan of 2^25 chunks costs memory only for the chunks taken from it", () => {
    // Where the engine allows buffers of up to 2^53 bytes (Node 22 on), such a read passes the
    // size check and is refused by the allocation: its plan must not have cost gigabytes first.
    const r = inSmallHeap(`
      const { planSelection } = await import(${JSON.stringify(join(import.meta.dirname, "..", "src", "indexing", "projection.ts"))});
      const plan = planSelection([{ kind: "range", start: 3, step: 1, count: 2 ** 45 - 3 }, { kind: "range", start: 9, step: -2, count: 5 }], [2 ** 20, 4]);
      const taken = [];
      for (const p of plan) { taken.push(p); if (taken.length === 4) break; }
      console.log(plan.count, JSON.stringify(taken));`);
    assert.equal(r.status, 0, `the child failed (status ${r.status}):\n${r.stderr}`);
    const [count, json] = r.stdout.trim().split(" ");
    assert.equal(Number(count), 2 ** 25 * 3);
    assert.deepEqual(JSON.parse(json), [
      { coords: [0, 0], chunkSel: [{ start: 3, step: 1, count: 2 ** 20 - 3 }, { start: 1, step: 2, count: 2 }], outStart: [0, 4], outStep: [1, -1] },
      { coords: [0, 1], chunkSel: [{ start: 3, step: 1, count: 2 ** 20 - 3 }, { start: 1, step: 2, count: 2 }], outStart: [0, 2], outStep: [1, -1] },
      { coords: [0, 2], chunkSel: [{ start: 3, step: 1, count: 2 ** 20 - 3 }, { start: 1, step: 2, count: 1 }], outStart: [0, 0] },
      { coords: [1, 0], chunkSel: [{ start: 0, step: 1, count: 2 ** 20 }, { start: 1, step: 2, count: 2 }], outStart: [2 ** 20 - 3, 4], outStep: [1, -1] },
    ]);
  });

  it(`vindex with more than MAX_SELECTION_POINTS (2^24) points is TOO_LARGE before they are planned`, () => {
    assert.equal(MAX_SELECTION_POINTS, 2 ** 24);
    const r = inSmallHeap(`
      const a = await z.createArray(new z.MemoryStore(), { shape: [2 ** 40], chunks: [16], dtype: "<i4", zarrFormat: 2 });
      const points = new Float64Array(2 ** 24 + 1).map((_, i) => i * 4096);
      await a.vindex.get([points])${REPORT};`);
    assertRefused(r, "TOO_LARGE", /16777217 points/);
  });

  it("oindex and get with an index array, and a whole-array mask, past the limit are TOO_LARGE", () => {
    const r = inSmallHeap(`
      const a = await z.createArray(new z.MemoryStore(), { shape: [2 ** 24 + 1, 2], chunks: [16, 2], dtype: "|u1", zarrFormat: 2 });
      const index = new Float64Array(2 ** 24 + 1).map((_, i) => i);
      await a.oindex.get([index, null])${REPORT};
      await a.get([index, 1])${REPORT};
      await a.vindex.get({ data: new Uint8Array(2 * (2 ** 24 + 1)).fill(1), shape: [2 ** 24 + 1, 2] })${REPORT};`);
    assert.equal(r.status, 0, `the child failed (status ${r.status}):\n${r.stderr}`);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.length, 3);
    for (const line of lines) assert.match(line, /^TOO_LARGE .*(16777217|33554434) (indices|points)/);
  });

  it("selections within the limits still read", async () => {
    const a = await createArray(new MemoryStore(), { shape: [40, 6], chunks: [7, 4], dtype: "<i4", zarrFormat: 2 });
    await a.set(null, { data: Int32Array.from({ length: 240 }, (_, i) => i), shape: [40, 6] });
    const pts = await a.vindex.get([[39, 0, 5], [5, 0, 2]]);
    assert.deepEqual(Array.from((pts as { data: Int32Array }).data), [239, 0, 32]);
    const o = await a.oindex.get([[3, 1], slice(null, null, -5)]);
    assert.deepEqual(Array.from((o as { data: Int32Array }).data), [23, 18, 11, 6]);
    await assert.rejects(a.get([slice(0, 2), slice(0, 3)], { threads: 0, out: new Int32Array(5) }), (e: unknown) => e instanceof ZarrError);
  });
});
