/**
 * Our own inflate (src/codecs/wasm/inflate.c, in the WASM kernels' module), the zlib and gzip
 * decoder where the runtime has no node:zlib (browsers). It must decode what zlib writes, byte
 * for byte, with any parameters, and judge damaged streams as zlib does (accept exactly what zlib
 * accepts), never writing outside its output. node:zlib, on every Node, is the reference.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { CorruptChunkError } from "../src/errors.js";
import { align16, wasmKernels } from "../src/codecs/wasm/wasm.js";
import { deflateBackend, deflateReady, inflateAny, inflateInto, kernelDeflateBackend, nativeDeflateBackend, setDeflateBackend } from "../src/codecs/deflate.js";
import { pakoBackend } from "../src/codecs/pako-backend.js";
import { bloscDecode, bloscEncode } from "../src/codecs/blosc/blosc.js";
import { bytesOf, randomWalkFloat32, seededRandom } from "../bench/compare/data.js";
import { MemoryStore, createArray, type NDArray } from "../src/index.js";

const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const FORMATS = { raw: 0, zlib: 1, gzip: 2 } as const;
type Format = keyof typeof FORMATS;
const GUARD = 64;

/** The kernel alone, with guard bytes around input and output: the bytes, or the fault code. */
function kernelInflate(src: Uint8Array, cap: number, format: Format): Uint8Array | number {
  const k = wasmKernels();
  assert.ok(k !== null, "the WASM kernels load here");
  const srcAt = GUARD;
  const outAt = align16(srcAt + src.length + 16);
  const end = outAt + cap + 32;
  const scratch = k.reserve(end + GUARD);
  scratch.fill(0xa5, 0, end + GUARD);
  scratch.set(src, srcAt);
  const n = k.inflate(srcAt, src.length, outAt, cap, FORMATS[format]);
  const after = k.reserve(end + GUARD);
  for (let i = 0; i < srcAt; i++) assert.equal(after[i], 0xa5, "written before the input");
  assert.ok(eq(after.subarray(srcAt, srcAt + src.length), src), "the input was changed");
  for (let i = end; i < end + GUARD; i++) assert.equal(after[i], 0xa5, "written past the output's slack");
  if (n < 0) return n;
  assert.ok(n <= cap);
  return after.slice(outAt, outAt + n);
}

const zlibOf = (format: Format, input: Uint8Array, opts: zlib.ZlibOptions = {}): Uint8Array =>
  new Uint8Array(format === "raw" ? zlib.deflateRawSync(input, opts) : format === "zlib" ? zlib.deflateSync(input, opts) : zlib.gzipSync(input, opts));

/** What node:zlib makes of a stream: its bytes, or null when it refuses it. */
function reference(format: Format, src: Uint8Array): Uint8Array | null {
  try {
    return new Uint8Array(format === "raw" ? zlib.inflateRawSync(src) : format === "zlib" ? zlib.inflateSync(src) : zlib.gunzipSync(src));
  } catch {
    return null;
  }
}

function inputs(seed: number): Uint8Array[] {
  const r = seededRandom(seed);
  const periods = Uint8Array.from({ length: 50000 }, (_, i) => (i % (1 + (Math.floor(i / 997) % 17))) * 13 + (r() < 0.01 ? 7 : 0));
  const text = new TextEncoder().encode(Array.from({ length: 3000 }, (_, i) => `row ${i % 71}: ${Math.floor(r() * 900)} zarr\n`).join(""));
  return [
    new Uint8Array(0),
    Uint8Array.of(9),
    bytesOf(randomWalkFloat32(64, 512, seed)),
    Uint8Array.from({ length: 70000 }, () => Math.floor(r() * 256)),
    new Uint8Array(200000),
    periods,
    text,
  ];
}

