/**
 * Fast paths and their fallbacks give identical results: node:zlib and pako write the same zlib and
 * gzip bytes at every level and read every fixture chunk the same; blosc's zlib streams decode the
 * same through either; what either writes decodes in numcodecs (zarr-python's codecs); and where
 * c-blosc's output is deterministic and its compressor is the one we use (raw-stored frames,
 * libzstd), our blosc encoder writes numcodecs' exact bytes. The WASM SIMD byte shuffle and the
 * JavaScript one write the same bytes and frames.
 */
import { describe, test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CorruptChunkError } from "../src/errors.js";
import { bloscDecode, bloscDecodeInto, bloscEncode, bloscHeader, type BloscCname } from "../src/codecs/blosc/blosc.js";
import { byteShuffle, byteUnshuffle } from "../src/codecs/blosc/shuffle.js";
import { kernelsModuleBytes, setWasmKernels, wasmKernels } from "../src/codecs/wasm/wasm.js";
import {
  deflateBackend,
  gzipCompress,
  inflateAny,
  inflateInto,
  nativeDeflateBackend,
  kernelDeflateBackend,
  setDeflateBackend,
  zlibCompress,
  type DeflateBackend,
} from "../src/codecs/deflate.js";
import { pakoBackend } from "../src/codecs/pako-backend.js";
import { ScratchLease } from "../src/scratch.js";
import { bytesOf, randomWalkFloat32, seededRandom } from "../bench/compare/data.js";
import { setZstdBackend, wasmZstdBackend } from "../src/codecs/zstd.js";
import { FIXTURES } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const native = nativeDeflateBackend();
const eqBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

function randomBytes(n: number, seed: number): Uint8Array {
  const r = seededRandom(seed);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * 256);
  return out;
}

/** Inputs that exercise stored, fixed and dynamic Huffman blocks and the window's edges. */
const INPUTS: [string, Uint8Array][] = [
  ["empty", new Uint8Array(0)],
  ["one byte", Uint8Array.of(42)],
  ["float32 walk, 128 KiB", bytesOf(randomWalkFloat32(32, 1024))],
  ["text, 120 KB", new TextEncoder().encode("the quick brown fox jumps over the lazy dog. ".repeat(2700))],
  ["random, 70 KB", randomBytes(70000, 3)],
  ["zeros then random, 100 KB", (() => {
    const b = new Uint8Array(100000);
    b.set(randomBytes(30000, 4), 70000);
    return b;
  })()],
];

/** Runs `fn` with every zlib/gzip operation on `backend`. */
async function using<T>(backend: DeflateBackend, fn: () => Promise<T> | T): Promise<T> {
  const previous = setDeflateBackend(backend);
  try {
    return await fn();
  } finally {
    setDeflateBackend(previous);
  }
}

/** Chunk files (any depth) of every v2 array under `root`, with its compressor. */
function v2Arrays(root: string): { dir: string; compressor: { id: string; cname?: string } | null; keys: string[] }[] {
  const found: { dir: string; compressor: { id: string; cname?: string } | null; keys: string[] }[] = [];
  const chunkKeys = (dir: string, prefix = ""): string[] =>
    readdirSync(join(dir, prefix)).filter((n) => !n.startsWith(".") && n !== "zarr.json").flatMap((n) => {
      const key = prefix ? `${prefix}/${n}` : n;
      return statSync(join(dir, key)).isDirectory() ? chunkKeys(dir, key) : [key];
    });
  const visit = (dir: string): void => {
    const zarray = join(dir, ".zarray");
    if (existsSync(zarray)) {
      const meta = JSON.parse(readFileSync(zarray, "utf8")) as { compressor: { id: string; cname?: string } | null };
      found.push({ dir, compressor: meta.compressor, keys: chunkKeys(dir) });
      return;
    }
    for (const d of readdirSync(dir, { withFileTypes: true })) if (d.isDirectory()) visit(join(dir, d.name));
  };
  visit(root);
  return found;
}

const seededRandomBytes = (seed: number): (() => number) => {
  const r = seededRandom(seed);
  return () => Math.floor(r() * 256);
};

