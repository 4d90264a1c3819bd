/**
 * The WebAssembly kernels of kernels.c (compiled by tools/build-wasm.ts into kernels-wasm.ts): the
 * typesize-4 byte shuffle and unshuffle with WASM SIMD, LZ4 block compression, 2-3x faster
 * than lz4.ts's JavaScript and writing the same bytes, LZ4 block decompression, and the zstd
 * (zstd-decode.c) and zlib/gzip (inflate.c) decoders for runtimes without native ones. Where WebAssembly or its SIMD proposal is
 * missing (or the page forbids compiling), `wasmKernels()` returns null and callers keep the
 * JavaScript code, which writes the same bytes.
 *
 * The kernels work inside the module's own memory, so callers copy blocks in (or shuffled blocks
 * out) once. The scratch is shared by every caller in this thread: use it only in synchronous
 * stretches of code (no await between filling it and copying out), and take a fresh view after
 * `reserve`, which may grow (and so detach) the memory. Offsets are into the scratch view.
 */
import { KERNELS_WASM_BASE64 } from "./kernels-wasm.js";

export interface WasmKernels {
  /**
   * Makes the scratch at least `bytes` long and returns a view of it (valid until the next
   * reserve). Reserve 16 bytes more than the data the kernels read or write: they move whole
   * 16-byte vectors.
   */
  reserve(bytes: number): Uint8Array;
  /** Unshuffles `n` elements (a multiple of 16) of typesize 4 from scratch offset `src` to `dst`. */
  unshuffle4(src: number, dst: number, n: number): void;
  /** Shuffles `n` elements (a multiple of 16) of typesize 4 from scratch offset `src` to `dst`. */
  shuffle4(src: number, dst: number, n: number): void;
  /**
   * lz4.ts's fast-mode lz4CompressInto on scratch: compresses `n` bytes at `src` into `dst`,
   * writing at most `maxOut` bytes; returns the length, or 0 when it does not fit.
   */
  lz4Compress(src: number, n: number, dst: number, maxOut: number, acceleration: number): number;
  /**
   * Decodes the LZ4 block of `n` bytes at `src` into `dst`, which holds `cap` bytes; returns the
   * decoded length, or a negative number for a malformed block (lz4.ts's decoder names the fault).
   */
  lz4Decompress(src: number, n: number, dst: number, cap: number): number;
  /**
   * zstd-decode.c: decodes the zstd frames of `n` bytes at `src` into `dst`, which holds `cap`
   * bytes and 32 more of slack; `src` needs 16 bytes of slack. Returns the decoded length, or a
   * negative fault code (zstd.ts names them).
   */
  zstdDecompress(src: number, n: number, dst: number, cap: number): number;
  /** zstd-decode.c: the low 32 bits of XXH64 (seed 0) of `n` bytes at `src`, unsigned. */
  xxh64Low32(src: number, n: number): number;
  /**
   * inflate.c: inflates the stream of `n` bytes at `src` (format 0 raw deflate, 1 zlib, 2 gzip
   * members) into `dst`, which holds `cap` bytes and 32 more of slack. Returns the decoded length,
   * or a negative fault code (deflate.ts names them).
   */
  inflate(src: number, n: number, dst: number, cap: number, format: 0 | 1 | 2): number;
}

/** Rounds up to a whole 16-byte vector, so each scratch area starts aligned. */
export const align16 = (n: number): number => (n + 15) & ~15;

/** The scratch never grows past this: larger blocks keep the JavaScript kernels. */
export const WASM_SCRATCH_LIMIT = 64 << 20;

/**
 * Runs a kernel on `src` copied into scratch at offset 0, with `room` bytes of output at `outAt`
 * after it; `kernel` returns the output's length (or a negative fault code), and a positive length
 * is copied into `dest` at `destStart`. Returns what the kernel returned, or null where there are
 * no kernels (or the scratch could not hold it): the caller then runs its JavaScript code.
 */
export function runStaged(
  src: Uint8Array,
  room: number,
  dest: Uint8Array,
  destStart: number,
  kernel: (k: WasmKernels, outAt: number) => number,
): number | null {
  const outAt = align16(src.length + 16);
  const k = outAt + room + 16 <= WASM_SCRATCH_LIMIT ? wasmKernels() : null;
  if (k === null) return null;
  const scratch = k.reserve(outAt + room + 16);
  scratch.set(src, 0);
  const n = kernel(k, outAt);
  if (n > 0) dest.set(scratch.subarray(outAt, outAt + n), destStart);
  return n;
}

