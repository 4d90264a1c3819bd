/**
 * A rechunking copy reads every slab into one reused shared buffer (issue 12: a fresh buffer per
 * slab paid its page faults each time and lingered until GC, lifting `cp`'s peak memory far past
 * --memory), inline and on a pool, and the destination holds the source's values.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createArray, slice, type NDArray } from "../src/index.js";
import { copySlab } from "../src/copy/engine.js";
import { SlabBuffer } from "../src/copy/slab-buffer.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import { scratchDir } from "./helpers/paths.js";

const root = scratchDir();
after(() => rmSync(root, { recursive: true, force: true }));

test("SlabBuffer hands out views of one SharedArrayBuffer, growing only for a larger slab; none for strings or byte strings", () => {
  const b = new SlabBuffer();
  const f32 = parseDataType("float32");
  const first = b.take(f32, 1000)!;
  assert.ok(first.buffer instanceof SharedArrayBuffer);
  assert.equal(first.length, 1000);
  const smaller = b.take(parseDataType("uint16"), 300)!;
  assert.equal(smaller.buffer, first.buffer, "a smaller slab reuses the memory");
  assert.ok(smaller instanceof Uint16Array);
  const larger = b.take(f32, 5000)!;
  assert.notEqual(larger.buffer, first.buffer);
  assert.equal(b.take(f32, 10)!.buffer, larger.buffer);
  assert.equal(b.take(parseDataType("str"), 10), null);
  // Byte strings come back from get as Uint8Array[]: no typed out for them either.
  assert.equal(b.take(parseDataType("|S4"), 10), null);
});

test("copySlab reads each slab into the reused buffer and writes the values, inline and on a pool", async () => {
  const rows = 70;
  const cols = 33;
  const values = Float64Array.from({ length: rows * cols }, (_, i) => Math.sin(i) * 1000);
  const src = await createArray(join(root, "src.zarr"), { shape: [rows, cols], chunks: [16, 11], dtype: "float64", fillValue: 0, zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
  await src.set(null, { data: values, shape: [rows, cols] });
  for (const threads of [0, 2]) {
    const dst = await createArray(join(root, `dst${threads}.zarr`), { zarrFormat: 3, shape: [rows, cols], chunks: [8, 33], dtype: "float64", fillValue: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }] });
    const buffer = new SlabBuffer();
    const seen = new Set<ArrayBufferLike>();
    const take = buffer.take.bind(buffer);
    buffer.take = (dtype, count) => {
      const t = take(dtype, count);
      if (t) seen.add(t.buffer);
      return t;
    };
    for (let r = 0; r < rows; r += 24) {
      await copySlab(src, dst, { start: [r, 0], stop: [Math.min(rows, r + 24), cols] }, { threads }, {}, () => undefined, buffer);
    }
    assert.equal(seen.size, 1, `threads ${threads}: every slab went into the same memory`);
    const back = (await dst.get(slice(0, rows), { threads: 0 })) as NDArray<Float64Array>;
    assert.deepEqual(back.data, values, `threads ${threads}`);
  }
});
