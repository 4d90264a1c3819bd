/**
 * Resource limits on shapes of input that are valid but extreme: arrays of very many dimensions,
 * reads of very many tiny chunks, long codec chains. Each either works in memory and time that grow
 * linearly with it, or is refused early with a typed error. Memory is checked through sizes (the
 * process's peak resident size), never through timing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, ZarrError, openArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const MB = 1024 * 1024;

/** The process's peak resident size so far, in bytes (maxRSS is in KiB). */
function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function v3Array(dir: string, meta: Record<string, unknown>): void {
  const doc = { zarr_format: 3, node_type: "array", data_type: "uint8", fill_value: 7, codecs: [{ name: "bytes" }], ...meta };
  writeFileSync(join(dir, "zarr.json"), JSON.stringify(doc));
}

// First in the file: the peak resident size only shows growth above what earlier tests reached.
test("a one-element read and write of a 20,000-dimension array stay in bounded memory", async () => {
  const rank = 20_000;
  for (const separator of ["/", "."]) {
    const dir = scratchDir();
    const ones = Array<number>(rank).fill(1);
    v3Array(dir, {
      shape: ones,
      chunk_grid: { name: "regular", configuration: { chunk_shape: ones } },
      chunk_key_encoding: { name: "default", configuration: { separator } },
    });
    const before = peakRss();
    const a = await openArray(new FileSystemStore(dir));
    // No chunk is stored (none can be: its path is longer than any file system allows): the fill value.
    assert.equal(await a.get(Array<number>(rank).fill(0)), 7, separator);
    // Writing it cannot work on this file system; it must say so with a typed error.
    await assert.rejects(a.set(Array<number>(rank).fill(0), 1), (err: unknown) => err instanceof ZarrError, separator);
    // Each missing folder of the chunk's 20,000 used to hold its own copy of the path: ~500 MB.
    const grew = peakRss() - before;
    assert.ok(grew < 120 * MB, `${separator}: the peak resident size grew by ${Math.round(grew / MB)} MB`);
  }
});
