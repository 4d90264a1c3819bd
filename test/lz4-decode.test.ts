/**
 * The WebAssembly LZ4 decoder (kernels.c lz4_decompress, with common.h's copies) against the
 * JavaScript one (lz4.ts) and against the bytes each block was built from: hand-made sequences at
 * every short offset and at the edges of the kernel's shortcut, random valid blocks, real blocks
 * (our encoder, numcodecs' LZ4 and c-blosc frames written by zarr-python 2.13), and damaged
 * blocks, which must be refused (CORRUPT_CHUNK from the public decoders) without a write outside
 * the output and its 16 bytes of slack.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { bloscDecode, bloscEncode } from "../src/codecs/blosc/blosc.js";
import { lz4CompressBound, lz4CompressIntoJs, lz4DecompressBlock, lz4DecompressBlockJs } from "../src/codecs/blosc/lz4.js";
import { byteShuffle } from "../src/codecs/blosc/shuffle.js";
import { wasmKernels, type WasmKernels } from "../src/codecs/wasm/wasm.js";
import { CodecPipeline } from "../src/codecs/pipeline.js";
import { codecsReady, getCodecFactory } from "../src/codecs/registry.js";
import type { BytesToBytesCodec } from "../src/codecs/types.js";
import { CorruptChunkError } from "../src/errors.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import { bytesOf, randomWalkFloat32, seededRandom } from "../bench/compare/data.js";

const FIXTURES = new URL("./fixtures/zarr-python-2.13/hierarchy.zarr/compressors/", import.meta.url);

/** The chunk files of a fixture array (nested under "/"-separated keys for some). */
function chunks(dir: string): { name: string; bytes: Uint8Array }[] {
  const root = new URL(`${dir}/`, FIXTURES);
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.startsWith("."))
    .map((e) => {
      const path = join(e.parentPath ?? e.path, e.name);
      return { name: path, bytes: new Uint8Array(readFileSync(path)) };
    });
}

interface Seq {
  lit: number[];
  offset: number;
  match: number;
}

/** Writes an LZ4 length field's extra bytes (the token holds 15). */
function pushLength(out: number[], n: number): void {
  n -= 15;
  for (; n >= 255; n -= 255) out.push(255);
  out.push(n);
}

/** Encodes sequences and the final literals as one LZ4 block; returns it with the bytes it decodes to. */
function block(seqs: Seq[], last: number[]): { block: Uint8Array; bytes: Uint8Array } {
  const b: number[] = [];
  const out: number[] = [];
  const put = (lit: number[], ml: number): void => {
    b.push((Math.min(lit.length, 15) << 4) | Math.min(ml, 15));
    if (lit.length >= 15) pushLength(b, lit.length);
    b.push(...lit);
    out.push(...lit);
  };
  for (const { lit, offset, match } of seqs) {
    put(lit, match - 4);
    b.push(offset & 255, offset >> 8);
    if (match - 4 >= 15) pushLength(b, match - 4);
    // Byte by byte, as the format defines an overlapping match.
    for (let i = 0; i < match; i++) out.push(out[out.length - offset]);
  }
  put(last, 0);
  return { block: Uint8Array.from(b), bytes: Uint8Array.from(out) };
}

const GUARD = 64;
const CANARY = 0xa5;

/**
 * Runs the kernel on `src` with room for `cap` bytes, the stream and the output surrounded by
 * canary bytes: it may write only the output and the 16 bytes of slack after it.
 */
function kernelDecode(k: WasmKernels, src: Uint8Array, cap: number): { n: number; bytes: Uint8Array } {
  const STREAM = GUARD;
  const OUT = (STREAM + src.length + 16 + GUARD + 15) & ~15;
  const end = OUT + cap + 16 + GUARD;
  const s = k.reserve(end);
  s.fill(CANARY, 0, end);
  s.set(src, STREAM);
  const n = k.lz4Decompress(STREAM, src.length, OUT, cap);
  const v = k.reserve(end);
  const outside = (from: number, to: number): number => v.subarray(from, to).findIndex((x) => x !== CANARY);
  assert.equal(outside(0, STREAM), -1, "a write before the stream");
  assert.ok(Buffer.compare(v.subarray(STREAM, STREAM + src.length), src) === 0, "the stream was written to");
  assert.equal(outside(STREAM + src.length, OUT), -1, "a write between the stream and the output");
  assert.equal(outside(OUT + cap + 16, end), -1, "a write past the output's slack");
  return { n, bytes: v.slice(OUT, OUT + Math.max(0, n)) };
}

