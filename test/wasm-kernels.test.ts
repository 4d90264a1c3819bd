/**
 * The WebAssembly kernels (src/codecs/wasm/kernels.c via tools/build-wasm.ts): the committed
 * module is the build of the committed source, and its LZ4 compressor writes exactly the bytes of
 * lz4.ts's JavaScript one, including where a block does not fit its limit.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, test } from "node:test";
import { bloscDecode, bloscEncode } from "../src/codecs/blosc/blosc.js";
import { KERNELS_SOURCE_SHA256 } from "../src/codecs/wasm/kernels-wasm.js";
import { lz4CompressBound, lz4CompressInto, lz4CompressIntoJs, lz4DecompressBlock, lz4DecompressBlockJs } from "../src/codecs/blosc/lz4.js";
import { byteShuffle } from "../src/codecs/blosc/shuffle.js";
import { kernelsModuleBytes, setWasmKernels, wasmKernels } from "../src/codecs/wasm/wasm.js";
import { bytesOf, randomWalkFloat32, seededRandom } from "../bench/compare/data.js";
import { compileKernels, KERNELS_HASHED, KERNELS_MODULE, moduleText, sourceHash } from "../tools/build-wasm.js";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const required = process.env.PARZARR_REQUIRE_PEERS === "1";

function hasClang(): boolean {
  try {
    execFileSync("clang", ["--version"], { stdio: "ignore" });
    execFileSync("wasm-ld", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const eq = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

/** Inputs that take every branch: noise, shuffled floats, runs of every short period, tiny sizes. */
function inputs(): { name: string; bytes: Uint8Array }[] {
  const rnd = seededRandom(11);
  const noise = new Uint8Array(70_000).map(() => Math.floor(rnd() * 256));
  const walk = bytesOf(randomWalkFloat32(64, 2048, 3));
  const shuffled = new Uint8Array(walk.length);
  byteShuffle(walk, shuffled, 4);
  const out: { name: string; bytes: Uint8Array }[] = [
    { name: "noise", bytes: noise },
    { name: "walk", bytes: walk },
    { name: "shuffled walk", bytes: shuffled },
    { name: "shuffled walk, 128 KiB stream", bytes: shuffled.subarray(0, 128 * 1024) },
    { name: "zeros", bytes: new Uint8Array(200_000) },
    // Longer than 64 KiB of distinct content, so offsets reach the window's end.
    { name: "noise repeated at 65535", bytes: (() => { const b = new Uint8Array(140_000); for (let i = 0; i < b.length; i++) b[i] = noise[i % 65535]; return b; })() },
  ];
  // Periods up to 17: the short-offset match copies of the decoders (copy_match) and the first
  // offsets they copy as whole vectors.
  for (let period = 1; period <= 17; period++) {
    const b = new Uint8Array(5000 + period);
    for (let i = 0; i < b.length; i++) b[i] = (i % period) * 37 + (i > 3000 ? 1 : 0);
    out.push({ name: `period ${period}`, bytes: b });
  }
  // Literal runs of 14-16, 254-256, 269-271 bytes between matches: the length fields' boundaries.
  for (const lit of [14, 15, 16, 254, 255, 256, 269, 270, 271]) {
    const parts: number[] = [];
    for (let k = 0; k < 40; k++) {
      for (let i = 0; i < lit; i++) parts.push(Math.floor(rnd() * 256));
      for (let i = 0; i < 19 + k; i++) parts.push(7);
    }
    out.push({ name: `literal runs of ${lit}`, bytes: Uint8Array.from(parts) });
  }
  for (let n = 1000; n < 1040; n++) out.push({ name: `${n} shuffled bytes`, bytes: shuffled.subarray(5000, 5000 + n) });
  return out;
}

