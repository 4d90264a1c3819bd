/**
 * node:zlib's compression streams driven synchronously into buffers we own. The one-shot
 * functions (`zstdDecompressSync`, `deflateSync`, ...) create a libzstd/zlib context and fresh
 * output buffers on every call (zlib's in 16 KiB pieces, joined by one more copy); on a worker
 * thread the fresh pages and the copies out of them cost more than the (de)compression (issue 12:
 * blosc-zstd reads on 2 threads took twice the CPU of inline ones, 1677 vs 779 ms per 256 MiB;
 * 295 vs 210 after). Decompression reuses one context per thread. Compression makes a new one per
 * call: a reset zlib context keeps its old window, and deflate's choice between equally long
 * matches may then read bytes past the input's end, writing valid bytes that differ from what a
 * fresh context (numcodecs, pako) writes (CPU per 4 MiB level-1 chunk still falls 10-30%).
 *
 * This drives the inside of a stream as node:zlib's own synchronous functions do (lib/zlib.js,
 * processChunkSync): `_handle.writeSync(flush, in, inOff, inLen, out, outOff, outLen)` leaves the
 * output space left and the input left unread in `_writeState`, and reports errors through
 * `_handle.onerror`. That is not public API, so every part is checked before first use, and a
 * caller treats `null` (no such runtime, an error, a result that is not exactly one whole stream)
 * as "do it the usual way", which gives the precise error where there is one.
 */

/** The part of node:zlib used here, typed locally so no Node types leak into a browser build. */
interface NodeZlibStreams {
  createZstdDecompress?(): StreamInside;
  createInflate?(): StreamInside;
  createGunzip?(): StreamInside;
  createDeflate?(o: { level: number }): StreamInside;
  createGzip?(o: { level: number }): StreamInside;
  createZstdCompress?(o: { params: Record<number, number> }): StreamInside;
  constants?: { ZSTD_c_compressionLevel?: number };
}

interface StreamInside {
  _handle?: {
    writeSync?(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
    reset?(): void;
    onerror?: (message: string, errno: number, code?: string) => void;
  };
  _writeState?: Uint32Array;
  _finishFlushFlag?: number;
  close?(): void;
}

export type NativeStreamKind = "zstd-decompress" | "inflate" | "gunzip" | `deflate-${number}` | `gzip-${number}` | `zstd-${number}`;

/** Decompression contexts are kept and reset for the next call; compression ones are not. */
const reused = (kind: NativeStreamKind): boolean => kind === "zstd-decompress" || kind === "inflate" || kind === "gunzip";

/** One spare byte: where a stream that filled `out` exactly shows whether it had more to write. */
const probe = new Uint8Array(1);

interface Context {
  stream: StreamInside;
  failed: boolean;
}

const contexts = new Map<NativeStreamKind, Context | null>();

function zlibModule(): NodeZlibStreams | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.("node:zlib") as NodeZlibStreams | undefined;
}

function create(kind: NativeStreamKind): StreamInside | undefined {
  const z = zlibModule();
  if (z === undefined) return undefined;
  if (kind === "zstd-decompress") return z.createZstdDecompress?.();
  if (kind === "inflate") return z.createInflate?.();
  if (kind === "gunzip") return z.createGunzip?.();
  const [what, level] = kind.split("-");
  if (what === "zstd") {
    const param = z.constants?.ZSTD_c_compressionLevel;
    return param === undefined ? undefined : z.createZstdCompress?.({ params: { [param]: Number(level) } });
  }
  return what === "deflate" ? z.createDeflate?.({ level: Number(level) }) : z.createGzip?.({ level: Number(level) });
}

function contextFor(kind: NativeStreamKind): Context | null {
  const known = contexts.get(kind);
  if (known !== undefined) return known;
  const stream = create(kind);
  const h = stream?._handle;
  if (!stream || typeof h?.writeSync !== "function" || typeof h.reset !== "function" || !(stream._writeState instanceof Uint32Array) || typeof stream._finishFlushFlag !== "number") {
    contexts.set(kind, null);
    return null;
  }
  const ctx: Context = { stream, failed: false };
  // A failed stream stays in its error state (reset does not clear it): it is replaced before
  // the next use.
  h.onerror = () => void (ctx.failed = true);
  contexts.set(kind, ctx);
  return ctx;
}

/**
 * Runs `input` through a `kind` stream (this thread's reused one for decompression) to its end,
 * writing into `out`.
 * Returns how many bytes were written, or null when this runtime cannot, the stream failed, or
 * it did not consume all of `input` and end within `out` (`exact`: filling `out` exactly).
 */
export function runNativeStream(kind: NativeStreamKind, input: Uint8Array, out: Uint8Array, exact: boolean): number | null {
  const ctx = contextFor(kind);
  if (ctx === null) return null;
  const { stream } = ctx;
  const h = stream._handle!;
  // Only a reused context needs a reset; a fresh one must not have one: resetting a zstd
  // compression context drops its parameters (the level) too.
  if (reused(kind)) h.reset!();
  h.writeSync!(stream._finishFlushFlag!, input, 0, input.length, out, 0, out.length);
  const [outLeft, inLeft] = stream._writeState!;
  // inflate stops when `out` is full, ended or not (a zstd frame declares its size, which the
  // caller checks): one more call with a byte of room writes nothing only if the stream ended,
  // and fails if it wanted more input.
  if (exact && outLeft === 0 && inLeft === 0 && !ctx.failed && (kind === "inflate" || kind === "gunzip")) {
    h.writeSync!(stream._finishFlushFlag!, input, input.length, 0, probe, 0, 1);
    if (stream._writeState![0] !== 1) ctx.failed = true;
  }
  const failed = ctx.failed;
  // Compression contexts are not reused (see above), nor one that failed.
  if (failed || !reused(kind)) {
    contexts.delete(kind);
    stream.close?.();
  }
  if (failed || inLeft !== 0) return null;
  // Output space left over means the stream ended; none left may mean it had more to write.
  if (exact ? outLeft !== 0 : outLeft === 0) return null;
  return out.length - outLeft;
}