/**
 * Runs a decoder kernel (zstd, inflate) on `src` staged at scratch offset 0, with room for `cap`
 * bytes of output and 32 of slack after it; `kernel` gets the output's offset and returns the
 * decoded length or a negative fault code. Returns that with a view of the output (valid until
 * the next reserve), or null where there are no kernels or the scratch would pass its limit.
 */
export function runDecoder(src: Uint8Array, cap: number, kernel: (k: WasmKernels, outAt: number) => number): { n: number; out: Uint8Array } | null {
  const outAt = align16(src.length + 16);
  const k = outAt + cap + 32 <= WASM_SCRATCH_LIMIT ? wasmKernels() : null;
  if (k === null) return null;
  k.reserve(outAt + cap + 32).set(src, 0);
  const n = kernel(k, outAt);
  return { n, out: k.reserve(0).subarray(outAt, outAt + Math.max(n, 0)) };
}

let instance: WasmKernels | null | undefined;
let enabled = true;

/** Turns the WASM kernels off (or back on) for tests and benchmarks; returns the previous state. */
export function setWasmKernels(on: boolean): boolean {
  const previous = enabled;
  enabled = on;
  return previous;
}

/** The module's bytes, for tests. */
export function kernelsModuleBytes(): Uint8Array<ArrayBuffer> {
  const text = atob(KERNELS_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/**
 * The kernels, or null where this runtime has no WebAssembly SIMD or they are turned off, and
 * while they are being compiled asynchronously: browsers may refuse to compile a module of more
 * than 4 KiB synchronously on a page's main thread (Chromium long did; 156 no longer does), so
 * there the first call starts an asynchronous compile and callers use the JavaScript code, which
 * gives the same bytes, until it is done.
 */
export function wasmKernels(): WasmKernels | null {
  if (!enabled) return null;
  if (instance !== undefined) return instance;
  if (compiling) return null;
  const W = (globalThis as { WebAssembly?: typeof WebAssembly }).WebAssembly;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = kernelsModuleBytes();
    if (W === undefined || !W.validate(bytes)) return (instance = null);
  } catch {
    return (instance = null);
  }
  let module: WebAssembly.Module;
  try {
    module = new W.Module(bytes);
  } catch (err) {
    if (!(err instanceof RangeError)) return (instance = null);
    compiling = true;
    // Instantiating is limited alike: both happen off the synchronous path.
    W.instantiate(bytes, {}).then(
      (r) => {
        instance = wrap(r.instance);
        compiling = false;
      },
      () => {
        instance = null;
        compiling = false;
      },
    );
    return null;
  }
  try {
    return (instance = wrap(new W.Instance(module, {})));
  } catch {
    return (instance = null);
  }
}

let compiling = false;

function wrap(inst: WebAssembly.Instance): WasmKernels | null {
  try {
    const mem = inst.exports.memory as WebAssembly.Memory;
    // Scratch starts past the module's own data and stack.
    const base = (inst.exports.__heap_base as WebAssembly.Global).value as number;
    const unshuffle4 = inst.exports.unshuffle4 as (s: number, d: number, n: number) => void;
    const shuffle4 = inst.exports.shuffle4 as (s: number, d: number, n: number) => void;
    const lz4 = inst.exports.lz4_compress as (s: number, n: number, d: number, m: number, a: number) => number;
    const unlz4 = inst.exports.lz4_decompress as (s: number, n: number, d: number, c: number) => number;
    const unzstd = inst.exports.zstd_decompress as (s: number, n: number, d: number, c: number) => number;
    const xxh = inst.exports.xxh64_low32 as (s: number, n: number) => number;
    const infl = inst.exports.inflate as (s: number, n: number, d: number, c: number, f: number) => number;
    let view = new Uint8Array(mem.buffer, base);
    return {
      reserve(n: number): Uint8Array {
        if (base + n > mem.buffer.byteLength) {
          mem.grow(Math.ceil((base + n - mem.buffer.byteLength) / 65536));
          view = new Uint8Array(mem.buffer, base);
        } else if (view.buffer !== mem.buffer) {
          view = new Uint8Array(mem.buffer, base);
        }
        return view;
      },
      unshuffle4: (s, d, n) => unshuffle4(base + s, base + d, n),
      shuffle4: (s, d, n) => shuffle4(base + s, base + d, n),
      lz4Compress: (s, n, d, m, a) => lz4(base + s, n, base + d, m, a) >>> 0,
      lz4Decompress: (s, n, d, c) => unlz4(base + s, n, base + d, c),
      zstdDecompress: (s, n, d, c) => unzstd(base + s, n, base + d, c),
      xxh64Low32: (s, n) => xxh(base + s, n) >>> 0,
      inflate: (s, n, d, c, f) => infl(base + s, n, base + d, c, f),
    };
  } catch {
    return null;
  }
}
