/**
 * The pieces behind `parzarr cp`, in process: slab plans (whole destination chunks, within the
 * budget, covering the array exactly once), codec spec strings in both formats, sizes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { InvalidArgumentError, MemoryStore, createArray, openArray, type NDArray } from "../src/index.js";
import { UsageError, parseBytes, parseTarget } from "../src/cli/args.js";
import { parseCodecSpec, specOfChain, v2CompressorOf, v3CodecsOf } from "../src/copy/codec-spec.js";
import { planSlabs, slabBox, unitsIn } from "../src/copy/slabs.js";

const dims = fc.integer({ min: 1, max: 3 });

test("slab plans: whole destination units, within the budget, covering every element once", () => {
  fc.assert(
    fc.property(
      dims.chain((n) =>
        fc.record({
          shape: fc.array(fc.integer({ min: 0, max: 60 }), { minLength: n, maxLength: n }),
          sourceChunk: fc.array(fc.integer({ min: 1, max: 20 }), { minLength: n, maxLength: n }),
          destUnit: fc.array(fc.integer({ min: 1, max: 20 }), { minLength: n, maxLength: n }),
          itemBytes: fc.constantFrom(1, 2, 4, 8),
          inFlight: fc.integer({ min: 1, max: 8 }),
          memory: fc.integer({ min: 1, max: 200_000 }),
        }),
      ),
      (input) => {
        const plan = planSlabs(input);
        // Over the budget only when one destination unit is: the caller refuses that plan.
        const unit = input.shape.map((n, d) => Math.max(1, Math.min(input.destUnit[d], n)));
        if (plan.plannedPeak > input.memory) assert.deepEqual(plan.slab, unit, `planned ${plan.plannedPeak} > ${input.memory}`);
        plan.slab.forEach((s, d) => {
          const n = input.shape[d];
          assert.ok(s % input.destUnit[d] === 0 || s >= n, `slab ${plan.slab} not aligned to ${input.destUnit}`);
        });
        // Every element in exactly one slab; every destination unit counted once.
        const size = input.shape.reduce((a, b) => a * b, 1);
        let covered = 0;
        let units = 0;
        // The in-flight term counts at least the source chunks and units any one slab touches.
        const clipped = (c: number[]) => c.reduce((a, x, d) => a * Math.min(x, Math.max(1, input.shape[d])), 1);
        const held = (chunks: number, chunk: number[]) => 2 * input.itemBytes * Math.min(input.inFlight, chunks) * clipped(chunk);
        for (let i = 0; i < plan.count; i++) {
          const box = slabBox(plan, input.shape, i);
          covered += box.start.reduce((a, s, d) => a * (box.stop[d] - s), 1);
          units += unitsIn(box, input.destUnit);
          assert.ok(plan.inFlightBytes >= held(unitsIn(box, input.sourceChunk), input.sourceChunk), `slab ${i} reads more than counted`);
          assert.ok(plan.inFlightBytes >= held(unitsIn(box, input.destUnit), input.destUnit), `slab ${i} writes more than counted`);
          box.start.forEach((s, d) => assert.equal(s % input.destUnit[d], 0));
        }
        assert.equal(covered, size);
        if (size > 0) assert.equal(units, input.shape.reduce((a, n, d) => a * Math.ceil(n / input.destUnit[d]), 1));
        assert.ok(plan.readAmplification >= 1 || size === 0);
      },
    ),
    { numRuns: 300 },
  );
});

test("a slab keeps source chunks whole where the budget allows (no chunk decoded twice)", () => {
  const plan = planSlabs({ shape: [1000, 1000], sourceChunk: [100, 1000], destUnit: [64, 64], itemBytes: 4, inFlight: 8, memory: 8 * 2 ** 20 });
  // lcm(64, 100) = 1600 exceeds the array, so rows are only unit-aligned; columns are whole.
  assert.equal(plan.slab[1], 1000);
  const aligned = planSlabs({ shape: [1000, 1000], sourceChunk: [50, 1000], destUnit: [100, 100], itemBytes: 4, inFlight: 2, memory: 2_200_000 });
  assert.equal(aligned.slab[0] % 100, 0);
  assert.equal(aligned.readAmplification, 1);
});

const SPECS = ["none", "zstd:3", "gzip:6", "zlib:1", "lz4", "blosc:lz4:5:shuffle", "blosc:zstd:3:bitshuffle", "blosc:blosclz:9:noshuffle"];

test("codec specs write readable arrays in both formats, and read back as the same spec", async () => {
  const data = Float64Array.from({ length: 400 }, (_, i) => Math.sin(i) * 1000);
  for (const text of SPECS) {
    const spec = parseCodecSpec(text);
    const store = new MemoryStore();
    const v3 = await createArray(store, { path: "v3", shape: [20, 20], chunks: [7, 7], dtype: "float64", codecs: [{ name: "bytes" }, ...v3CodecsOf(spec, 8)] });
    const v2 = await createArray(store, { path: "v2", zarrFormat: 2, shape: [20, 20], chunks: [7, 7], dtype: "<f8", compressor: v2CompressorOf(spec) });
    for (const a of [v3, v2]) {
      await a.set(null, { data, shape: [20, 20] });
      const back = (await (await openArray(store, { path: a.path, mode: "r" })).get()) as NDArray;
      assert.deepEqual(Array.from(back.data as Float64Array), Array.from(data), `${text} v${a.zarrFormat}`);
      assert.deepEqual(specOfChain(a.codecs), spec, `${text} v${a.zarrFormat}`);
    }
  }
});

test("bad codec specs are INVALID_ARGUMENT, bad sizes and targets usage errors", () => {
  for (const bad of ["brotli", "zstd:x", "gzip:10", "blosc:lz5", "blosc:lz4:5:sideways", "zstd:3:1"]) {
    assert.throws(() => parseCodecSpec(bad), InvalidArgumentError, bad);
  }
  assert.equal(parseBytes("512MiB", "memory"), 512 * 2 ** 20);
  assert.equal(parseBytes("1.5GB", "memory"), 1.5e9);
  assert.equal(parseBytes("4096", "memory"), 4096);
  for (const bad of ["lots", "-1", "5 parsecs", "0"]) assert.throws(() => parseBytes(bad, "memory"), UsageError, bad);
  assert.deepEqual(parseTarget("data.zarr#a/b/"), { store: "data.zarr", path: "a/b", text: "data.zarr#a/b/" });
  assert.deepEqual(parseTarget("https://h/x.zarr"), { store: "https://h/x.zarr", path: "", text: "https://h/x.zarr" });
});