describe("inflate (WASM)", () => {
  test("is the zlib/gzip decoder where there is no node:zlib; node:zlib stays in use on Node", () => {
    assert.equal(deflateBackend().name, "node:zlib");
    assert.equal(kernelDeflateBackend.name, "wasm-kernel");
  });

  test("decodes what zlib writes with every level, strategy, window and memory level, in all three formats", () => {
    const r = seededRandom(3);
    const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
    let cases = 0;
    for (const input of inputs(1)) {
      for (let round = 0; round < 14; round++) {
        const opts = { level: Math.floor(r() * 10), strategy: Math.floor(r() * 5), windowBits: 9 + Math.floor(r() * 7), memLevel: 1 + Math.floor(r() * 9) };
        const format = pick<Format>(["raw", "zlib", "gzip"]);
        const stream = zlibOf(format, input, opts);
        const got = kernelInflate(stream, input.length, format);
        assert.ok(typeof got !== "number" && eq(got, input), `${format} ${JSON.stringify(opts)}, ${input.length} bytes: ${String(got)}`);
        cases++;
      }
    }
    assert.equal(cases, 98);
  });

  test("gzip: concatenated members join; header fields (name, comment, extra, header CRC) are skipped or checked; after a member, data starting with a zero byte is ignored (as zlib does) and anything else refused", () => {
    const a = new TextEncoder().encode("first member, ");
    const b = bytesOf(randomWalkFloat32(8, 256));
    const two = Uint8Array.from([...zlibOf("gzip", a), ...zlibOf("gzip", b)]);
    const got = kernelInflate(two, a.length + b.length, "gzip");
    assert.ok(typeof got !== "number" && eq(got, Uint8Array.from([...a, ...b])));
    assert.equal(typeof kernelInflate(Uint8Array.from([...zlibOf("gzip", a), 1, 2, 3]), 100, "gzip"), "number");
    assert.equal(reference("gzip", Uint8Array.from([...zlibOf("gzip", a), 1, 2, 3])), null);
    for (const tail of [[0], [0, 1, 2, 3], [0, 0x1f, 0x8b]]) {
      const padded = Uint8Array.from([...two, ...tail]);
      assert.ok(eq(reference("gzip", padded)!, Uint8Array.from([...a, ...b])), `node:zlib ignores ${tail.join(",")} after a member`);
      const ours = kernelInflate(padded, a.length + b.length, "gzip");
      assert.ok(typeof ours !== "number" && eq(ours, Uint8Array.from([...a, ...b])), `we ignore ${tail.join(",")} after a member`);
    }
    // A member is a stream of its own: a match may not reach back into the member before it.
    // The second member is a fixed block with one match (length 3, distance 6) and an empty CRC-32.
    const reaching = Uint8Array.from([...zlibOf("gzip", new TextEncoder().encode("hello hello hello")), ...Buffer.from("1f8b08000000000000030312001bf10be503000000", "hex")]);
    assert.equal(reference("gzip", reaching), null, "node:zlib refuses it");
    assert.equal(kernelInflate(reaching, 100, "gzip"), -8);
    // A header with FEXTRA, FNAME, FCOMMENT and FHCRC, the header CRC computed here.
    const body = zlibOf("gzip", b).subarray(10);
    const head = [0x1f, 0x8b, 8, 0x04 | 0x08 | 0x10 | 0x02, 0, 0, 0, 0, 0, 3, 3, 0, 1, 2, 3, ...new TextEncoder().encode("name.bin"), 0, ...new TextEncoder().encode("a comment"), 0];
    const crc = zlib.crc32(Uint8Array.from(head)) & 0xffff;
    const full = Uint8Array.from([...head, crc & 255, crc >> 8, ...body]);
    assert.ok(eq(reference("gzip", full)!, b), "node:zlib reads the hand-made header");
    const ours = kernelInflate(full, b.length, "gzip");
    assert.ok(typeof ours !== "number" && eq(ours, b));
    const badCrc = full.slice();
    badCrc[head.length] ^= 1;
    assert.equal(reference("gzip", badCrc), null);
    assert.equal(kernelInflate(badCrc, b.length, "gzip"), -5);
    // zlib: trailing bytes after the stream are ignored, as node:zlib and pako do; a preset
    // dictionary is refused.
    const z = zlibOf("zlib", a);
    const trailing = kernelInflate(Uint8Array.from([...z, 7, 7, 7]), a.length, "zlib");
    assert.ok(typeof trailing !== "number" && eq(trailing, a));
    const withDict = zlib.deflateSync(a, { dictionary: Buffer.from("first") });
    assert.equal(kernelInflate(new Uint8Array(withDict), a.length, "zlib"), -3);
  });

  test("a stream of 200,000 empty fixed-code blocks and a last one decodes as zlib decodes it (its speed, once 10.4 s, is a benchmark's matter, not a test's)", () => {
    // 200,000 empty fixed blocks (BFINAL 0, BTYPE 01, end of block: 10 bits each), then a final
    // fixed block holding 'A' (code 0x71 in 8 bits, written most significant bit first).
    const blocks = 200000;
    const raw = new Uint8Array(Math.ceil((blocks * 10 + 3 + 8 + 7) / 8));
    let bit = 0;
    const put = (value: number, width: number): void => {
      for (let i = 0; i < width; i++, bit++) if ((value >> i) & 1) raw[bit >> 3] |= 1 << (bit & 7);
    };
    const putCode = (code: number, width: number): void => {
      for (let i = width - 1; i >= 0; i--) put((code >> i) & 1, 1);
    };
    for (let i = 0; i < blocks; i++) {
      put(0, 1);
      put(1, 2);
      putCode(0, 7);
    }
    put(1, 1);
    put(1, 2);
    putCode(0x30 + 0x41, 8);
    putCode(0, 7);
    assert.equal(Buffer.from(zlib.inflateRawSync(raw)).toString(), "A", "node:zlib reads the hand-made stream");
    const got = kernelInflate(raw, 16, "raw");
    assert.ok(typeof got !== "number" && Buffer.from(got).toString() === "A");
  });

  test("damaged streams: the same verdict as zlib (refused, or the same bytes), never a write outside the output", () => {
    const r = seededRandom(9);
    let refused = 0;
    let rounds = 0;
    for (const input of inputs(2)) {
      for (const format of ["raw", "zlib", "gzip"] as Format[]) {
        const stream = zlibOf(format, input, { level: 1 + (rounds % 9) });
        for (let k = 0; k < 30; k++, rounds++) {
          const bad = stream.slice();
          for (let j = 0; j < 1 + Math.floor(r() * 3); j++) if (bad.length > 0) bad[Math.floor(r() * bad.length)] ^= 1 + Math.floor(r() * 255);
          const cut = k % 3 === 0 ? bad.subarray(0, Math.floor(r() * bad.length)) : bad;
          const want = reference(format, cut);
          const got = kernelInflate(cut, Math.max(input.length, want?.length ?? 0) + 64, format);
          if (want === null) {
            assert.equal(typeof got, "number", `${format} round ${rounds}: zlib refuses it, we decoded it`);
            refused++;
          } else {
            assert.ok(typeof got !== "number" && eq(got, want), `${format} round ${rounds}: zlib decodes it, we ${typeof got === "number" ? `refused (${got})` : "differ"}`);
          }
        }
      }
    }
    assert.ok(refused > 300, `${refused} of ${rounds} damaged streams refused`);
  });

  test("through the backend: inflateAny and inflateInto give CorruptChunkError for damage and over-long streams; blosc-zlib and zlib arrays read", async () => {
    const previous = setDeflateBackend(kernelDeflateBackend);
    try {
      assert.equal(deflateBackend(), kernelDeflateBackend);
      // As in a browser, pako (this backend's encoder) is not loaded yet: the codecs load it on
      // first use, so a write and a read work without the caller preparing anything.
      const data = bytesOf(randomWalkFloat32(128, 256));
      const compressors: Record<string, string | number>[] = [{ id: "zlib", level: 4 }, { id: "blosc", cname: "zlib", clevel: 5, shuffle: 1 }];
      for (const compressor of compressors) {
        const a = await createArray(new MemoryStore(), { shape: [300, 200], chunks: [128, 128], dtype: "<f4", zarrFormat: 2, compressor });
        const values = randomWalkFloat32(300, 200, 5);
        await a.set(null, { data: values, shape: [300, 200] }, { threads: 0 });
        assert.deepEqual(((await a.get(null, { threads: 0 })) as NDArray<Float32Array>).data, values, String(compressor.id));
      }
      const v3 = await createArray(new MemoryStore(), { shape: [64], dtype: "uint8", codecs: [{ name: "bytes" }, { name: "gzip", configuration: { level: 1 } }] });
      await v3.set(null, { data: Uint8Array.from({ length: 64 }, (_, i) => i), shape: [64] }, { threads: 0 });
      assert.equal(((await v3.get(null, { threads: 0 })) as NDArray<Uint8Array>).data[63], 63);
      assert.equal(deflateReady(), undefined, "pako is loaded");
      for (const format of ["zlib", "gzip"] as const) {
        const stream = zlibOf(format, data, { level: 6 });
        assert.ok(eq(inflateAny(stream, "t", data.length * 2), data));
        const dest = new Uint8Array(data.length);
        assert.equal(inflateInto(stream, dest, "t"), data.length);
        assert.ok(eq(dest, data));
        assert.throws(() => inflateInto(stream, new Uint8Array(data.length - 1), "t"), CorruptChunkError, `${format}: longer than dest`);
        assert.equal(inflateInto(stream, new Uint8Array(data.length + 9), "t"), data.length, `${format}: room to spare`);
        const bad = stream.slice();
        bad[bad.length - 3] ^= 0x40;
        assert.throws(() => inflateAny(bad, "t", data.length * 2), (e: unknown) => e instanceof CorruptChunkError && /does not match/.test(e.message), `${format}: checksum`);
        assert.throws(() => inflateAny(stream.subarray(0, 40), "t", data.length * 2), CorruptChunkError, `${format}: cut`);
        // Without a size bound it is pako's (the kernel needs one to size its output).
        assert.ok(eq(format === "zlib" ? kernelDeflateBackend.inflate(stream) : kernelDeflateBackend.gunzip(stream), data));
      }
      for (const shuffle of [0, 1] as const) {
        const frame = await bloscEncode(data, { cname: "zlib", clevel: 5, shuffle, typesize: 4, blocksize: 0 });
        assert.ok(eq(await bloscDecode(frame), data), `blosc-zlib shuffle ${shuffle}`);
      }
      // Streams written by pako (the encoder this backend keeps) read back.
      assert.ok(eq(inflateAny(pakoBackend.deflate(data, 9), "t", data.length), data));
      assert.ok(nativeDeflateBackend() !== null);
    } finally {
      setDeflateBackend(previous);
    }
  });
});