describe("deflate backends", () => {
  test("on Node the native backend is the one in use", () => {
    assert.ok(native !== null, "node:zlib should be available on Node");
    assert.equal(deflateBackend().name, "node:zlib");
    assert.equal(pakoBackend.name, "pako");
  });

  test("node:zlib and pako write the same zlib and gzip bytes at every level", { skip: native === null ? "no native backend" : false }, () => {
    for (const [name, input] of INPUTS) {
      for (let level = 0; level <= 9; level++) {
        const z = native!.deflate(input, level);
        assert.ok(eqBytes(z, pakoBackend.deflate(input, level)), `zlib level ${level}, ${name}`);
        const g = native!.gzip(input, level);
        assert.ok(eqBytes(g, pakoBackend.gzip(input, level)), `gzip level ${level}, ${name}`);
        // And each reads the other's stream back to the input.
        assert.ok(eqBytes(pakoBackend.inflate(z), input), `pako inflates node's zlib level ${level}, ${name}`);
        assert.ok(eqBytes(native!.gunzip(pakoBackend.gzip(input, level)), input), `node gunzips pako's gzip level ${level}, ${name}`);
      }
    }
  });

  test("zlibCompress and gzipCompress (a reused native stream into scratch) write what pako and node:zlib's one-shot functions write", () => {
    const lease = new ScratchLease();
    try {
      for (const [name, input] of INPUTS) {
        for (let level = 0; level <= 9; level++) {
          // Twice each: the second use of a level's context starts from a reset, not a fresh one.
          for (let round = 0; round < 2; round++) {
            assert.ok(eqBytes(zlibCompress(input, level), pakoBackend.deflate(input, level)), `zlib level ${level}, ${name}, round ${round}`);
            assert.ok(eqBytes(gzipCompress(input, level), pakoBackend.gzip(input, level)), `gzip level ${level}, ${name}, round ${round}`);
          }
          const leased = zlibCompress(input, level, lease);
          assert.ok(eqBytes(leased, pakoBackend.deflate(input, level)), `leased zlib level ${level}, ${name}`);
          if (native !== null && level > 0) assert.ok(lease.owns(leased), "under a lease the result is a view of scratch");
        }
      }
      // Incompressible input: stored blocks grow it; the bound leaves room.
      const noise = Uint8Array.from({ length: 1 << 20 }, seededRandomBytes(7));
      assert.ok(eqBytes(zlibCompress(noise, 9), pakoBackend.deflate(noise, 9)));
    } finally {
      lease.release();
    }
  });

  test("every zlib and gzip chunk in the fixtures inflates to the same bytes through both", async () => {
    let chunks = 0;
    for (const a of v2Arrays(FIXTURES)) {
      if (a.compressor === null || (a.compressor.id !== "zlib" && a.compressor.id !== "gzip")) continue;
      for (const key of a.keys) {
        const src = new Uint8Array(readFileSync(join(a.dir, key)));
        const viaDefault = inflateAny(src, "test");
        const viaPako = await using(pakoBackend, () => inflateAny(src, "test"));
        assert.ok(eqBytes(viaDefault, viaPako), `${a.dir}/${key}`);
        // Our WASM inflate (the browser's decoder) needs a bound, as the codecs always give.
        const viaKernel = await using(kernelDeflateBackend, () => inflateAny(src, "test", viaDefault.length));
        assert.ok(eqBytes(viaDefault, viaKernel), `${a.dir}/${key}, WASM inflate`);
        chunks++;
      }
    }
    // zarr-python 2.13's zlib1/gzip5 (C and F), its fill and filter arrays, z5py's and zarr.zr's.
    assert.ok(chunks >= 60, `${chunks} chunks compared`);
  });

  test("blosc frames with zlib streams decode the same through both backends", async () => {
    let frames = 0;
    for (const a of v2Arrays(FIXTURES)) {
      if (a.compressor?.id !== "blosc") continue;
      for (const key of a.keys) {
        const src = new Uint8Array(readFileSync(join(a.dir, key)));
        if (bloscHeader(src).flags >>> 5 !== 3) continue;
        const viaDefault = await bloscDecode(src);
        const viaPako = await using(pakoBackend, () => bloscDecode(src));
        assert.ok(eqBytes(viaDefault, viaPako), `${a.dir}/${key}`);
        assert.ok(eqBytes(viaDefault, await using(kernelDeflateBackend, () => bloscDecode(src))), `${a.dir}/${key}, WASM inflate`);
        frames++;
      }
    }
    // And frames we write, several blocks each, split and not.
    const walk = bytesOf(randomWalkFloat32(128, 1024));
    for (const shuffle of [0, 1, 2] as const) {
      for (const clevel of [1, 6, 9]) {
        const opts = { cname: "zlib" as BloscCname, clevel, shuffle, typesize: 4, blocksize: 0 };
        const ours = await bloscEncode(walk, opts);
        const oursPako = await using(pakoBackend, () => bloscEncode(walk, opts));
        assert.ok(eqBytes(ours, oursPako), `blosc zlib encode, shuffle ${shuffle} clevel ${clevel}`);
        for (const decoder of [pakoBackend, kernelDeflateBackend]) {
          const back = new Uint8Array(walk.length);
          await using(decoder, () => bloscDecodeInto(ours, back));
          assert.ok(eqBytes(back, walk), `blosc zlib decode through ${decoder.name}, shuffle ${shuffle} clevel ${clevel}`);
        }
        frames++;
      }
    }
    assert.ok(frames >= 20, `${frames} frames compared`);
  });

  test("inflateInto (this thread's reused native stream straight into dest) fills dest only with a stream of exactly its size", async () => {
    for (const [name, input] of INPUTS) {
      if (input.length < 2) continue;
      for (const gzip of [false, true]) {
        const stream = gzip ? pakoBackend.gzip(input, 6) : pakoBackend.deflate(input, 6);
        const what = `${name} ${gzip ? "gzip" : "zlib"}`;
        // Twice: the second use of the context starts from a reset.
        for (let round = 0; round < 2; round++) {
          const dest = new Uint8Array(input.length).fill(0xee);
          assert.equal(inflateInto(stream, dest, "t"), input.length, what);
          assert.ok(eqBytes(dest, input), `${what}, round ${round}`);
        }
        // One byte short: the stream had more to write, refused as inflateInto promises.
        assert.throws(() => inflateInto(stream, new Uint8Array(input.length - 1), "t"), CorruptChunkError, `${what} into a shorter dest`);
        // Room to spare: the stream ended early.
        assert.equal(inflateInto(stream, new Uint8Array(input.length + 7), "t"), input.length, `${what} into a longer dest`);
        // Cut short: a CorruptChunkError, through both backends, and the context serves the next call.
        for (const backend of [pakoBackend, kernelDeflateBackend, ...(native ? [native] : [])]) {
          await using(backend, () => assert.throws(() => inflateInto(stream.subarray(0, stream.length - 9), new Uint8Array(input.length), "t"), CorruptChunkError, `${backend.name}: ${what} cut`));
        }
        const again = new Uint8Array(input.length);
        inflateInto(stream, again, "t");
        assert.ok(eqBytes(again, input), `${what} after a failure`);
      }
    }
  });

  test("corrupt streams fail the same way through both: CorruptChunkError, and the output cap holds", async () => {
    const good = native?.deflate(INPUTS[2][1], 5) ?? pakoBackend.deflate(INPUTS[2][1], 5);
    const damaged = good.slice();
    damaged[good.length >> 1] ^= 0xff;
    damaged[(good.length >> 1) + 1] ^= 0x55;
    const cases: [string, Uint8Array, number | undefined][] = [
      ["not a stream", Uint8Array.of(1, 2, 3, 4, 5, 6), undefined],
      ["truncated", good.subarray(0, good.length >> 1), undefined],
      ["damaged", damaged, undefined],
      ["longer than the cap", good, 1000],
    ];
    for (const backend of [pakoBackend, kernelDeflateBackend, ...(native ? [native] : [])]) {
      for (const [what, src, cap] of cases) {
        await using(backend, () =>
          assert.throws(() => inflateAny(src, "zlib", cap ?? 1 << 20), (e: unknown) => e instanceof CorruptChunkError && /^zlib: cannot inflate/.test((e as Error).message), `${backend.name}: ${what}`),
        );
      }
    }
  });
});

