/**
 * Issue 31: blosc reads move each byte as few times as they can around the WebAssembly kernels.
 * A frame's streams are staged in the kernels' memory (the compressed bytes, once), decoded there
 * where the unshuffle reads them, and each unshuffled block is copied out once: counted here as
 * the bytes every TypedArray.prototype.set of a decode moves, so the bound is on sizes, not time
 * (zlib on our WASM inflate too, as in browsers).
 * The same frames decode to the same bytes with the kernels off, on the asynchronous zstd backend
 * (numcodecs.js, which sends a block through JavaScript memory), with decodes interleaved, and a
 * damaged stream is still a CorruptChunkError.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CorruptChunkError } from "../src/errors.js";
import { bloscDecode, bloscDecodeScatter, bloscEncode, bloscHeader, type BloscCname } from "../src/codecs/blosc/blosc.js";
import { setWasmKernels, wasmKernels } from "../src/codecs/wasm/wasm.js";
import { setZstdBackend, wasmZstdBackend } from "../src/codecs/zstd.js";
import { kernelDeflateBackend, setDeflateBackend } from "../src/codecs/deflate.js";

/** A float32 random walk (what the benchmarks read): compressible, but not trivially. */
function walk(n: number, seed: number): Uint8Array {
  const f = new Float32Array(n);
  let s = seed >>> 0;
  let x = 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x += s / 2 ** 32 - 0.5;
    f[i] = x;
  }
  return new Uint8Array(f.buffer);
}

const typedSet = Object.getPrototypeOf(Uint8Array.prototype) as { set(this: Uint8Array, src: ArrayLike<number>, at?: number): void };
const originalSet = typedSet.set;

/** Runs `fn` and returns how many bytes TypedArray.prototype.set moved meanwhile. */
async function bytesCopied(fn: () => Promise<unknown>): Promise<number> {
  let moved = 0;
  typedSet.set = function (this: Uint8Array, src: ArrayLike<number>, at?: number) {
    moved += src.length * this.BYTES_PER_ELEMENT;
    return originalSet.call(this, src, at);
  };
  try {
    await fn();
  } finally {
    typedSet.set = originalSet;
  }
  return moved;
}

const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

const NBYTES = 1 << 20;

async function frame(cname: BloscCname, seed = 7): Promise<{ data: Uint8Array; frame: Uint8Array }> {
  const data = walk(NBYTES / 4, seed);
  const f = (await bloscEncode(data, { cname, clevel: 3, shuffle: 1, typesize: 4, blocksize: 0 })).slice();
  return { data, frame: f };
}

describe("blosc: copies around the WebAssembly kernels", { skip: wasmKernels() === null ? "no WebAssembly SIMD" : false }, () => {
  // zlib's decoder is in the kernels where there is no node:zlib (browsers): chosen here.
  for (const cname of ["lz4", "zstd", "zlib"] as const) {
    test(`blosc-${cname}: the compressed bytes go in once and each block comes out once`, async (t) => {
      if (cname === "zlib") {
        const previous = setDeflateBackend(kernelDeflateBackend);
        t.after(() => setDeflateBackend(previous));
      }
      const { data, frame: f } = await frame(cname);
      const { cbytes, nbytes } = bloscHeader(f);
      assert.ok(cbytes < nbytes, "the walk compresses");
      const dest = new Uint8Array(nbytes);
      await bloscDecode(f, dest); // warm: the kernels compile, the scratch grows
      const moved = await bytesCopied(() => bloscDecode(f, dest));
      assert.ok(equal(dest, data), "same bytes");
      // Before issue 31's change blosc-zstd moved about 3 * nbytes + cbytes: each stream out of
      // the kernels' memory into JavaScript scratch and back in before the unshuffle.
      assert.ok(moved <= cbytes + nbytes, `${moved} bytes copied for ${cbytes} in and ${nbytes} out`);

      const rows = new Uint8Array(nbytes);
      const scatter = { length: nbytes, put: (at: number, b: Uint8Array) => rows.set(b, at), runs: () => null };
      const movedScattered = await bytesCopied(() => bloscDecodeScatter(f, scatter));
      assert.ok(equal(rows, data), "same bytes, scattered");
      assert.ok(movedScattered <= cbytes + nbytes, `scattered: ${movedScattered} bytes copied`);
    });
  }

  test("blosc-zstd: same bytes without the kernels, on numcodecs.js, and with decodes interleaved", async () => {
    const frames = await Promise.all([1, 2, 3, 4].map((seed) => frame("zstd", seed)));
    const decodeAll = () => Promise.all(frames.map((x) => bloscDecode(x.frame)));
    const check = (outs: Uint8Array[], what: string) => outs.forEach((o, i) => assert.ok(equal(o, frames[i].data), `${what}: frame ${i}`));
    check(await decodeAll(), "kernels");
    const previous = setZstdBackend(wasmZstdBackend);
    try {
      // Every stream then awaits: the block goes through JavaScript memory, and the other decodes
      // use the kernels' scratch meanwhile.
      check(await decodeAll(), "numcodecs.js");
    } finally {
      setZstdBackend(previous);
    }
    const was = setWasmKernels(false);
    try {
      check(await decodeAll(), "no kernels");
    } finally {
      setWasmKernels(was);
    }
  });

  for (const cname of ["lz4", "zstd", "zlib"] as const) {
    test(`blosc-${cname}: a damaged stream is a CorruptChunkError`, async (t) => {
      if (cname === "zlib") {
        const previous = setDeflateBackend(kernelDeflateBackend);
        t.after(() => setDeflateBackend(previous));
      }
      const { frame: f } = await frame(cname);
      const { nbytes, blocksize } = bloscHeader(f);
      const nblocks = Math.ceil(nbytes / blocksize);
      const first = new DataView(f.buffer).getInt32(16, true);
      const streamsStart = 16 + 4 * nblocks;
      assert.equal(first, streamsStart);
      // A compressed stream of the first block (the low bytes of the floats are stored raw).
      const v = new DataView(f.buffer);
      let at0 = streamsStart;
      const neblock = bloscHeader(f).flags & 0x10 ? blocksize : blocksize / 4;
      while (v.getInt32(at0, true) >= neblock) at0 += 4 + v.getInt32(at0, true);
      // Damage a few bytes past its size word, many ways.
      let refused = 0;
      for (let i = 0; i < 40; i++) {
        const bad = f.slice();
        const at = at0 + 4 + ((i * 7919) % 200);
        bad.fill(0xff, at, at + 1 + (i % 16));
        try {
          await bloscDecode(bad, new Uint8Array(nbytes));
        } catch (err) {
          assert.ok(err instanceof CorruptChunkError, `damage at ${at}: ${String(err)}`);
          refused++;
        }
      }
      assert.ok(refused > 0, "some damage is detected");
      // A stream that claims more bytes than any encoding of its block takes (but fits the frame).
      const bad = f.slice();
      new DataView(bad.buffer).setInt32(at0, bad.length - at0 - 4, true);
      await assert.rejects(bloscDecode(bad, new Uint8Array(nbytes)), CorruptChunkError);
    });
  }
});
