/**
 * Our own zstd decoder (src/codecs/wasm/zstd-decode.c, in the WASM kernels' module), the
 * decoding backend where the runtime has no native zstd. It must decode what libzstd writes,
 * byte for byte: frames the zstd command wrote (committed, so this runs on Node 20 too), frames
 * from zarr-python's numcodecs (zstd-backends.test.ts), and, where node:zlib has zstd, frames
 * written with a spread of libzstd's parameters. Damaged frames must give a CorruptChunkError,
 * never a write outside the output.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CorruptChunkError } from "../src/errors.js";
import {
  kernelZstdBackend,
  nativeZstdBackend,
  setZstdBackend,
  wasmZstdBackend,
  zstdBackend,
  zstdCompress,
  zstdDecompress,
  zstdDecompressInto,
} from "../src/codecs/zstd.js";
import { align16, wasmKernels } from "../src/codecs/wasm/wasm.js";
import { bloscDecode, bloscEncode } from "../src/codecs/blosc/blosc.js";
import { bytesOf, randomWalkFloat32, seededRandom } from "../bench/compare/data.js";
import { ZSTD_INPUTS } from "./helpers/zstd-inputs.js";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { createArray, openArray, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const FIXTURES = join(import.meta.dirname, "fixtures/zstd-cli");
const manifest = JSON.parse(readFileSync(join(FIXTURES, "manifest.json"), "utf8")) as {
  frames: { file: string; input: string; options: string[] }[];
  concatenated: { file: string; inputs: string[] };
};
const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const fixture = (file: string): Uint8Array => new Uint8Array(readFileSync(join(FIXTURES, file)));

/** node:zlib's zstd, typed here (the @types/node in use is Node 20's, which has none). */
type NodeZstd = {
  zstdCompressSync(b: Uint8Array, o: { params: Record<number, number> }): Uint8Array;
  zstdDecompressSync(b: Uint8Array): Uint8Array;
  constants: Record<string, number>;
};
const z = process.getBuiltinModule("node:zlib") as unknown as Partial<NodeZstd>;
const noNative = z.zstdCompressSync === undefined ? `no zstd in node:zlib on Node ${process.version}` : false;

const GUARD = 64;

/**
 * The kernel on its own, with guard bytes around the input and past the output's slack: returns
 * the decoded bytes or the negative fault code, and fails when anything outside was written.
 */
function kernelDecode(frame: Uint8Array, cap: number): Uint8Array | number {
  const k = wasmKernels();
  assert.ok(k !== null, "the WASM kernels load here");
  const srcAt = GUARD;
  const outAt = align16(srcAt + frame.length + 16);
  const end = outAt + cap + 32;
  const scratch = k.reserve(end + GUARD);
  scratch.fill(0xa5, 0, end + GUARD);
  scratch.set(frame, srcAt);
  const n = k.zstdDecompress(srcAt, frame.length, outAt, cap);
  const after = k.reserve(end + GUARD);
  for (let i = 0; i < srcAt; i++) assert.equal(after[i], 0xa5, "written before the input");
  assert.ok(eq(after.subarray(srcAt, srcAt + frame.length), frame), "the input was changed");
  for (let i = end; i < end + GUARD; i++) assert.equal(after[i], 0xa5, "written past the output's slack");
  if (n < 0) return n;
  assert.ok(n <= cap, `decoded ${n} bytes into room for ${cap}`);
  return after.slice(outAt, outAt + n);
}

/** A block of a hand-made frame: raw bytes, one byte repeated, or a compressed block's body. */
type HandBlock = { type: 0 | 1 | 2; size: number; body: number[] };
const rawBlock = (bytes: number[]): HandBlock => ({ type: 0, size: bytes.length, body: bytes });
const rleBlock = (byte: number, size: number): HandBlock => ({ type: 1, size, body: [byte] });
const compressedBlock = (body: number[]): HandBlock => ({ type: 2, size: body.length, body });