describe("against numcodecs (zarr-python's codecs)", { skip: zarrPythonSkip() }, () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "parzarr-backends-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("zlib and gzip streams from both backends decode in numcodecs at every level", () => {
    const input = INPUTS[2][1];
    writeFileSync(join(dir, "raw"), input);
    const names: string[] = [];
    for (const backend of [pakoBackend, ...(native ? [native] : [])]) {
      for (let level = 0; level <= 9; level++) {
        writeFileSync(join(dir, `${backend.name.replace(":", "_")}-${level}.zlib`), backend.deflate(input, level));
        writeFileSync(join(dir, `${backend.name.replace(":", "_")}-${level}.gzip`), backend.gzip(input, level));
        names.push(`${backend.name.replace(":", "_")}-${level}`);
      }
    }
    const r = runPython(
      String.raw`
import json, sys, os, numcodecs
d = sys.argv[1]
raw = open(os.path.join(d, "raw"), "rb").read()
bad = []
for name in json.loads(sys.argv[2]):
    for ext, codec in (("zlib", numcodecs.Zlib()), ("gzip", numcodecs.GZip())):
        got = bytes(codec.decode(open(os.path.join(d, name + "." + ext), "rb").read()))
        if got != raw:
            bad.append(name + "." + ext)
print(json.dumps(bad))
`,
      dir,
      JSON.stringify(names),
    );
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), []);
    assert.equal(names.length, native ? 20 : 10);
  });

  test("our blosc frames equal numcodecs.Blosc's bytes where c-blosc's compressor is ours too", async () => {
    // c-blosc run single-threaded (use_threads = False) is deterministic. Its output can equal ours
    // where the bytes do not depend on the compressor's match finder: frames it stores raw
    // (clevel 0, tiny or incompressible input), and zstd, which both sides run through libzstd
    // (numcodecs.js's build and Debian's agree at these levels). LZ4, BloscLZ and zlib streams are
    // our own or another zlib's, valid but not identical: those cases are checked by c-blosc
    // decoding them (test/blosc.test.ts).
    interface Case {
      name: string;
      cname: BloscCname;
      clevel: number;
      shuffle: 0 | 1 | 2;
      dtype: "f4" | "f8" | "u2";
      n: number;
      kind: "walk" | "random";
    }
    const cases: Case[] = [];
    for (const cname of ["lz4", "lz4hc", "blosclz", "zlib", "zstd"] as BloscCname[]) {
      cases.push({ name: `${cname}-clevel0`, cname, clevel: 0, shuffle: 1, dtype: "f4", n: 50000, kind: "walk" });
      cases.push({ name: `${cname}-tiny`, cname, clevel: 5, shuffle: 1, dtype: "f4", n: 20, kind: "walk" });
      cases.push({ name: `${cname}-random`, cname, clevel: 5, shuffle: 1, dtype: "f8", n: 40000, kind: "random" });
    }
    // Unshuffled float32 walks are beyond LZ4 and BloscLZ: c-blosc stores every stream raw.
    for (const cname of ["lz4", "lz4hc", "blosclz"] as BloscCname[]) {
      cases.push({ name: `${cname}-noshuffle-walk`, cname, clevel: 5, shuffle: 0, dtype: "f4", n: 300000, kind: "walk" });
    }
    for (const clevel of [1, 9]) {
      for (const shuffle of [0, 1, 2] as const) {
        for (const dtype of ["f4", "f8", "u2"] as const) {
          // clevel 9 is libzstd level 22: slow on both sides, so a smaller input.
          cases.push({ name: `zstd-c${clevel}-s${shuffle}-${dtype}`, cname: "zstd", clevel, shuffle, dtype, n: clevel === 9 ? 40003 : 200003, kind: "walk" });
        }
      }
    }
    const r = runPython(
      String.raw`
import json, sys, os, zlib
import numpy as np
import numcodecs
from numcodecs import blosc as nb
nb.use_threads = False
d = sys.argv[1]
for c in json.loads(sys.argv[2]):
    rng = np.random.default_rng(zlib.crc32(c["name"].encode()))
    if c["kind"] == "random":
        a = rng.integers(0, 256, c["n"] * np.dtype(c["dtype"]).itemsize, dtype=np.uint8).view(c["dtype"])
    elif c["dtype"] == "u2":
        a = (np.cumsum(rng.integers(-3, 4, c["n"])) % 65536).astype("u2")
    else:
        a = np.cumsum(rng.standard_normal(c["n"])).astype(c["dtype"])
    open(os.path.join(d, c["name"] + ".raw"), "wb").write(a.tobytes())
    frame = numcodecs.Blosc(cname=c["cname"], clevel=c["clevel"], shuffle=c["shuffle"]).encode(a)
    open(os.path.join(d, c["name"] + ".blosc"), "wb").write(frame)
`,
      dir,
      JSON.stringify(cases),
    );
    assert.equal(r.status, 0, r.stderr);
    const differ: string[] = [];
    let rawStored = 0;
    for (const c of cases) {
      const raw = new Uint8Array(readFileSync(join(dir, `${c.name}.raw`)));
      const ref = new Uint8Array(readFileSync(join(dir, `${c.name}.blosc`)));
      const typesize = c.dtype === "f8" ? 8 : c.dtype === "f4" ? 4 : 2;
      // zstd through numcodecs.js's WASM libzstd, the build that agrees with Debian's at these
      // levels; Node 24's native libzstd (1.5.7) writes other, equally valid bytes at clevel 9
      // (test/zstd-backends.test.ts checks that numcodecs reads those).
      const previous = setZstdBackend(wasmZstdBackend);
      const ours = await bloscEncode(raw, { cname: c.cname, clevel: c.clevel, shuffle: c.shuffle, typesize, blocksize: 0 }).finally(() => setZstdBackend(previous));
      if (!eqBytes(ours, ref)) differ.push(`${c.name} (${ours.length} vs ${ref.length} bytes)`);
      if (bloscHeader(ref).flags & 0x02) rawStored++;
    }
    assert.deepEqual(differ, []);
    // The raw-stored cases really were stored raw by c-blosc (else they test nothing special).
    assert.ok(rawStored >= 13, `${rawStored} raw-stored frames`);
  });
});