describe("WebAssembly kernels", () => {
  const k = wasmKernels();

  test("the committed module is the build of kernels.c (source hash)", () => {
    assert.equal(KERNELS_SOURCE_SHA256, sourceHash(), "kernels.c changed: run npx tsx tools/build-wasm.ts");
  });

  test("the C sources write each helper once, in a header the source hash covers", () => {
    const files = KERNELS_HASHED.map((f) => ({ name: basename(f), text: readFileSync(f, "utf8") }));
    // A header left out of the hash would let the committed module go stale unnoticed.
    for (const { name, text } of files) {
      for (const [, header] of text.matchAll(/#include "([^"]+)"/g)) assert.ok(files.some((f) => f.name === header), `${name} includes ${header}, which the hash does not cover`);
    }
    const definedIn = new Map<string, string[]>();
    for (const { name, text } of files) {
      for (const [, fn] of text.matchAll(/^static (?:inline )?[\w ]*?\b(\w+)\(/gm)) definedIn.set(fn, [...(definedIn.get(fn) ?? []), name]);
    }
    const twice = [...definedIn].filter(([, where]) => where.length > 1).map(([fn, where]) => `${fn} in ${where.join(", ")}`);
    assert.deepEqual(twice, []);
  });

  test("a rebuild with clang gives the committed module byte for byte", { skip: !required && !hasClang() ? "no clang/wasm-ld here (Debian clang and lld)" : false }, () => {
    const rebuilt = compileKernels();
    assert.ok(eq(rebuilt, kernelsModuleBytes()), "the rebuilt module differs from kernels-wasm.ts");
    assert.equal(readFileSync(KERNELS_MODULE, "utf8"), moduleText(rebuilt, sourceHash()));
  });

  test("where a page's main thread refuses to compile the module synchronously, the kernels come asynchronously", () => {
    // Browsers have thrown a RangeError for synchronous compiles of more than 4 KiB on a page's
    // main thread (Chromium did for years); a child process plays such a runtime.
    const code = `
      const W = globalThis.WebAssembly;
      const Sync = W.Module;
      W.Module = function (bytes) { if (bytes.length > 4096) throw new RangeError("sync compile of more than 4 KiB"); return new Sync(bytes); };
      const { wasmKernels, kernelsModuleBytes } = await import(${JSON.stringify(new URL("../src/codecs/wasm/wasm.ts", import.meta.url).href)});
      const { lz4CompressInto, lz4CompressIntoJs } = await import(${JSON.stringify(new URL("../src/codecs/blosc/lz4.ts", import.meta.url).href)});
      const first = wasmKernels();
      const src = new Uint8Array(5000).map((_, i) => (i * 7) % 13);
      const a = new Uint8Array(6000), b = new Uint8Array(6000);
      const n1 = lz4CompressInto(src, a, 0, 6000, 1);
      await new Promise((r) => setTimeout(r, 200));
      const later = wasmKernels();
      const n2 = lz4CompressInto(src, b, 0, 6000, 1);
      const same = n1 === n2 && n1 === lz4CompressIntoJs(src, new Uint8Array(6000), 0, 6000, 1) && Buffer.compare(a, b) === 0;
      console.log(JSON.stringify({ size: kernelsModuleBytes().length, first: first === null, later: later !== null, same }));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8" });
    const r = JSON.parse(out.trim().split("\n").pop()!) as { size: number; first: boolean; later: boolean; same: boolean };
    assert.ok(r.size > 4096, "the module is over the limit (else this test tests nothing)");
    assert.deepEqual(r, { size: r.size, first: true, later: true, same: true });
  });

  test("Node has WASM SIMD, so the kernels load", () => {
    assert.ok(k !== null);
  });

  test("LZ4: the kernel writes the same blocks as the JavaScript compressor at every acceleration", () => {
    for (const { name, bytes } of inputs()) {
      for (const accel of [1, 5, 9]) {
        const room = lz4CompressBound(bytes.length);
        const a = new Uint8Array(room + 8);
        const b = new Uint8Array(room + 8);
        const na = lz4CompressIntoJs(bytes, a, 8, room, accel);
        const nb = lz4CompressInto(bytes, b, 8, room, accel);
        assert.ok(na > 0, `${name}: fits its bound`);
        assert.equal(nb, na, `${name}, acceleration ${accel}: lengths`);
        assert.ok(eq(a, b), `${name}, acceleration ${accel}: bytes`);
        const back = new Uint8Array(bytes.length);
        assert.equal(lz4DecompressBlock(b.subarray(8, 8 + nb), back), bytes.length);
        assert.ok(eq(back, bytes), `${name}: round trip`);
      }
    }
  });

  test("LZ4: the kernel's decoder gives the JavaScript decoder's output, and refuses what it refuses", () => {
    const wk = k!;
    const decode = (block: Uint8Array, cap: number): { n: number; bytes: Uint8Array } => {
      const STREAM = 0;
      const OUT = (block.length + 31) & ~15;
      const scratch = wk.reserve(OUT + cap + 16);
      scratch.set(block, STREAM);
      const n = wk.lz4Decompress(STREAM, block.length, OUT, cap);
      return { n, bytes: wk.reserve(OUT + cap + 16).slice(OUT, OUT + Math.max(0, n)) };
    };
    for (const { name, bytes } of inputs()) {
      const block = new Uint8Array(lz4CompressBound(bytes.length));
      const len = lz4CompressIntoJs(bytes, block, 0, block.length, 1);
      const good = block.subarray(0, len);
      const r = decode(good, bytes.length);
      assert.equal(r.n, bytes.length, name);
      assert.ok(eq(r.bytes, bytes), `${name}: bytes`);
      // Too little room, and every truncation of the first 64 bytes: refused by both decoders.
      assert.ok(decode(good, bytes.length - 1).n < 0, `${name}: output overflow`);
      assert.throws(() => lz4DecompressBlock(good, new Uint8Array(bytes.length - 1)));
      for (let cut = 0; cut < Math.min(64, len - 1); cut += 3) {
        const part = good.subarray(0, cut);
        let jsFails = false;
        try {
          jsFails = lz4DecompressBlock(part, new Uint8Array(bytes.length)) !== bytes.length;
        } catch {
          jsFails = true;
        }
        const w = decode(part, bytes.length);
        assert.equal(w.n < 0 || w.n !== bytes.length, jsFails, `${name}: truncated to ${cut}`);
      }
    }
  });

  test("LZ4: lz4DecompressBlock (the kernel for blocks from 64 KiB) and the JavaScript decoder agree, faults included", () => {
    for (const { name, bytes } of inputs().filter((x) => x.bytes.length >= 64 * 1024)) {
      const block = new Uint8Array(lz4CompressBound(bytes.length));
      const good = block.subarray(0, lz4CompressIntoJs(bytes, block, 0, block.length, 1));
      const a = new Uint8Array(bytes.length);
      assert.equal(lz4DecompressBlock(good, a), bytes.length);
      assert.ok(eq(a, bytes), name);
      // A damaged block: the same CorruptChunkError message from both.
      const bad = good.slice();
      bad[Math.floor(bad.length / 2)] ^= 0xff;
      bad[bad.length - 3] = 0xff;
      const message = (f: () => unknown): string => {
        try {
          f();
          return "no error";
        } catch (e) {
          return (e as Error).message;
        }
      };
      for (const cut of [bad, good.subarray(0, good.length - 2)]) {
        assert.equal(message(() => lz4DecompressBlock(cut, new Uint8Array(bytes.length))), message(() => lz4DecompressBlockJs(cut, new Uint8Array(bytes.length))), `${name}: same fault`);
      }
    }
  });

  test("LZ4: a limit one byte short of the block gives 0 on both paths, and nothing is written past it", () => {
    for (const { name, bytes } of inputs().filter((_, i) => i % 3 === 0)) {
      const full = new Uint8Array(lz4CompressBound(bytes.length));
      const n = lz4CompressIntoJs(bytes, full, 0, full.length, 1);
      for (const limit of [n - 1, n - 7, Math.floor(n / 2), 1, 0]) {
        if (limit < 0) continue;
        const js = new Uint8Array(limit + 32).fill(0xa5);
        const wasm = new Uint8Array(limit + 32).fill(0xa5);
        assert.equal(lz4CompressIntoJs(bytes, js, 0, limit, 1), 0, `${name}, limit ${limit}: JS`);
        assert.equal(lz4CompressInto(bytes, wasm, 0, limit, 1), 0, `${name}, limit ${limit}: WASM`);
        assert.ok(wasm.subarray(limit).every((x) => x === 0xa5), `${name}, limit ${limit}: nothing past the limit`);
      }
      // Exactly enough room fits on both.
      const exact = new Uint8Array(n);
      assert.equal(lz4CompressInto(bytes, exact, 0, n, 1), n, `${name}: exact room`);
      assert.ok(eq(exact, full.subarray(0, n)));
    }
  });

  test("blosc-lz4 frames are the same bytes with the kernels and without, for every shuffle", async () => {
    const walk = bytesOf(randomWalkFloat32(96, 1024, 5));
    for (const shuffle of [0, 1, 2] as const) {
      for (const typesize of [1, 2, 4, 8]) {
        for (const n of [walk.length, walk.length - 37, 70_000, 4096]) {
          for (const blocksize of [0, 4096, 1000]) {
            const src = walk.subarray(0, n);
            const opts = { cname: "lz4" as const, clevel: 5, shuffle, typesize, blocksize };
            const withWasm = await bloscEncode(src, opts);
            const previous = setWasmKernels(false);
            let plain: Uint8Array;
            try {
              plain = await bloscEncode(src, opts);
            } finally {
              setWasmKernels(previous);
            }
            assert.ok(eq(withWasm, plain), `shuffle ${shuffle}, typesize ${typesize}, ${n} bytes, blocksize ${blocksize}`);
            assert.ok(eq(await bloscDecode(withWasm), src));
          }
        }
      }
    }
  });
});