/** The JavaScript decoder's verdict: the decoded length and bytes, or null for a refused block. */
function jsDecode(src: Uint8Array, cap: number): { n: number; bytes: Uint8Array } | null {
  const out = new Uint8Array(cap);
  try {
    const n = lz4DecompressBlockJs(src, out);
    return { n, bytes: out.subarray(0, n) };
  } catch (e) {
    assert.ok(e instanceof CorruptChunkError, `the JavaScript decoder threw ${String(e)}`);
    return null;
  }
}

/** Kernel and JavaScript decoder agree on `src` (both refuse it, or both give the same bytes). */
function agree(k: WasmKernels, src: Uint8Array, cap: number, what: string): boolean {
  const w = kernelDecode(k, src, cap);
  const j = jsDecode(src, cap);
  if (j === null) {
    assert.ok(w.n < 0, `${what}: the kernel decoded ${w.n} bytes of a block the JavaScript decoder refuses`);
    return false;
  }
  assert.equal(w.n, j.n, `${what}: decoded length`);
  assert.ok(Buffer.compare(w.bytes, j.bytes) === 0, `${what}: bytes`);
  return true;
}

/** Random valid blocks: mostly short literals and matches, some long ones, offsets near and far. */
function randomBlock(rnd: () => number, nseq: number): { block: Uint8Array; bytes: Uint8Array } {
  const byte = (): number => Math.floor(rnd() * 256);
  const seqs: Seq[] = [];
  let produced = 0;
  for (let i = 0; i < nseq; i++) {
    const r = rnd();
    const litLen = r < 0.4 ? 0 : r < 0.85 ? Math.floor(rnd() * 15) : Math.floor(rnd() * 600);
    const lit = Array.from({ length: produced + litLen === 0 ? 1 : litLen }, byte);
    produced += lit.length;
    const far = Math.min(65535, produced);
    const offset = 1 + Math.floor(rnd() * (rnd() < 0.5 ? Math.min(32, far) : far));
    const m = rnd();
    const match = 4 + (m < 0.8 ? Math.floor(rnd() * 16) : Math.floor(rnd() * 700));
    seqs.push({ lit, offset, match });
    produced += match;
  }
  return block(seqs, Array.from({ length: Math.floor(rnd() * 40) }, byte));
}

/** The LZ4 streams of a blosc frame (those not stored raw), from its header and block offsets. */
function bloscStreams(frame: Uint8Array): { stream: Uint8Array; size: number }[] {
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const nbytes = v.getInt32(4, true);
  const blocksize = v.getInt32(8, true);
  if (frame[2] & 2) return [];
  const out: { stream: Uint8Array; size: number }[] = [];
  for (let j = 0; j < Math.ceil(nbytes / blocksize); j++) {
    let at = v.getInt32(16 + 4 * j, true);
    const bsize = Math.min(blocksize, nbytes - j * blocksize);
    const splits = frame[2] & 0x10 || bsize !== blocksize || bsize / frame[3] < 128 ? 1 : frame[3];
    for (let s = 0; s < splits; s++) {
      const csize = v.getInt32(at, true);
      if (csize !== bsize / splits) out.push({ stream: frame.subarray(at + 4, at + 4 + csize), size: bsize / splits });
      at += 4 + csize;
    }
  }
  return out;
}