describe("WASM SIMD byte shuffle (typesize 4)", () => {
  const simd = wasmKernels();

  test("the kernels module validates wherever WebAssembly has SIMD (Node 20 does)", () => {
    assert.equal(WebAssembly.validate(kernelsModuleBytes()), true);
    assert.ok(simd !== null);
  });

  test("shuffle4 and unshuffle4 write exactly what shuffle.ts writes", { skip: simd === null ? "no WASM SIMD" : false }, () => {
    for (const n of [16, 32, 48, 1024, 16 * 1001]) {
      const src = randomBytes(4 * n, n);
      const want = new Uint8Array(4 * n);
      byteShuffle(src, want, 4);
      const m = simd!.reserve(8 * n + 64);
      m.set(src, 0);
      simd!.shuffle4(0, 4 * n + 16, n);
      assert.ok(eqBytes(simd!.reserve(8 * n + 64).subarray(4 * n + 16, 8 * n + 16), want), `shuffle4, ${n} elements`);
      const back = new Uint8Array(4 * n);
      byteUnshuffle(want, back, 4);
      const m2 = simd!.reserve(8 * n + 64);
      m2.set(want, 16);
      simd!.unshuffle4(16, 4 * n + 32, n);
      assert.ok(eqBytes(simd!.reserve(8 * n + 64).subarray(4 * n + 32, 8 * n + 32), src), `unshuffle4, ${n} elements`);
    }
  });

  test("blosc frames are the same bytes with and without SIMD, and decode alike either way", { skip: simd === null ? "no WASM SIMD" : false }, async () => {
    const walk = bytesOf(randomWalkFloat32(96, 1024));
    // Sizes with whole 64-byte blocks, odd leftovers, trailing bytes, forced small blocks.
    const sizes = [walk.length, walk.length - 4, walk.length - 37, 70000, 4096, 100];
    for (const cname of ["lz4", "blosclz", "zlib", "zstd"] as BloscCname[]) {
      for (const n of sizes) {
        for (const blocksize of [0, 4096, 1000]) {
          const src = walk.subarray(0, n);
          const opts = { cname, clevel: 5, shuffle: 1 as const, typesize: 4, blocksize };
          const withSimd = await bloscEncode(src, opts);
          const previous = setWasmKernels(false);
          try {
            const plain = await bloscEncode(src, opts);
            assert.ok(eqBytes(withSimd, plain), `${cname} ${n} bytes, blocksize ${blocksize}: frames differ`);
            const decodedPlain = await bloscDecode(withSimd);
            assert.ok(eqBytes(decodedPlain, src), `${cname} ${n}: JS decode`);
          } finally {
            setWasmKernels(previous);
          }
          const decoded = new Uint8Array(n);
          await bloscDecodeInto(withSimd, decoded);
          assert.ok(eqBytes(decoded, src), `${cname} ${n}: SIMD decode`);
        }
      }
    }
  });

  test("concurrent zstd and lz4 decodes sharing the SIMD scratch do not disturb each other", { skip: simd === null ? "no WASM SIMD" : false }, async () => {
    const a = bytesOf(randomWalkFloat32(64, 1024));
    const b = bytesOf(randomWalkFloat32(64, 1024, 7));
    const fa = await bloscEncode(a, { cname: "zstd", clevel: 3, shuffle: 1, typesize: 4, blocksize: 16384 });
    const fb = await bloscEncode(b, { cname: "lz4", clevel: 5, shuffle: 1, typesize: 4, blocksize: 16384 });
    const results = await Promise.all([bloscDecode(fa), bloscDecode(fb), bloscDecode(fa), bloscDecode(fb)]);
    assert.ok(eqBytes(results[0], a) && eqBytes(results[2], a), "zstd frames");
    assert.ok(eqBytes(results[1], b) && eqBytes(results[3], b), "lz4 frames");
  });
});
