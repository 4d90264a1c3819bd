/**
 * The zstd backends (node:zlib's native libzstd on Node >= 22.15; elsewhere our WASM decoder with
 * numcodecs.js's encoder; numcodecs.js alone) decode to the same bytes, read each other's and
 * numcodecs' frames, fail alike on corrupt input; numcodecs.js is not loaded by importing parzarr.
 * On Node 20 the native half is skipped; `.ci/run` runs this file on Node 24 too, where it runs.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
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
  zstdFrameContentSize,
  type ZstdBackend,
} from "../src/codecs/zstd.js";
import { bloscDecode, bloscEncode } from "../src/codecs/blosc/blosc.js";
import { ScratchLease } from "../src/scratch.js";
import { bytesOf, randomWalkFloat32, seededRandom } from "../bench/compare/data.js";
import { createArray, openArray, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const native = nativeZstdBackend();
const nodeHasZstd = typeof (process.getBuiltinModule?.("node:zlib") as { zstdCompressSync?: unknown } | undefined)?.zstdCompressSync === "function";
const noNative = native === null ? `no zstd in node:zlib on Node ${process.version}` : false;
/** Every backend this runtime has, native first. */
const DECODERS: ZstdBackend[] = native ? [native, kernelZstdBackend, wasmZstdBackend] : [kernelZstdBackend, wasmZstdBackend];
const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