describe("LZ4 decoding in WebAssembly against JavaScript", () => {
  const k = wasmKernels()!;

  test("the kernels load (Node has WASM SIMD)", () => {
    assert.ok(k !== null);
  });

  test("overlapping matches at every offset 1..32, lengths around the shortcut's edges, near the output's end", () => {
    const rnd = seededRandom(31);
    const byte = (): number => Math.floor(rnd() * 256);
    let cases = 0;
    for (let offset = 1; offset <= 32; offset++) {
      for (const match of [4, 5, 7, 8, 15, 16, 17, 18, 19, 20, 21, 31, 32, 33, 34, 35, 48, 100, 273, 274]) {
        for (const litLen of [0, 1, 13, 14, 15, 16, 17]) {
          // The output's end from 0 to 40 bytes after the match: the shortcut's limit (32 free
          // bytes) falls on either side of it.
          for (const tail of [0, 1, 5, 13, 14, 15, 16, 17, 18, 30, 31, 32, 33, 40]) {
            const first: Seq = { lit: Array.from({ length: 32 }, byte), offset: 7, match: 9 };
            const seq: Seq = { lit: Array.from({ length: litLen }, byte), offset, match };
            const { block: b, bytes } = block([first, seq], Array.from({ length: tail }, byte));
            const what = `offset ${offset}, match ${match}, ${litLen} literals, ${tail} after`;
            const w = kernelDecode(k, b, bytes.length);
            assert.equal(w.n, bytes.length, what);
            assert.ok(Buffer.compare(w.bytes, bytes) === 0, `${what}: bytes`);
            assert.ok(agree(k, b, bytes.length, what));
            // One byte less room: refused, with nothing written past the smaller output's slack.
            assert.ok(kernelDecode(k, b, bytes.length - 1).n < 0, `${what}: too little room`);
            cases++;
          }
        }
      }
    }
    assert.equal(cases, 32 * 20 * 7 * 14);
  });

  test("outputs under 32 bytes take no shortcut: nothing is written past the output's 16 bytes of slack", () => {
    const lit = Array.from({ length: 14 }, (_, i) => i + 1);
    for (let cap = 0; cap < 32; cap++) {
      // Fourteen literals and a run at offset 1 (the shortcut's longest copy), then a last literal:
      // 17 input bytes remain after the token, so only the output's room could keep the shortcut out.
      for (const match of [4, 10, 18, 1000]) {
        const { block: b, bytes } = block([{ lit, offset: 1, match }], [7, 7]);
        const what = `${match}-byte match into ${cap} bytes`;
        const fits = agree(k, b, cap, what);
        assert.equal(fits, bytes.length <= cap, what);
      }
    }
  });

  test("random valid blocks decode to the bytes they were built from", () => {
    const rnd = seededRandom(7);
    for (let i = 0; i < 400; i++) {
      const { block: b, bytes } = randomBlock(rnd, 1 + Math.floor(rnd() * (i < 300 ? 40 : 400)));
      const w = kernelDecode(k, b, bytes.length);
      assert.equal(w.n, bytes.length, `block ${i}`);
      assert.ok(Buffer.compare(w.bytes, bytes) === 0, `block ${i}: bytes`);
      assert.ok(agree(k, b, bytes.length, `block ${i}`));
      // Extra room changes nothing.
      assert.equal(kernelDecode(k, b, bytes.length + 100).n, bytes.length);
    }
  });

  test("real blocks: our encoder on shuffled floats, numcodecs' LZ4 and c-blosc's lz4 frames from zarr-python", () => {
    const walk = bytesOf(randomWalkFloat32(256, 1024, 9));
    const shuffled = new Uint8Array(walk.length);
    byteShuffle(walk, shuffled, 4);
    const ours: Uint8Array[] = [];
    for (const src of [walk, shuffled, shuffled.subarray(3 * 65536, 4 * 65536 + 777)]) {
      for (const accel of [1, 5, 9]) {
        const room = new Uint8Array(lz4CompressBound(src.length));
        const b = room.slice(0, lz4CompressIntoJs(src, room, 0, room.length, accel));
        const w = kernelDecode(k, b, src.length);
        assert.equal(w.n, src.length);
        assert.ok(Buffer.compare(w.bytes, src) === 0, `accel ${accel}`);
        ours.push(b);
      }
    }
    let numcodecs = 0;
    for (const dir of ["lz4_C", "lz4_F"]) {
      for (const { name, bytes: chunk } of chunks(dir)) {
        // numcodecs' LZ4: the decoded size (int32 LE), then one block.
        const size = new DataView(chunk.buffer).getInt32(0, true);
        assert.ok(agree(k, chunk.subarray(4), size, name), `${name} decodes`);
        numcodecs++;
      }
    }
    let blosc = 0;
    for (const dir of ["blosc_lz4_shuffle_C", "blosc_lz4_shuffle_F", "blosc_lz4hc_C", "blosc_lz4hc_F"]) {
      for (const { name, bytes: frame } of chunks(dir)) {
        for (const { stream, size } of bloscStreams(frame)) {
          assert.ok(agree(k, stream, size, name), `${name} decodes`);
          blosc++;
        }
      }
    }
    assert.ok(numcodecs >= 16 && blosc >= 16, `${numcodecs} numcodecs chunks, ${blosc} c-blosc streams`);
  });

  test("a length field of ~16.8 MB of 0xff bytes (a u32 wrapping to a small length) is refused by both decoders", () => {
    // 15 + 255 * 16843009 = 2^32 + 14: a 32-bit sum wraps to 14, a plausible length.
    const wrap = 16843009;
    const literals = new Uint8Array(1 + wrap + 1 + 14);
    literals[0] = 0xf0;
    literals.fill(0xff, 1, 1 + wrap);
    literals.fill(7, 2 + wrap);
    // One literal, a match at offset 1 whose length wraps, then an empty last sequence.
    const match = new Uint8Array(4 + wrap + 1 + 1);
    match.set([0x1f, 7, 1, 0]);
    match.fill(0xff, 4, 4 + wrap);
    for (const [what, bad] of [
      ["literal length", literals],
      ["match length", match],
    ] as const) {
      assert.equal(agree(k, bad, 64, what), false, `${what}: refused`);
      assert.throws(() => lz4DecompressBlock(bad, new Uint8Array(64 * 1024)), (e) => e instanceof CorruptChunkError && e.code === "CORRUPT_CHUNK");
    }
  });

  test("truncated and damaged blocks: refused by both decoders alike, CORRUPT_CHUNK, no write outside the output", async () => {
    const rnd = seededRandom(5);
    const walk = bytesOf(randomWalkFloat32(64, 1024, 2));
    const shuffled = new Uint8Array(walk.length);
    byteShuffle(walk, shuffled, 4);
    const room = new Uint8Array(lz4CompressBound(shuffled.length));
    const real = room.slice(0, lz4CompressIntoJs(shuffled, room, 0, room.length, 1));
    const sources = [{ block: real, bytes: shuffled }, ...Array.from({ length: 20 }, () => randomBlock(rnd, 60))];
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const { block: good, bytes } = sources[i % sources.length];
      let bad: Uint8Array;
      const kind = i % 4;
      if (kind === 0) bad = good.subarray(0, Math.floor(rnd() * good.length));
      else {
        bad = good.slice();
        // A few bytes set to random values, to 0xff (long lengths, far offsets) or to 0.
        for (let j = 0; j < 1 + (i % 3); j++) {
          const at = Math.floor(rnd() * bad.length);
          bad[at] = kind === 1 ? Math.floor(rnd() * 256) : kind === 2 ? 0xff : 0;
        }
      }
      // The true size, or a little less or more room.
      const cap = bytes.length + [0, -1, 17][i % 3];
      if (!agree(k, bad, Math.max(cap, 0), `case ${i}`)) {
        refused++;
        // The public decoder (kernel from 64 KiB, then the JavaScript one to name the fault).
        assert.throws(() => lz4DecompressBlock(bad, new Uint8Array(Math.max(cap, 0))), (e) => e instanceof CorruptChunkError && e.code === "CORRUPT_CHUNK");
      }
    }
    assert.ok(refused > 1000, `${refused} of 3000 damaged blocks refused`);

    // Whole blosc-lz4 frames (typesize 4, byte shuffle: the kernels' path) with damaged streams.
    const frame = (await bloscEncode(walk, { cname: "lz4", clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 })).slice();
    assert.ok(Buffer.compare(await bloscDecode(frame), walk) === 0);
    const headerEnd = 16 + 4 * Math.ceil(walk.length / new DataView(frame.buffer).getInt32(8, true));
    let frameFaults = 0;
    for (let i = 0; i < 300; i++) {
      const bad = frame.slice();
      for (let j = 0; j < 1 + (i % 4); j++) bad[headerEnd + Math.floor(rnd() * (bad.length - headerEnd))] = i % 2 ? 0xff : Math.floor(rnd() * 256);
      try {
        await bloscDecode(bad);
      } catch (e) {
        assert.ok(e instanceof CorruptChunkError && e.code === "CORRUPT_CHUNK", `frame ${i}: ${String(e)}`);
        frameFaults++;
      }
    }
    assert.ok(frameFaults >= 10, `${frameFaults} of 300 damaged frames refused`);
  });
});

describe("numcodecs.lz4 framing", () => {
  test("a header declaring more than the chunk's decode cap is refused before the output is allocated", async () => {
    await codecsReady([{ name: "numcodecs.lz4" }]);
    const codec = (elements: number): BytesToBytesCodec =>
      getCodecFactory("numcodecs.lz4")({}, { shape: [elements], dtype: parseDataType("uint8"), fillValue: 0 }, CodecPipeline.create).codec as BytesToBytesCodec;
    // 4 MiB of zeros: a valid frame of ~16 KB, so only the cap (2 * 10 + 1 MiB for 10 elements) can refuse it.
    const zeros = new Uint8Array(4 << 20);
    const frame = await codec(10).encode(zeros);
    assert.ok(frame.length < 64 * 1024);
    await assert.rejects(async () => codec(10).decode(frame), (e: Error & { code?: string }) => e.code === "CORRUPT_CHUNK" && /limit/.test(e.message));
    // The same frame for a chunk that may hold it decodes.
    assert.equal((await codec(4 << 20).decode(frame)).length, zeros.length);
  });
});