/** A zstd frame made by hand: a window descriptor and no content size, then the blocks. */
function handFrame(windowDescriptor: number, blocks: HandBlock[]): Uint8Array {
  const out = [0x28, 0xb5, 0x2f, 0xfd, 0x00, windowDescriptor];
  blocks.forEach((b, i) => {
    const header = (i === blocks.length - 1 ? 1 : 0) | (b.type << 1) | (b.size << 3);
    out.push(header & 255, (header >> 8) & 255, header >> 16, ...b.body);
  });
  return Uint8Array.from(out);
}

/**
 * A compressed block whose literals are `n` letters "abab..." Huffman-coded in four streams (the
 * tree given directly: weight 1 for 'a' at symbol 97, 'b' implied; 'a' is code 0, 'b' code 1),
 * and no sequences.
 */
function fourStreamLiterals(n: number): number[] {
  const tree = [127 + 98, ...new Array<number>(48).fill(0), 0x01];
  const seg = (n + 3) >> 2;
  const streams = [0, 1, 2, 3].map((k) => {
    const count = Math.max(0, k < 3 ? Math.min(seg, n - k * seg) : n - 3 * seg);
    // The first symbol is read first: it sits just below the end marker, in the highest bits.
    let value = 1n;
    for (let i = 0; i < count; i++) value = (value << 1n) | BigInt((k * seg + i) % 2);
    const bytes: number[] = [];
    for (let v = value; v > 0n; v >>= 8n) bytes.push(Number(v & 255n));
    return bytes;
  });
  const body = [...tree, streams[0].length, 0, streams[1].length, 0, streams[2].length, 0, ...streams.flat()];
  const header = 2 | (1 << 2) | (n << 4) | (body.length << 14);
  return [header & 255, (header >> 8) & 255, header >> 16, ...body, 0];
}

