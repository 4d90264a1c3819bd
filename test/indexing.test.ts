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

test("copyStrided: every type, short and long rows, odd offsets and 1-5 axes copy exactly the reference's bits", () => {
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const makers: [string, (buf: ArrayBuffer, off: number, n: number) => ArrayLike<number | bigint> & { [i: number]: number | bigint; BYTES_PER_ELEMENT: number; buffer: ArrayBuffer; byteOffset: number }][] = [
    ["uint8", (b, o, n) => new Uint8Array(b, o, n)],
    ["uint16", (b, o, n) => new Uint16Array(b, o * 2, n)],
    ["float32", (b, o, n) => new Float32Array(b, o * 4, n)],
    ["float64", (b, o, n) => new Float64Array(b, o * 8, n)],
    ["int64", (b, o, n) => new BigInt64Array(b, o * 8, n)],
  ];
  for (let trial = 0; trial < 400; trial++) {
    const [name, make] = makers[trial % makers.length];
    const nd = 1 + rnd(5);
    const shape = Array.from({ length: nd }, () => 1 + rnd(nd > 3 ? 4 : 40));
    // The source: a C-order box larger than the region by a random margin per axis, so its rows
    // are contiguous (or, one time in four, a permuted layout); the region starts at a random place.
    const srcBox = shape.map((n) => n + rnd(4));
    let srcStrides = contiguousStrides(srcBox);
    // Fortran order: the region's rows are strided.
    if (rnd(4) === 0) srcStrides = srcBox.map((_, k) => srcBox.slice(0, k).reduce((a, b) => a * b, 1));
    const srcStart = srcBox.reduce((s, n, k) => s + rnd(n - shape[k] + 1) * srcStrides[k], 0);
    const dstBox = shape.map((n) => n + rnd(3));
    const dstStrides = contiguousStrides(dstBox);
    const dstStart = dstBox.reduce((s, n, k) => s + rnd(n - shape[k] + 1) * dstStrides[k], 0);
    const total = (box: number[]): number => box.reduce((a, b) => a * b, 1);
    // Views that start at odd elements of their buffers, so byte offsets are not all word-aligned.
    const sOff = rnd(3);
    const dOff = rnd(3);
    const bpe = make(new ArrayBuffer(8), 0, 0).BYTES_PER_ELEMENT;
    const srcBuf = new ArrayBuffer((total(srcBox) + sOff) * bpe);
    new Uint8Array(srcBuf).forEach((_, i, a) => (a[i] = rnd(256)));
    const src = make(srcBuf, sOff, total(srcBox));
    const dst = make(new ArrayBuffer((total(dstBox) + dOff) * bpe), dOff, total(dstBox));
    const want = make(new ArrayBuffer((total(dstBox) + dOff) * bpe), dOff, total(dstBox));
    const idx = new Array(nd).fill(0);
    for (let e = 0; e < total(shape); e++) {
      let so = srcStart;
      let dof = dstStart;
      for (let k = 0; k < nd; k++) {
        so += idx[k] * srcStrides[k];
        dof += idx[k] * dstStrides[k];
      }
      // Bytes, so a NaN's payload is compared too.
      const sb = new Uint8Array(src.buffer, src.byteOffset + so * bpe, bpe);
      new Uint8Array(want.buffer, want.byteOffset + dof * bpe, bpe).set(sb);
      for (let k = nd - 1; k >= 0 && ++idx[k] === shape[k]; k--) idx[k] = 0;
    }
    copyStrided(dst as never, { offset: dstStart, strides: dstStrides }, src as never, { offset: srcStart, strides: srcStrides }, shape);
    const a = new Uint8Array(dst.buffer, dst.byteOffset, total(dstBox) * bpe);
    const b = new Uint8Array(want.buffer, want.byteOffset, total(dstBox) * bpe);
    assert.ok(Buffer.compare(a, b) === 0, `${name} shape ${shape} src strides ${srcStrides} at ${srcStart}+${sOff}, dst at ${dstStart}+${dOff}`);
  }
});
