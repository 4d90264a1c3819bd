/**
 * Memory limits checked before anything is allocated, so that hostile or mistaken metadata
 * (`"chunks": [1e9, 1e9]`) gives a TooLargeError instead of a crash or a machine-eating allocation.
 *
 * One process-wide setting, `setMaxChunkBytes`, rather than an option on every open: arrays are
 * also reached through groups (`group.get(name)`, `members()`), and a limit on how much one chunk
 * may take is a property of the process's memory, like Node's heap size, not of one array. It is
 * checked on the thread that opens or creates the array; decoders in workers need no copy of it,
 * since they are bounded by the chunk size the metadata declares (see codecs/compressors.ts).
 */
import { TooLargeError } from "./errors.js";
import { platform } from "./platform/current.js";

/** 1 GiB: a thousand times the usual ~1 MiB chunk, well under what a typed array can hold. */
export const DEFAULT_MAX_CHUNK_BYTES = 2 ** 30;

let maxChunkBytes = DEFAULT_MAX_CHUNK_BYTES;

/** The largest chunk (decoded, in bytes) that arrays opened or created from now on may have. */
export function setMaxChunkBytes(bytes: number): void {
  if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 1) {
    throw new RangeError(`setMaxChunkBytes: expected a positive integer number of bytes, got ${String(bytes)}`);
  }
  maxChunkBytes = bytes;
}

/** The current limit set by setMaxChunkBytes (default DEFAULT_MAX_CHUNK_BYTES). */
export function getMaxChunkBytes(): number {
  return maxChunkBytes;
}

/**
 * The most bytes a stored value read whole (a chunk, a shard) may take: the chunk limit plus an
 * eighth and 64 KiB, room for what codecs add to incompressible data (headers, shard indexes).
 * Stores stop reading there (an endless HTTP body, a huge file) with a TooLargeError.
 */
export function maxStoredBytes(): number {
  return maxChunkBytes + Math.floor(maxChunkBytes / 8) + 65536;
}

/** The product of a shape, or Infinity once it passes 2^53 (exact products of huge shapes lie). */
function bigProduct(shape: readonly number[], factor: number): number {
  let n = factor;
  for (const s of shape) {
    n *= s;
    if (n > Number.MAX_SAFE_INTEGER) return Infinity;
  }
  return n;
}

/**
 * The largest element (a raw `|V`, byte-string or record type). One element is also handled as a
 * JS array of its bytes (fill values, element reads), and V8 refuses arrays past ~2^27 entries
 * with a bare RangeError, so an element is bounded here, below that and far below the chunk cap.
 */
export const MAX_ITEM_BYTES = 2 ** 24;

/** Refuses a chunk shape whose decoded bytes exceed the limit, or an element too large to handle. */
export function checkChunkSize(chunks: readonly number[], itemSize: number, where: string): void {
  if (itemSize > MAX_ITEM_BYTES) {
    throw new TooLargeError(`${where}: one element of its data type takes ${itemSize} bytes, over the limit of ${MAX_ITEM_BYTES}`);
  }
  const bytes = bigProduct(chunks, itemSize);
  if (bytes > maxChunkBytes) {
    const shown = Number.isFinite(bytes) ? `${bytes} bytes` : "more than 2^53 bytes";
    throw new TooLargeError(
      `${where}: a chunk of shape [${chunks.join(", ")}] needs ${shown}, over the limit of ${maxChunkBytes} ` +
        `(raise it with setMaxChunkBytes if this is intended)`,
    );
  }
}

/**
 * The most points (vindex, a whole-array mask) or indices along one dimension one selection may
 * hold: its plan keeps tens of bytes per point, grouped by chunk in a Map (V8 caps one at 2^24).
 */
export const MAX_SELECTION_POINTS = 2 ** 24;

/** Refuses a selection of more than MAX_SELECTION_POINTS `what` (points, indices). */
export function checkPointCount(count: number, what: string, where: string): void {
  if (count > MAX_SELECTION_POINTS) throw new TooLargeError(`${where}: ${count} ${what}, more than the ${MAX_SELECTION_POINTS} one selection may hold; read it in parts`);
}

/** Refuses a result buffer larger than the JavaScript engine can allocate. */
export function checkResultSize(shape: readonly number[], bytesPerElement: number, where: string): void {
  const bytes = bigProduct(shape, bytesPerElement);
  const max = platform().maxBufferBytes;
  if (bytes > max) {
    const shown = Number.isFinite(bytes) ? `${bytes} bytes` : "more than 2^53 bytes";
    throw new TooLargeError(`${where}: the selection [${shape.join(", ")}] needs ${shown}, more than one buffer can hold (${max}); read it in parts`);
  }
}

/**
 * Runs an allocation of `bytes` that checkResultSize let through, turning the engine's failure
 * into a TooLargeError: since Node 22 a buffer may declare up to 2^53 bytes, so a selection of
 * terabytes passes the length check and only the allocation itself can refuse it.
 */
export function allocateOrTooLarge<T>(allocate: () => T, bytes: number, where: string): T {
  try {
    return allocate();
  } catch (err) {
    if (err instanceof RangeError) {
      throw new TooLargeError(`${where}: cannot allocate ${bytes} bytes for the result (${err.message}); read it in parts`);
    }
    throw err;
  }
}
