/**
 * Raw chunks whose rows are runs of the output (issue 31): read from the file straight into those
 * rows with positioned scatter reads (readv), never through a scratch buffer and a copy per row;
 * more rows than one readv takes, damaged sizes and missing chunks behave as before.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { truncateSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { createArray, openArray, FileSystemStore, ZarrError } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

/** A folder store that records what each readInto read into: one buffer, or runs. */
class RecordingStore extends FileSystemStore {
  dests: string[] = [];
  override async readInto(key: string, dest: Uint8Array | readonly Uint8Array[]): Promise<number | undefined> {
    this.dests.push(ArrayBuffer.isView(dest) ? "buffer" : `runs:${dest.length}`);
    return super.readInto(key, dest);
  }
}

async function rawArray(shape: number[], chunks: number[]): Promise<{ dir: string; data: Float32Array }> {
  const dir = scratchDir();
  const a = await createArray(dir, { shape, chunks, dtype: "<f4", zarrFormat: 2, compressor: null, fillValue: -1 });
  const data = Float32Array.from({ length: shape[0] * shape[1] }, (_, i) => i * 0.5);
  await a.set(null, { data, shape }, { threads: 0 });
  return { dir, data };
}

test("a raw chunk narrower than the output is read into the output's rows in one scatter read, not into scratch", async () => {
  const { dir, data } = await rawArray([40, 768], [8, 256]);
  const store = new RecordingStore(dir);
  const a = await openArray(store);
  const out = new Float32Array(40 * 768);
  await a.get(null, { out, threads: 0 });
  assert.deepEqual(out, data);
  assert.equal(store.dests.length, 15);
  assert.deepEqual(new Set(store.dests), new Set(["runs:8"]), "every chunk: its 8 rows of 1 KiB, straight into the output");
  // Rows shorter than 1 KiB are not worth a view each: read into one buffer and copied.
  const short = await rawArray([40, 30], [8, 10]);
  const shortStore = new RecordingStore(short.dir);
  await (await openArray(shortStore)).get(null, { out: out.subarray(0, 1200), threads: 0 });
  assert.deepEqual(out.subarray(0, 1200), short.data);
  assert.deepEqual(new Set(shortStore.dests), new Set(["buffer"]));
});

test("more rows than one readv takes (IOV_MAX 1024), a shared out, and part of the array", async () => {
  const { dir, data } = await rawArray([2500, 512], [1500, 256]);
  const store = new RecordingStore(dir);
  const a = await openArray(store);
  const out = new Float32Array(new SharedArrayBuffer(2500 * 512 * 4));
  await a.get(null, { out, threads: 0 });
  assert.deepEqual(Array.from(out), Array.from(data));
  assert.ok(store.dests.includes("runs:1500"));
  // A part of the array: partial chunks are read as before, whole ones into their rows.
  const part = (await a.get("0:1500, 1:512", { threads: 0 })) as { data: Float32Array };
  assert.equal(part.data[0], data[1]);
  assert.equal(part.data[511 * 1499 + 510], data[512 * 1499 + 511]);
});

test("a raw chunk of the wrong size is CORRUPT_CHUNK; a missing one is the fill value", async () => {
  const { dir } = await rawArray([16, 512], [8, 256]);
  truncateSync(join(dir, "0.0"), 100);
  appendFileSync(join(dir, "0.1"), new Uint8Array(4));
  const { rmSync } = await import("node:fs");
  rmSync(join(dir, "1.1"));
  const store = new RecordingStore(dir);
  const a = await openArray(store);
  // Whole chunks whose rows are runs of a wider output: read into the rows, and checked.
  const out = new Float32Array(16 * 512);
  for (const s of ["0:8, :", "0:16, 0:512"]) {
    await assert.rejects(a.get(s, { out: out.subarray(0, s === "0:8, :" ? 8 * 512 : 16 * 512), threads: 0 }), (e: unknown) => e instanceof ZarrError && e.code === "CORRUPT_CHUNK", s);
  }
  assert.ok(store.dests.every((d) => d === "runs:8"), store.dests.join());
  await a.get("8:16, :", { out: out.subarray(0, 8 * 512), threads: 0 });
  const right = Array.from({ length: 8 }, (_, r) => Array.from(out.subarray(r * 512 + 256, r * 512 + 512))).flat();
  assert.deepEqual(new Set(right), new Set([-1]), "chunk 1.1 is missing: the fill value");
});
