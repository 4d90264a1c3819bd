/**
 * zlib and gzip streams: node:zlib (native zlib, about 3.5x pako's inflate) when running on Node;
 * elsewhere (browsers) our inflate (inflate.c, in the WASM kernels' module; 2.4-3.7x pako's speed
 * in Chromium) decodes and pako encodes; pako alone where WebAssembly SIMD is missing. node:zlib
 * and pako are zlib 1.x's deflate with the same parameters, so they write the same bytes at every
 * level (test/codec-backends.test.ts checks it); every decoder accepts what zlib accepts
 * (test/inflate.test.ts). The choice is speed only.
 *
 * node:zlib is never imported, statically or dynamically, so a browser bundle of parzarr does not
 * need it and no bundler (webpack included) tries to resolve it: on Node it comes from
 * `process.getBuiltinModule` (every Node the package supports, >= 20.16); a runtime without it
 * gets pako, with identical output. pako is loaded on first use (pako-backend.ts): every caller
 * of this module's functions awaits `deflateReady()` (or runs through `afterDeflateReady`) first.
 */
import { CorruptChunkError, InternalFault } from "../errors.js";
import { giveScratch, handOver, takeScratch, type ScratchLease } from "../scratch.js";
import { runNativeStream } from "./native-stream.js";
import { runDecoder, wasmKernels } from "./wasm/wasm.js";
import type { DeflateBackend } from "./pako-backend.js";

export type { DeflateBackend };

/** The part of node:zlib used here, typed locally so no Node types leak into a browser build. */
interface NodeZlib {
  deflateSync(b: Uint8Array, o: { level: number }): Uint8Array;
  gzipSync(b: Uint8Array, o: { level: number }): Uint8Array;
  inflateSync(b: Uint8Array, o?: { maxOutputLength?: number }): Uint8Array;
  gunzipSync(b: Uint8Array, o?: { maxOutputLength?: number }): Uint8Array;
}

