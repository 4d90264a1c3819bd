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
  for (const sel of [[10], [-11], [[0, 10]], [[true]], [0, 0, 0], [slice(0, 5, 0)], [slice(0, 5, 1.5)], ["...", "..."], [1.5], [2n ** 64n]]) {
    assert.throws(() => normaliseSelection(sel as never, shape), (e: unknown) => e instanceof BadSelectionError && e.code === "BAD_SELECTION", String(sel));
  }
});

test("slices resolve as Python's slice.indices: bounds clamp, negative steps run backwards", () => {
  // Expected values from CPython: slice(start, stop, step).indices(10) and len(range(...)).
  const cases: [number | null, number | null, number | null, number, number, number][] = [
    [0, 5000, null, 0, 1, 10],
    [-100, 3, null, 0, 1, 3],
    [50, 60, null, 0, 1, 0],
    [null, null, -1, 9, -1, 10],
    [null, null, -3, 9, -3, 4],
    [8, 2, -2, 8, -2, 3],
    [100, -100, -4, 9, -4, 3],
    [3, 8, -1, 0, -1, 0],
  ];
  for (const [start, stop, step, s0, st, count] of cases) {
    const [ix] = normaliseSelection([slice(start, stop, step)], [10]);
    assert.deepEqual(ix, { kind: "range", start: count === 0 ? 0 : s0, step: st, count }, `${start}:${stop}:${step}`);
  }
});

test("backward slices and integer lists project to every selected element exactly once, in output order", () => {
  for (const [n, chunk] of [[23, 4], [10, 10], [9, 1]]) {
    for (const sel of [slice(null, null, -1), slice(-2, 1, -3), [5 % n, 0, n - 1, 5 % n, 2 % n]]) {
      const ixs = normaliseSelection([sel as never], [n]);
      const expected = ixs[0].kind === "list" ? [...ixs[0].indices] : Array.from({ length: (ixs[0] as { count: number }).count }, (_, k) => (ixs[0] as { start: number }).start + k * (ixs[0] as { step: number }).step);
      const got = new Array<number>(expected.length).fill(-1);
      for (const p of projectSelection(ixs, [chunk])) {
        const r = p.chunkSel[0];
        const map = p.scatter?.kind === "orthogonal" ? p.scatter.maps[0] : null;
        const pairs = map ? map.sel.map((k, i) => [k, map.out[i]]) : Array.from({ length: r.count }, (_, k) => [k, p.outStart[0] + k * (p.outStep?.[0] ?? 1)]);
        for (const [k, o] of pairs) got[o] = p.coords[0] * chunk + r.start + k * r.step;
      }
      assert.deepEqual(got, expected, `${n}/${chunk} ${JSON.stringify(sel)}`);
    }
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
