/**
 * Writing node documents in a store: `zarr.json` for v3, `.zarray`/`.zgroup` with `.zattrs` for
 * v2 (node-io.ts reads them). Reached through lazy-features.ts only, with the serialiser and the
 * documents' writers it imports, so a page that only reads never loads them.
 */
import type { ArrayMetadata, GroupMetadata } from "../metadata/array-metadata.js";
import { nodeKey } from "../metadata/chunk-key.js";
import { v2ArrayDocument, v2AttributesDocument, v2GroupDocument, v3ArrayDocument, v3GroupDocument } from "../metadata/documents.js";
import type { JsonObject } from "../metadata/json.js";
import type { WritableStore } from "../stores/types.js";

export async function writeArrayMetadata(store: WritableStore, path: string, meta: ArrayMetadata): Promise<void> {
  if (meta.zarrFormat === 3) {
    await store.set(nodeKey(path, "zarr.json"), v3ArrayDocument(meta));
    return;
  }
  await store.set(nodeKey(path, ".zarray"), v2ArrayDocument(meta));
  await writeV2Attributes(store, path, meta.attributes);
}

export async function writeGroupMetadata(store: WritableStore, path: string, meta: GroupMetadata): Promise<void> {
  if (meta.zarrFormat === 3) {
    await store.set(nodeKey(path, "zarr.json"), v3GroupDocument(meta.attributes));
    return;
  }
  await store.set(nodeKey(path, ".zgroup"), v2GroupDocument());
  await writeV2Attributes(store, path, meta.attributes);
}

/** zarr-python 2 writes `.zattrs` only once there are attributes; we do the same. */
async function writeV2Attributes(store: WritableStore, path: string, attrs: JsonObject): Promise<void> {
  const key = nodeKey(path, ".zattrs");
  if (Object.keys(attrs).length > 0) await store.set(key, v2AttributesDocument(attrs));
  else await store.delete(key);
}
