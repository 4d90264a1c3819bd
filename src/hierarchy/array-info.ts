/**
 * An array's `info()` as data (info.ts has the types, a group's and zarr-python's text). Loaded
 * with the first `info()` (lazy-features.ts): a page that only reads never builds one.
 */
import { innermostType, isObjectType } from "../metadata/dtype.js";
import { fillValueToJson } from "../metadata/fill-value.js";
import { plainJson } from "../metadata/json.js";
import { dataTypeLabel, hasNumpyForm } from "../metadata/dtype-names.js";
// Types only: the handle imports this module (on first use) to answer `info()`.
import type { ZarrArray } from "./array.js";
import { orNull, storeType, type ArrayInfo } from "./info.js";

export async function arrayInfo(arr: ZarrArray): Promise<ArrayInfo> {
  const dt = arr.dataType;
  // An optional counts its values only, as zarrs' nbytes: the mask components in memory are not data.
  const nbytes = isObjectType(dt) ? null : arr.size * innermostType(dt).itemSize;
  const stored = await orNull(arr.store, () => arr.nbytesStored());
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
    chunksInitialized: await orNull(arr.store, () => arr.nchunksInitialized()),
    chunksTotal: arr.chunkGrid.reduce((a, b) => a * b, 1),
    attributes: arr.attrs,
  };
}