/** Node's Buffer pools small results in a shared slab; a plain view keeps callers off Buffer's API. */
const plain = (b: Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

function nodeBackend(z: NodeZlib): DeflateBackend {
  const cap = (maxOutput: number | undefined) => (maxOutput === undefined ? undefined : { maxOutputLength: Math.max(1, maxOutput) });
  return {
    name: "node:zlib",
    deflate: (src, level) => plain(z.deflateSync(src, { level })),
    gzip: (src, level) => plain(z.gzipSync(src, { level })),
    inflate: (src, maxOutput) => plain(z.inflateSync(src, cap(maxOutput))),
    gunzip: (src, maxOutput) => plain(z.gunzipSync(src, cap(maxOutput))),
  };
}

interface NodeProcess {
  versions?: { node?: string };
  getBuiltinModule?: (id: string) => unknown;
}

const proc = (globalThis as { process?: NodeProcess }).process;
const onNode = typeof proc?.versions?.node === "string";

const nodeZlib = onNode ? (proc!.getBuiltinModule?.("node:zlib") as NodeZlib | undefined) : undefined;
const native: DeflateBackend | null = nodeZlib === undefined ? null : nodeBackend(nodeZlib);

let forced: DeflateBackend | null = null;

/** pako's backend once loaded, and its loading. */
let pako: DeflateBackend | undefined;
let pakoLoading: Promise<void> | undefined;

/**
 * Undefined where this runtime's deflate is ready (node:zlib, or pako loaded); else a promise that
 * loads pako. Callers await it before calling this module's synchronous functions.
 */
export function deflateReady(): Promise<void> | undefined {
  // Only our WASM inflate (for encoding) and the fallback where it is missing use pako.
  const chosen = forced ?? native;
  if (pako !== undefined || (chosen !== null && chosen !== kernelDeflateBackend)) return undefined;
  // A failed load (a network fault on a page) is not kept: the next use tries again.
  return (pakoLoading ??= import("./pako-backend.js").then((m) => void (pako = m.pakoBackend)).finally(() => (pakoLoading = undefined)));
}

/** `fn` run once deflate is ready: synchronously where it already is (node:zlib, pako loaded). */
export function afterDeflateReady<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R | Promise<R> {
  return (...args) => {
    const ready = deflateReady();
    return ready === undefined ? fn(...args) : ready.then(() => fn(...args));
  };
}

function pakoNow(): DeflateBackend {
  if (pako === undefined) throw new InternalFault("deflate: pako used before deflateReady()");
  return pako;
}

/** What inflate.c's negative results mean. */
const INFLATE_FAULTS: Record<number, string> = {
  1: "unexpected end of stream",
  2: "incorrect header check (or a reserved block type)",
  3: "the stream needs a preset dictionary, which parzarr does not support",
  5: "incorrect data check: the checksum does not match",
  6: "invalid Huffman code lengths",
  7: "invalid literal/length or distance symbol",
  8: "invalid distance: too far back",
  9: "invalid stored block lengths",
};

/**
 * inflate.c on `src` (format 1 zlib, 2 gzip) into at most `cap` bytes: a view of the result in
 * the kernels' scratch (valid until its next use), or null where there are no kernels or the
 * scratch would pass its limit. Throws as the other backends do: RangeError past the cap, Error
 * naming the fault for a damaged stream.
 */
function kernelInflate(src: Uint8Array, cap: number, format: 1 | 2): Uint8Array | null {
  const r = runDecoder(src, cap, (k, outAt) => k.inflate(0, src.length, outAt, cap, format));
  if (r === null) return null;
  if (r.n === -4) throw new RangeError(`inflated past the ${cap}-byte limit`);
  if (r.n < 0) throw new Error(INFLATE_FAULTS[-r.n] ?? `fault ${-r.n}`);
  return r.out;
}

/**
 * Our inflate for decoding and pako for encoding: the choice where the runtime has no node:zlib
 * but has WebAssembly SIMD. inflate.c sizes its output from the caller's bound, so a call
 * without one (not made by parzarr's codecs, which always pass one) goes to pako.
 */
export const kernelDeflateBackend: DeflateBackend = {
  name: "wasm-kernel",
  deflate: (src, level) => pakoNow().deflate(src, level),
  gzip: (src, level) => pakoNow().gzip(src, level),
  inflate: (src, maxOutput) => (maxOutput === undefined ? null : kernelInflate(src, maxOutput, 1)?.slice()) ?? pakoNow().inflate(src, maxOutput),
  gunzip: (src, maxOutput) => (maxOutput === undefined ? null : kernelInflate(src, maxOutput, 2)?.slice()) ?? pakoNow().gunzip(src, maxOutput),
};

/** Whether inflating stages its work in the WASM kernels' scratch (blosc must not lend it then). */
export function inflateUsesWasmScratch(): boolean {
  return deflateBackend() === kernelDeflateBackend;
}

/** The backend in use: node:zlib on Node, else our WASM inflate with pako's deflate, else pako. */
export function deflateBackend(): DeflateBackend {
  return forced ?? native ?? (wasmKernels() !== null ? kernelDeflateBackend : pakoNow());
}

/**
 * Makes every zlib/gzip operation (standalone codecs and blosc's zlib streams) use `backend`, or
 * the automatic choice again with null; returns the previous override. For tests and benchmarks
 * that check the fallback gives the same results.
 */
export function setDeflateBackend(backend: DeflateBackend | null): DeflateBackend | null {
  const previous = forced;
  forced = backend;
  return previous;
}

/** The native backend when this runtime has one (for tests and benchmarks), else null. */
export function nativeDeflateBackend(): DeflateBackend | null {
  return native;
}

const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

function corrupt(what: string, src: Uint8Array, err: unknown): never {
  const msg = err instanceof Error ? err.message : String(err);
  throw new CorruptChunkError(`${what}: cannot inflate ${src.length} bytes: ${msg}`, { cause: err });
}

/**
 * A zlib stream of `src`. On node:zlib it is written by this thread's reused deflate context into
 * a scratch buffer (native-stream.ts), not by `deflateSync` (a new context, then 16 KiB pieces of
 * fresh memory joined by one more copy); the bytes are the same. Under `lease` the result may be
 * a view of a leased buffer (see ScratchLease).
 */
export function zlibCompress(src: Uint8Array, level: number, lease?: ScratchLease): Uint8Array {
  return compressWith("deflate", src, level, lease) ?? deflateBackend().deflate(src, level);
}

/** A gzip stream of `src`, as zlibCompress. */
export function gzipCompress(src: Uint8Array, level: number, lease?: ScratchLease): Uint8Array {
  return compressWith("gzip", src, level, lease) ?? deflateBackend().gzip(src, level);
}

function compressWith(format: "deflate" | "gzip", src: Uint8Array, level: number, lease: ScratchLease | undefined): Uint8Array | null {
  // Level 0 (stored blocks) is left to the one-shot functions: zlib sizes stored blocks by the
  // output space it is given, so a larger buffer would write other (valid) bytes than pako does.
  if (level === 0 || deflateBackend() !== native || native === null) return null;
  // deflateBound with room to spare: stored blocks add 5 bytes per 16 KiB, wrappers 18 at most.
  const bound = src.length + (src.length >>> 10) + 64;
  const out = takeScratch(bound);
  const n = runNativeStream(`${format}-${level}`, src, out.subarray(0, bound), false);
  if (n === null) {
    giveScratch(out);
    return null;
  }
  return handOver(out, n, lease);
}

/**
 * Inflates a zlib or a gzip stream, whichever `src` is (z5py labels zlib streams "gzip", and
 * zarr readers stay lenient). `maxOutput` bounds the result; failures are CorruptChunkError.
 */
export function inflateAny(src: Uint8Array, what: string, maxOutput?: number): Uint8Array {
  const b = deflateBackend();
  try {
    return isGzip(src) ? b.gunzip(src, maxOutput) : b.inflate(src, maxOutput);
  } catch (err) {
    return corrupt(what, src, err);
  }
}

/**
 * Inflates a zlib stream into exactly `dest`; returns the number of bytes the stream held (which
 * may differ from dest.length: the caller decides whether that is corruption). A stream longer
 * than dest is refused with CorruptChunkError.
 */
export function inflateInto(src: Uint8Array, dest: Uint8Array, what: string): number {
  // This thread's reused native context, straight into dest, when the stream fills it exactly;
  // anything else (another size, a damaged stream, no node:zlib) takes the one-shot path below,
  // which gives the precise size or error (inflateSync's output comes in fresh 16 KiB pieces
  // joined by one more copy, then copied here: three passes and a chunk of fresh memory).
  const backend = deflateBackend();
  if (native !== null && backend === native && runNativeStream(isGzip(src) ? "gunzip" : "inflate", src, dest, true) === dest.length) {
    return dest.length;
  }
  // Our inflate: into scratch bounded by dest, then one copy (no fresh result buffer).
  if (backend === kernelDeflateBackend) {
    let out: Uint8Array | null;
    try {
      out = kernelInflate(src, dest.length, isGzip(src) ? 2 : 1);
    } catch (err) {
      return corrupt(what, src, err);
    }
    if (out !== null) {
      dest.set(out);
      return out.length;
    }
  }
  const out = inflateAny(src, what, dest.length);
  if (out.length <= dest.length) dest.set(out);
  return out.length;
}