describe("zstd decoder (WASM)", () => {
  test("is the decoding backend where there is no native zstd", () => {
    assert.equal(zstdBackend().name, nativeZstdBackend() === null ? "wasm-kernel" : "node:zlib");
  });

  test("decodes the zstd command's frames exactly: levels -5 to 22, long mode, small blocks, with and without checksum and content size", async () => {
    assert.ok(manifest.frames.length >= 14);
    for (const { file, input, options } of manifest.frames) {
      const want = ZSTD_INPUTS[input]();
      const frame = fixture(file);
      const got = kernelDecode(frame, want.length);
      assert.ok(typeof got !== "number", `${file} (${options.join(" ")}): fault ${String(got)}`);
      assert.ok(eq(got, want), `${file} (${options.join(" ")})`);
      // Through the backend, with and without an expected size.
      assert.ok(eq(await kernelZstdBackend.decompress(frame, want.length), want), file);
      assert.ok(eq(await kernelZstdBackend.decompress(frame, undefined), want), `${file}, size from the frame`);
    }
    const { file, inputs } = manifest.concatenated;
    const want = inputs.map((i) => ZSTD_INPUTS[i]());
    const whole = new Uint8Array(want[0].length + want[1].length);
    whole.set(want[0]);
    whole.set(want[1], want[0].length);
    assert.ok(eq(await kernelZstdBackend.decompress(fixture(file), undefined), whole), "two frames");
  });

  test("skips skippable frames, and refuses frames that need a dictionary", () => {
    const frame = fixture("00-text.zst");
    const want = ZSTD_INPUTS.text();
    const skippable = Uint8Array.of(0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9);
    const got = kernelDecode(Uint8Array.from([...skippable, ...frame, ...skippable]), want.length);
    assert.ok(typeof got !== "number" && eq(got, want));
    // Dictionary_ID_flag 1 with a non-zero id: the header grows by one byte.
    const withDict = Uint8Array.from([...frame.subarray(0, 4), frame[4] | 1, ...frame.subarray(5, 6), 7, ...frame.subarray(6)]);
    assert.equal(kernelDecode(withDict, want.length), -3);
  });

  test("refuses what libzstd refuses: a window over 2 GiB, a block larger than its window, four literal streams for under 6 literals, FSE weights without their initial states", () => {
    const bytes = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 7) & 255);
    const text = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i % 2 ? 98 : 97));
    // [frame, what it decodes to or null for refused, the fault code when refused]
    const cases: [string, Uint8Array, Uint8Array | null, number?][] = [
      ["window 2^31", handFrame((31 - 10) << 3, [rawBlock(bytes(5))]), Uint8Array.from(bytes(5))],
      ["window 2^32", handFrame((32 - 10) << 3, [rawBlock(bytes(5))]), null, -12],
      ["window 2^41", handFrame(0xf8, [rawBlock(bytes(5))]), null, -12],
      ["raw block of 1024 in a 1 KiB window", handFrame(0, [rawBlock(bytes(1024))]), Uint8Array.from(bytes(1024))],
      ["raw block of 1025 in a 1 KiB window", handFrame(0, [rawBlock(bytes(1025))]), null, -12],
      ["raw block of 1025 in a 1152-byte window", handFrame(1, [rawBlock(bytes(1025))]), Uint8Array.from(bytes(1025))],
      ["RLE block of 1025 in a 1 KiB window", handFrame(0, [rleBlock(65, 1025)]), null, -12],
      ["two blocks of 1024 in a 1 KiB window", handFrame(0, [rleBlock(65, 1024), rawBlock(bytes(1024))]), Uint8Array.from([...new Array<number>(1024).fill(65), ...bytes(1024)])],
      // RLE literals (type 1, 12-bit size) and no sequences: the block decodes to 1000 or 2000 bytes.
      ["compressed block of 1000 in a 1 KiB window", handFrame(0, [compressedBlock([1 | (1 << 2) | ((1000 & 15) << 4), 1000 >> 4, 66, 0])]), new Uint8Array(1000).fill(66)],
      ["compressed block of 2000 in a 1 KiB window", handFrame(0, [compressedBlock([1 | (1 << 2) | ((2000 & 15) << 4), 2000 >> 4, 66, 0])]), null, -12],
      ["6 literals in 4 streams", handFrame(0, [compressedBlock(fourStreamLiterals(6))]), text(6)],
      ["40 literals in 4 streams", handFrame(0, [compressedBlock(fourStreamLiterals(40))]), text(40)],
      ["5 literals in 4 streams", handFrame(0, [compressedBlock(fourStreamLiterals(5))]), null, -6],
      // One Huffman stream of 4 literals (header: type 2, 10-bit sizes, 4 regenerated, 6
      // compressed), its weights FSE-coded: 4 bytes, a table description (accuracy 5, all 32
      // states weight 1: 0x10 0xf8 0x01), then a bit stream holding only its end marker, so the
      // two initial states are not there. Then the Huffman stream and no sequences.
      ["FSE weights without initial states", handFrame(0, [compressedBlock([66, 128, 1, 4, 0x10, 0xf8, 0x01, 0x01, 0x47, 0])]), null, -6],
    ];
    for (const [name, frame, want, fault] of cases) {
      const got = kernelDecode(frame, 4096);
      if (want === null) assert.equal(got, fault, name);
      else assert.ok(typeof got !== "number" && eq(got, want), `${name}: ${typeof got === "number" ? `fault ${got}` : "other bytes"}`);
      // libzstd (node:zlib, Node >= 22.15) agrees, but for windows it refuses above 2^27 by default.
      if (z.zstdDecompressSync !== undefined && !name.startsWith("window")) {
        let native: Uint8Array | null;
        try {
          native = new Uint8Array(z.zstdDecompressSync(frame));
        } catch {
          native = null;
        }
        assert.ok(want === null ? native === null : native !== null && eq(native, want), `${name}: libzstd ${native === null ? "refuses it" : "decodes it"}`);
      }
    }
  });

  test("decodes what libzstd writes with a spread of parameters (node:zlib)", { skip: noNative }, () => {
    const { zstdCompressSync, constants: C } = z as NodeZstd;
    const r = seededRandom(77);
    const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
    const inputs = [...Object.values(ZSTD_INPUTS).map((f) => f()), bytesOf(randomWalkFloat32(512, 512, 3))];
    let cases = 0;
    for (let round = 0; round < 120; round++) {
      const input = pick(inputs);
      const params: Record<number, number> = {
        [C.ZSTD_c_compressionLevel]: pick([-20, -3, 1, 2, 3, 5, 9, 13, 16, 19, 22]),
        [C.ZSTD_c_checksumFlag]: pick([0, 1]),
        [C.ZSTD_c_contentSizeFlag]: pick([0, 1]),
      };
      if (r() < 0.3) params[C.ZSTD_c_windowLog] = pick([10, 12, 17, 20, 27]);
      if (r() < 0.3) params[C.ZSTD_c_strategy] = pick([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      if (r() < 0.2) params[C.ZSTD_c_minMatch] = pick([3, 4, 7]);
      if (r() < 0.2) params[C.ZSTD_c_enableLongDistanceMatching] = 1;
      const frame = zstdCompressSync(input, { params });
      const got = kernelDecode(frame, input.length);
      assert.ok(typeof got !== "number", `round ${round} ${JSON.stringify(params)}: fault ${String(got)}`);
      assert.ok(eq(got, input), `round ${round} ${JSON.stringify(params)}`);
      cases++;
    }
    assert.equal(cases, 120);
  });

  test("damaged frames give a fault code or the wrong bytes caught by the checksum, and never write outside the output", () => {
    const r = seededRandom(5);
    const frames = [fixture("00-text.zst"), fixture("07-ramps.zst"), fixture("05-walk.zst"), fixture("11-mixed.zst")];
    const inputs = [ZSTD_INPUTS.text(), ZSTD_INPUTS.ramps(), ZSTD_INPUTS.walk(), ZSTD_INPUTS.mixed()];
    let faults = 0;
    for (let round = 0; round < 600; round++) {
      const i = round % frames.length;
      const bad = frames[i].slice();
      const kind = round % 3;
      if (kind === 0) {
        for (let k = 0; k < 1 + Math.floor(r() * 4); k++) bad[Math.floor(r() * bad.length)] ^= 1 + Math.floor(r() * 255);
      } else if (kind === 1) {
        bad[4 + Math.floor(r() * 60)] = Math.floor(r() * 256);
      }
      const cut = kind === 2 ? bad.subarray(0, Math.floor(r() * bad.length)) : bad;
      const got = kernelDecode(cut, inputs[i].length);
      if (typeof got === "number") {
        assert.ok(got < 0 && got >= -12, `fault code ${got}`);
        faults++;
      } else {
        // Frames 00, 07 and 11 carry checksums: damage that decodes must still decode right.
        if (i !== 2) assert.ok(eq(got, inputs[i]), `round ${round}: wrong bytes without a fault`);
      }
    }
    assert.ok(faults > 400, `${faults} faults in 600 damaged frames`);
  });

  test("through zstdDecompress: faults become CorruptChunkError naming them; output caps hold", async () => {
    const previous = setZstdBackend(kernelZstdBackend);
    try {
      const frame = fixture("00-text.zst");
      const want = ZSTD_INPUTS.text();
      assert.ok(eq(await zstdDecompress(frame, want.length), want));
      const bad = frame.slice();
      bad[bad.length - 1] ^= 0xff; // the checksum's last byte
      await assert.rejects(zstdDecompress(bad, want.length), (e: unknown) => e instanceof CorruptChunkError && /checksum does not match/.test(e.message));
      const noSize = fixture("03-text.zst");
      await assert.rejects(zstdDecompress(noSize, undefined, 1000), (e: unknown) => e instanceof CorruptChunkError && /limit/.test(e.message));
      // Into place: exactly the declared size, or declined for the checked path.
      const dest = new Uint8Array(new SharedArrayBuffer(want.length + 16), 8, want.length);
      assert.equal(zstdDecompressInto(frame, dest), true);
      assert.ok(eq(dest, want));
      assert.equal(zstdDecompressInto(bad, dest), false);
      assert.equal(zstdDecompressInto(noSize, dest), false, "no declared size");
    } finally {
      setZstdBackend(previous);
    }
  });

  test("blosc-zstd frames decode through it", async () => {
    const previous = setZstdBackend(kernelZstdBackend);
    try {
      const walk = bytesOf(randomWalkFloat32(256, 512, 4));
      for (const shuffle of [0, 1, 2] as const) {
        const frame = await bloscEncode(walk, { cname: "zstd", clevel: 5, shuffle, typesize: 4, blocksize: 0 });
        assert.ok(eq(await bloscDecode(frame), walk), `shuffle ${shuffle}`);
      }
    } finally {
      setZstdBackend(previous);
    }
  });

  test("zstd with \"checksum\": true writes libzstd's checksummed frames; every decoder and zarrita.js read them, and damage is caught", async () => {
    const values = Float32Array.from({ length: 96 * 80 }, (_, i) => Math.sin(i / 7) * 100);
    const dir = scratchDir();
    const a = await createArray(join(dir, "sum.zarr"), {
      shape: [96, 80],
      chunks: [40, 40],
      dtype: "float32",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 5, checksum: true } }],
    });
    await a.set(null, { data: values, shape: [96, 80] }, { threads: 0 });
    const frame = new Uint8Array(readFileSync(join(dir, "sum.zarr/c/0/0")));
    assert.equal(frame[4] & 0x04, 0x04, "the frame header says a checksum follows");
    const chunk = new Float32Array(40 * 40);
    for (let r = 0; r < 40; r++) chunk.set(values.subarray(r * 80, r * 80 + 40), r * 40);
    const raw = bytesOf(chunk);
    // The same bytes as libzstd asked for a checksum, where node:zlib has zstd.
    if (z.zstdCompressSync !== undefined) {
      const { zstdCompressSync, constants: C } = z as NodeZstd;
      const want = zstdCompressSync(raw, { params: { [C.ZSTD_c_compressionLevel]: 5, [C.ZSTD_c_checksumFlag]: 1 } });
      assert.ok(eq(frame, want), "libzstd's checksummed frame");
    }
    for (const backend of [nativeZstdBackend(), kernelZstdBackend, wasmZstdBackend]) {
      if (backend === null) continue;
      const previous = setZstdBackend(backend);
      try {
        assert.ok(eq(await zstdDecompress(frame, raw.length), raw), backend.name);
        const got = (await (await openArray(join(dir, "sum.zarr"), { mode: "r" })).get(null, { threads: 0 })) as NDArray<Float32Array>;
        assert.deepEqual(got.data, values, backend.name);
        // One flipped byte in the checksum: each decoder refuses the chunk.
        const bad = frame.slice();
        bad[bad.length - 2] ^= 0x10;
        await assert.rejects(zstdDecompress(bad, raw.length), CorruptChunkError, backend.name);
      } finally {
        setZstdBackend(previous);
      }
    }
    const store = new ZarritaFileSystemStore(dir);
    const theirs = await zarrita.get(await zarrita.open(zarrita.root(store).resolve("sum.zarr"), { kind: "array" }));
    assert.deepEqual(Array.from(theirs.data as Float32Array), Array.from(values), "zarrita.js reads it");
    // Unchanged without the flag: the plain frame, no checksum.
    assert.equal((await zstdCompress(raw, 5))[4] & 0x04, 0);
  });
});
