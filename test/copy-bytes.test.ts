/**
 * Platform.copyBytes, the copy the blosc scatter puts every decoded byte into the output's rows
 * with (issue 31): the same bytes as TypedArray.prototype.set between shared, plain and WebAssembly
 * memory on both platforms, a range that does not fit refused, and on Node a blosc read into a
 * shared `out` copies none of its bytes there through set (V8 copies into shared memory with
 * relaxed atomics 8 bytes a step: 40% more CPU for that copy than Node's memmove).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createArray, MemoryStore } from "../src/index.js";
import { nodePlatform } from "../src/platform/node.js";
import { browserPlatform } from "../src/platform/browser.js";
import { InternalFault } from "../src/errors.js";

const pattern = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);

const memories = (n: number): [string, () => Uint8Array][] => [
  ["ArrayBuffer", () => new Uint8Array(n)],
  ["SharedArrayBuffer", () => new Uint8Array(new SharedArrayBuffer(n))],
  ["WebAssembly.Memory", () => new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer, 8, n)],
];

describe("Platform.copyBytes", () => {
  for (const p of [nodePlatform, browserPlatform]) {
    for (const [srcKind, makeSrc] of memories(300)) {
      for (const [dstKind, makeDst] of memories(500)) {
        test(`${p.name}: ${srcKind} into ${dstKind}, odd offsets and lengths`, () => {
          const src = makeSrc();
          src.set(pattern(300, 5));
          const dst = makeDst();
          const expected = new Uint8Array(500);
          for (const [at, start, end] of [[0, 0, 300], [3, 1, 298], [499, 7, 8], [200, 10, 10], [201, 13, 270]]) {
            p.copyBytes(dst, at, src, start, end);
            expected.set(src.subarray(start, end), at);
          }
          assert.deepEqual(Array.from(dst), Array.from(expected));
        });
      }
    }
  }

  test("a range that does not fit is an InternalFault on both platforms, nothing is clamped silently", () => {
    const src = pattern(64, 1);
    const dst = new Uint8Array(new SharedArrayBuffer(32));
    for (const p of [nodePlatform, browserPlatform]) {
      assert.throws(() => p.copyBytes(dst, 0, src, 0, 64), InternalFault, p.name);
      assert.throws(() => p.copyBytes(dst, 30, src, 0, 4), InternalFault, p.name);
      // Past the source's end: subarray alone would copy 4 bytes of 10.
      assert.throws(() => p.copyBytes(dst, 0, src, 60, 70), InternalFault, p.name);
      assert.throws(() => p.copyBytes(dst, 0, src, 8, 4), InternalFault, p.name);
    }
  });
});

const typedSet = Object.getPrototypeOf(Uint8Array.prototype) as { set(this: Uint8Array, src: ArrayLike<number>, at?: number): void };

test("node: a blosc read into a shared out copies none of its rows there through TypedArray.prototype.set", async () => {
  // 64 x 256 float32 in 16 x 64 chunks: every chunk's rows are separate runs of the output, the
  // scattered decode (blosc's blocks into rows).
  const [rows, cols] = [64, 256];
  const data = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i / 17) * 1000);
  for (const cname of ["lz4", "zstd"]) {
    const a = await createArray(new MemoryStore(), {
      shape: [rows, cols],
      chunks: [16, 64],
      dtype: "<f4",
      zarrFormat: 2,
      compressor: { id: "blosc", cname, clevel: 5, shuffle: 1, blocksize: 0 },
    });
    await a.set(null, { data, shape: [rows, cols] });
    const out = new Float32Array(new SharedArrayBuffer(rows * cols * 4));
    let intoOut = 0;
    const original = typedSet.set;
    typedSet.set = function (this: Uint8Array, src: ArrayLike<number>, at?: number) {
      if (this.buffer === out.buffer) intoOut += src.length * this.BYTES_PER_ELEMENT;
      return original.call(this, src, at);
    };
    try {
      await a.get(null, { out, threads: 0 });
    } finally {
      typedSet.set = original;
    }
    assert.deepEqual(out, data, `blosc-${cname}: same values`);
    assert.equal(intoOut, 0, `blosc-${cname}: bytes set into the shared out`);
  }
});
