/** Selections, chunk projections and the strided kernels, checked against simple references. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BadSelectionError } from "../src/errors.js";
import { normaliseSelection, parseSelectionString, selectionShape, slice } from "../src/indexing/selection.js";
import { projectSelection } from "../src/indexing/projection.js";
import { contiguousStrides, copyStrided, fillStrided } from "../src/indexing/strided.js";

test("selection strings parse like numpy index expressions", () => {
  assert.deepEqual(parseSelectionString("0:10, ::2, 5"), [slice(0, 10), slice(null, null, 2), 5]);
  assert.deepEqual(parseSelectionString("..., -1"), ["...", -1]);
  assert.deepEqual(parseSelectionString("[1:, :-2]"), [slice(1, null), slice(null, -2)]);
  assert.throws(() => parseSelectionString("1:2:3:4"), BadSelectionError);
  assert.throws(() => parseSelectionString("a"), BadSelectionError);
});

test("normalisation: negatives, steps, ellipsis, missing dimensions", () => {
  const shape = [10, 20, 30];
  const ix = normaliseSelection([-1, slice(2, 12, 3)], shape);
  assert.deepEqual(ix, [
    { kind: "int", index: 9 },
    { kind: "range", start: 2, step: 3, count: 4 },
    { kind: "range", start: 0, step: 1, count: 30 },
  ]);
  assert.deepEqual(selectionShape(normaliseSelection(["...", 0], shape)), [10, 20]);
  assert.deepEqual(selectionShape(normaliseSelection("5:5", shape)), [0, 20, 30]);
  assert.deepEqual(selectionShape(normaliseSelection(null, [])), []);
});

test("out-of-range and malformed selections are BAD_SELECTION errors", () => {
  const shape = [10, 20];
  for (const sel of [[10], [-11], [slice(0, 11)], [slice(-11, 5)], [0, 0, 0], [slice(0, 5, 0)], [slice(0, 5, -1)], ["...", "..."], [1.5]]) {
    assert.throws(() => normaliseSelection(sel as never, shape), (e: unknown) => e instanceof BadSelectionError && e.code === "BAD_SELECTION", JSON.stringify(sel));
  }
});

test("projections cover every selected element exactly once", () => {
  // A reference: enumerate the selected indices along one dimension and group them by chunk.
  for (const [n, chunk, start, stop, step] of [
    [100, 7, 0, 100, 1],
    [100, 7, 3, 97, 5],
    [100, 10, 0, 100, 25],
    [13, 13, 0, 13, 4],
    [50, 3, 49, 50, 1],
  ]) {
    const sel = normaliseSelection([slice(start, stop, step)], [n]);
    const seen: number[] = [];
    for (const p of projectSelection(sel, [chunk])) {
      const r = p.chunkSel[0];
      for (let k = 0; k < r.count; k++) {
        const index = p.coords[0] * chunk + r.start + k * r.step;
        assert.equal(index, start + (p.outStart[0] + k) * step);
        seen.push(index);
      }
    }
    const expected: number[] = [];
    for (let i = start; i < stop; i += step) expected.push(i);
    assert.deepEqual(seen, expected, `${n}/${chunk} ${start}:${stop}:${step}`);
  }
});

test("copyStrided matches an element-by-element reference, in every layout", () => {
  const shape = [3, 4, 5];
  const src = Float64Array.from({ length: 200 }, (_, i) => i);
  const srcStrides = [40, 1, 8]; // a permuted, padded layout
  const dst = new Float64Array(60);
  copyStrided(dst, { offset: 0, strides: contiguousStrides(shape) }, src, { offset: 3, strides: srcStrides }, shape);
  let i = 0;
  for (let a = 0; a < 3; a++) for (let b = 0; b < 4; b++) for (let c = 0; c < 5; c++) {
    assert.equal(dst[i++], src[3 + a * 40 + b * 1 + c * 8]);
  }
  const big = new Int32Array(1000);
  fillStrided(big, { offset: 10, strides: [100, 2] }, [3, 4], 7);
  assert.equal(big.reduce((s, v) => s + v, 0), 7 * 12);
  assert.equal(big[10 + 200 + 6], 7);
});