function randomBytes(n: number, seed: number): Uint8Array {
  const r = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

const INPUTS: [string, Uint8Array][] = [
  ["one byte", Uint8Array.of(7)],
  ["float32 walk, 512 KiB", bytesOf(randomWalkFloat32(128, 1024))],
  ["text, 90 KB", new TextEncoder().encode("zarr chunks, compressed. ".repeat(3600))],
  ["random, 200 KB", randomBytes(200000, 11)],
];

async function using<T>(backend: ZstdBackend, fn: () => Promise<T>): Promise<T> {
  const previous = setZstdBackend(backend);
  try {
    return await fn();
  } finally {
    setZstdBackend(previous);
  }
}

describe("zstd backends", () => {
  test("the native backend is used exactly where node:zlib has zstd", () => {
    assert.equal(native !== null, nodeHasZstd);
    assert.equal(zstdBackend().name, nodeHasZstd ? "node:zlib" : "wasm-kernel");
  });

  test("importing parzarr does not load numcodecs.js (its WASM loads on first use, where needed)", () => {
    const script = `
      const z = await import("./src/codecs/zstd.ts");
      await import("./src/index.ts");
      const before = z.wasmZstdLoaded();
      const { createArray } = await import("./src/index.ts");
      const a = await createArray(new (await import("./src/index.ts")).MemoryStore(), { shape: [64], chunks: [64], dtype: "int32", codecs: [{ name: "bytes" }, { name: "zstd", configuration: { level: 1, checksum: false } }] });
      await a.set(null, Int32Array.from({ length: 64 }, (_, i) => i));
      console.log(JSON.stringify({ before, after: z.wasmZstdLoaded(), backend: z.zstdBackend().name }));`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", cwd: join(import.meta.dirname, "..") });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout.trim().split("\n").pop()!) as { before: boolean; after: boolean; backend: string };
    assert.equal(got.before, false, "numcodecs.js loaded at import time");
    // With native zstd it is never needed; without, the first zstd chunk written loads it (our
    // WASM module only decodes).
    assert.equal(got.after, !nodeHasZstd);
    assert.equal(got.backend, nodeHasZstd ? "node:zlib" : "wasm-kernel");
  });

  test("native and numcodecs.js frames decode to the same bytes through every decoder, and both record the content size", { skip: noNative }, async () => {
    // The compressed bytes are equal only where both libzstd builds make the same choices
    // (incompressible or very repetitive input); numcodecs.js's build compresses float data
    // differently (its output size does not change between levels 1 and 9), so only the decoded
    // bytes are compared: they are what "the same data" means for a reader.
    for (const [name, input] of INPUTS) {
      for (const level of [1, 3, 9]) {
        const n = await native!.compress(input, level);
        const w = await wasmZstdBackend.compress(input, level);
        assert.equal(zstdFrameContentSize(n), input.length, `${name}: native frame records its size`);
        assert.equal(zstdFrameContentSize(w), input.length, `${name}: WASM frame records its size`);
        for (const frame of [n, w]) {
          for (const backend of DECODERS) {
            assert.ok(eq(await using(backend, () => zstdDecompress(frame, input.length)), input), `${name}, level ${level}, ${backend.name}`);
          }
        }
      }
    }
  });

  test("zstdCompress of 1 MiB and more (a fresh native context writing into scratch) writes what zstdCompressSync writes, at every level", { skip: noNative }, async () => {
    // The same native backend as a different object: zstdCompress then takes its one-shot path.
    const oneShot: ZstdBackend = { ...native!, compress: (src, level) => native!.compress(src, level) };
    const lease = new ScratchLease();
    try {
      const inputs: [string, Uint8Array][] = [
        ["float32 walk, 2 MiB", bytesOf(randomWalkFloat32(512, 1024))],
        ["text, 1.2 MB", new TextEncoder().encode("zarr chunks, compressed. ".repeat(48000))],
        // Incompressible: the frame is larger than its input, within the room zstdCompress takes.
        ["random, 1 MiB", randomBytes(1 << 20, 5)],
      ];
      for (const [name, input] of inputs) {
        for (const level of [-1, 0, 1, 3, 9]) {
          const want = await using(oneShot, () => zstdCompress(input, level));
          // Twice: each call gets a fresh context, whose level must hold (a reset would drop it).
          for (let round = 0; round < 2; round++) {
            assert.ok(eq(await zstdCompress(input, level), want), `${name}, level ${level}, round ${round}`);
          }
          const leased = await zstdCompress(input, level, lease);
          assert.ok(eq(leased, want), `${name}, level ${level}, leased`);
          assert.ok(lease.owns(leased), "under a lease the result is a view of scratch");
          assert.equal(zstdFrameContentSize(leased), input.length, `${name}: the frame records its size`);
        }
      }
      // Below 1 MiB the one-shot function writes the frame: not scratch.
      const small = bytesOf(randomWalkFloat32(64, 1024));
      assert.equal(lease.owns(await zstdCompress(small, 3, lease)), false);
    } finally {
      lease.release();
    }
  });

  test("a blosc-zstd frame whose stream the in-place decoder declines (no content size) still decodes, through the awaiting path", { skip: noNative }, async () => {
    // One block of shuffled float32, its zstd stream rebuilt without a content size: the reused
    // native context declines it and the checked (awaiting) decoder takes over.
    const walk = bytesOf(randomWalkFloat32(16, 1024));
    const frame = await bloscEncode(walk, { cname: "zstd", clevel: 5, shuffle: 1, typesize: 4, blocksize: walk.length });
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    assert.equal(view.getInt32(8, true), walk.length, "one block");
    const streamAt = view.getInt32(16, true);
    // node:zlib's zstd, typed here: the @types/node in use is Node 20's, which has none.
    const z = process.getBuiltinModule("node:zlib") as unknown as {
      zstdDecompressSync(b: Uint8Array): Uint8Array;
      zstdCompressSync(b: Uint8Array, o: { params: Record<number, number> }): Uint8Array;
      constants: { ZSTD_c_compressionLevel: number; ZSTD_c_contentSizeFlag: number };
    };
    const stream = new Uint8Array(frame.subarray(streamAt + 4, streamAt + 4 + view.getInt32(streamAt, true)));
    const decoded = z.zstdDecompressSync(stream);
    const bare = z.zstdCompressSync(decoded, { params: { [z.constants.ZSTD_c_compressionLevel]: 3, [z.constants.ZSTD_c_contentSizeFlag]: 0 } });
    assert.equal(zstdFrameContentSize(bare), null, "the new stream records no content size");
    const rebuilt = new Uint8Array(streamAt + 4 + bare.length);
    rebuilt.set(frame.subarray(0, streamAt));
    const out = new DataView(rebuilt.buffer);
    out.setInt32(12, rebuilt.length, true); // cbytes
    out.setInt32(streamAt, bare.length, true);
    rebuilt.set(bare, streamAt + 4);
    assert.equal(zstdDecompressInto(bare, new Uint8Array(decoded.length)), false, "declined by the in-place decoder");
    assert.ok(eq(await bloscDecode(rebuilt), walk));
    assert.ok(eq(await bloscDecode(frame), walk), "and the original, in place");
  });

  test("blosc-zstd frames from either backend decode alike through both", { skip: noNative }, async () => {
    const walk = bytesOf(randomWalkFloat32(64, 1024));
    const opts = { cname: "zstd" as const, clevel: 5, shuffle: 1 as const, typesize: 4, blocksize: 0 };
    for (const encoder of [native!, wasmZstdBackend]) {
      const frame = await using(encoder, () => bloscEncode(walk, opts));
      for (const decoder of DECODERS) assert.ok(eq(await using(decoder, () => bloscDecode(frame)), walk), `${encoder.name} -> ${decoder.name}`);
    }
  });

  test("decoding into place (one reused native context, or our WASM decoder) declines, for the checked path, whatever is not one exact frame", async () => {
    const data = bytesOf(randomWalkFloat32(256, 1024));
    const frame = await zstdCompress(data, 3);
    for (const backend of DECODERS.slice(0, -1)) await using(backend, () => intoPlace(data, frame));
  });

  async function intoPlace(data: Uint8Array, frame: Uint8Array): Promise<void> {
    // Into shared memory too, at an offset: where workers decode.
    const dest = new Uint8Array(new SharedArrayBuffer(data.length + 64), 32, data.length);
    assert.equal(zstdDecompressInto(frame, dest), true);
    assert.ok(eq(dest, data));
    const corrupt = frame.slice();
    for (let i = 40; i < corrupt.length; i += 97) corrupt[i] ^= 0x5a;
    const declined: [string, Uint8Array, Uint8Array][] = [
      ["a corrupt frame", corrupt, dest],
      ["a truncated frame", frame.subarray(0, frame.length - 9), dest],
      ["trailing bytes", Uint8Array.from([...frame, 1, 2, 3]), dest],
      ["two frames", Uint8Array.from([...frame, ...frame]), dest],
      ["a destination of another size", frame, new Uint8Array(data.length - 4)],
      ["not a zstd frame", data.subarray(0, 100), dest],
    ];
    for (const [what, src, into] of declined) {
      assert.equal(zstdDecompressInto(src, into), false, what);
      // The context an error left behind is replaced: the next good frame decodes.
      dest.fill(0);
      assert.equal(zstdDecompressInto(frame, dest), true, `after ${what}`);
      assert.ok(eq(dest, data), `after ${what}`);
    }
    // What the checked path says of each declined input that is not a valid frame.
    for (const [what, src] of declined.slice(0, 3)) {
      await assert.rejects(zstdDecompress(src, data.length), CorruptChunkError, what);
    }
    // numcodecs.js forced: into-place declines, so every backend stays testable.
    assert.equal(await using(wasmZstdBackend, async () => zstdDecompressInto(frame, dest)), false);
  }

  test("corrupt and mislabelled frames are CorruptChunkError through both backends", async () => {
    const good = await zstdCompress(bytesOf(randomWalkFloat32(8, 1024)), 3);
    for (const backend of DECODERS) {
      await using(backend, async () => {
        await assert.rejects(zstdDecompress(good, 100), (e: unknown) => e instanceof CorruptChunkError && /declares 32768 bytes, 100 expected/.test(e.message));
        await assert.rejects(zstdDecompress(good.subarray(0, good.length - 5), 32768), CorruptChunkError);
        await assert.rejects(zstdDecompress(Uint8Array.of(1, 2, 3, 4, 5, 6)), CorruptChunkError);
      });
    }
  });
});

describe("zstd against numcodecs (zarr-python)", { skip: zarrPythonSkip() }, () => {
  test("arrays zarr-python writes with Zstd and Blosc-zstd read the same through each backend, and ours read in zarr-python", async () => {
    const dir = scratchDir();
    const r = runPython(
      `import sys, zarr, numcodecs, numpy as np
d = (np.arange(200 * 130, dtype="<f8").reshape(200, 130) * 0.37).round(3)
zarr.open_array(sys.argv[1] + "/zstd.zarr", mode="w", shape=d.shape, chunks=(64, 64), dtype="<f8", compressor=numcodecs.Zstd(level=3))[:] = d
zarr.open_array(sys.argv[1] + "/blosc.zarr", mode="w", shape=d.shape, chunks=(64, 64), dtype="<f8", compressor=numcodecs.Blosc("zstd", 5, shuffle=1))[:] = d`,
      dir,
    );
    assert.equal(r.status, 0, r.stderr);
    const want = Float64Array.from({ length: 200 * 130 }, (_, i) => Math.round(i * 0.37 * 1000) / 1000);
    for (const backend of DECODERS) {
      await using(backend, async () => {
        for (const name of ["zstd", "blosc"]) {
          const got = (await (await openArray(join(dir, `${name}.zarr`), { mode: "r" })).get(null, { threads: 0 })) as NDArray<Float64Array>;
          assert.deepEqual(got.data, want, `${name} through ${backend.name}`);
        }
        const ours = join(dir, `ours-${backend.name}.zarr`);
        const a = await createArray(ours, { shape: [200, 130], chunks: [50, 70], dtype: "<f8", zarrFormat: 2, compressor: { id: "zstd", level: 1 } });
        await a.set(null, { data: want, shape: [200, 130] }, { threads: 0 });
        const check = runPython(`import sys, zarr, numpy as np\nz = zarr.open_array(sys.argv[1], mode="r")\nprint(float(np.asarray(z[:]).sum()))`, ours);
        assert.equal(check.status, 0, check.stderr);
        const sum = want.reduce((s, v) => s + v, 0);
        assert.ok(Math.abs(Number(check.stdout.trim()) - sum) < 1e-6 * sum, `${backend.name}'s frames read in zarr-python`);
      });
    }
  });
});
