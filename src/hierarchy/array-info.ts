/**
 * An array's `info()` as data (info.ts has the types, a group's and zarr-python's text), with the
 * counts of what its store holds. Loaded with the first (lazy-features.ts): a page that only
 * reads never builds one.
 */
import { innermostType, isObjectType } from "../metadata/dtype.js";
import { fillValueToJson } from "../metadata/fill-value-json.js";
import { plainJson } from "../metadata/json-write.js";
import { dataTypeLabel, hasNumpyForm } from "../metadata/dtype-names.js";
import { chunkCoordsAmong } from "./chunk-iter.js";
// Types only: the handle imports this module (on first use) to answer `info()`.
import type { ZarrArray } from "./array.js";
import { orNull, storeType, type ArrayInfo } from "./info.js";

export async function arrayInfo(arr: ZarrArray): Promise<ArrayInfo> {
  const dt = arr.dataType;
  // An optional counts its values only, as zarrs' nbytes: the mask components in memory are not data.
  const nbytes = isObjectType(dt) ? null : arr.size * innermostType(dt).itemSize;
  // One listing serves both counts (on S3 it is a request per page of keys).
  const keys = await orNull(arr.store, () => storedKeys(arr));
  const stored = keys && (await bytesOf(arr, keys));
  const v2 = arr.metadata.v2;
  return {
    path: arr.name,
    nodeType: "array",
    zarrFormat: arr.zarrFormat,
    shape: arr.shape,
    chunks: arr.chunks,
    shards: arr.shards,
    chunkShapes: arr.chunkShapes,
    dtype: dataTypeLabel(dt),
    numpyDtype: hasNumpyForm(arr.dataType) ? arr.numpyDtype : null,
    order: v2 ? v2.order : null,
    readOnly: arr.readOnly,
    storeType: storeType(arr.store),
    compressor: v2 ? v2.compressor : null,
    filters: v2 ? v2.filters : null,
    codecs: arr.codecs,
    // As zarr.json holds it (one JSON writer): bytes as base64, a vlen-array's as its numbers, an
    // optional's present value wrapped once per level.
    fillValue: plainJson(fillValueToJson(arr.fillValue, dt, arr.zarrFormat)),
    nbytes,
    nbytesStored: stored,
    compressionRatio: stored && nbytes !== null ? nbytes / stored : null,
    chunksInitialized: keys && chunksAmong(arr, keys),
    chunksTotal: arr.chunkGrid.reduce((a, b) => a * b, 1),
    attributes: arr.attrs,
  };
}

/** The keys stored under the array's path. */
function storedKeys(arr: ZarrArray): Promise<string[]> {
  return arr.store.list(arr.path === "" ? "" : `${arr.path}/`);
}

/** How many chunks of the grid are stored. */
export async function nchunksInitialized(arr: ZarrArray): Promise<number> {
  return chunksAmong(arr, await storedKeys(arr));
}

/** How many chunks of the grid are among `listed` (chunk-iter.ts's rule). */
function chunksAmong(arr: ZarrArray, listed: readonly string[]): number {
  return chunkCoordsAmong(arr, listed).length;
}

/**
 * Bytes this array takes in its store: its metadata documents and every stored chunk, as
 * zarr-python's `nbytes_stored` counts them. Uses the store's `getSize` where it has one.
 */
export async function nbytesStored(arr: ZarrArray): Promise<number> {
  return bytesOf(arr, await storedKeys(arr));
}

/** The stored sizes of `keys`, summed. */
async function bytesOf(arr: ZarrArray, keys: readonly string[]): Promise<number> {
  const sizeOf = async (key: string): Promise<number> => {
    const n = arr.store.getSize ? await arr.store.getSize(key) : (await arr.store.get(key))?.length;
    return n ?? 0;
  };
  let total = 0;
  // A bounded number of stat calls in flight: a large array has many thousands of chunks.
  for (let i = 0; i < keys.length; i += 64) {
    const sizes = await Promise.all(keys.slice(i, i + 64).map(sizeOf));
    for (const n of sizes) total += n;
  }
  return total;
}
