/**
 * Writing node documents in a store: `zarr.json` for v3, `.zarray`/`.zgroup` with `.zattrs` for
 * v2 (node-io.ts reads them), and creating nodes (clearing the way, ancestor groups). Reached
 * through lazy-features.ts only, with the serialiser and the documents' writers it imports, so a
 * page that only reads never loads them; nodes.ts makes the new nodes' handles.
 */
import { AlreadyExistsError, NodeTypeError } from "../errors.js";
import type { ArrayMetadata, GroupMetadata } from "../metadata/array-metadata.js";
import { nodeKey } from "../metadata/chunk-key.js";
import { v2ArrayDocument, v2AttributesDocument, v2GroupDocument, v3ArrayDocument, v3GroupDocument } from "../metadata/documents.js";
import type { JsonObject } from "../metadata/json.js";
import type { WritableStore } from "../stores/types.js";
import { buildArrayMetadata, type CreateArrayOptions } from "./create-options.js";
import { deleteNode, describePath, nodeLocation, parentPaths, readNode } from "./node-io.js";

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

/** Refuses to create over an existing node, saying what is there and how to replace it. */
async function refuseExisting(store: WritableStore, path: string): Promise<void> {
  const existing = await readNode(store, path);
  if (existing) {
    const what = existing.nodeType === "array" ? "an array" : "a group";
    throw new AlreadyExistsError(
      `${nodeLocation(store, path)} already holds ${what}; pass overwrite: true (or mode "w") to replace it, or open it with mode "r+" or "a"`,
    );
  }
}

/**
 * Clears the way for a new node: refuses or removes what is there, and makes ancestor groups.
 * `checked`: the caller has already refused an existing node.
 */
export async function prepareNode(store: WritableStore, path: string, zarrFormat: 2 | 3, overwrite: boolean, checked = false): Promise<void> {
  if (!overwrite && !checked) await refuseExisting(store, path);
  if (overwrite) await deleteNode(store, path);
  // The v2 spec (and zarr-python for both versions) makes every ancestor a group.
  for (const parent of parentPaths(path)) {
    const node = await readNode(store, parent);
    if (node?.nodeType === "array") {
      throw new NodeTypeError(`cannot create ${describePath(path)}: its ancestor ${describePath(parent)} is an array`);
    }
    if (!node) await writeGroupMetadata(store, parent, { zarrFormat, attributes: {} });
  }
}

/** createArray's documents: the options checked, the way cleared, the array's document written. */
export async function createArrayNode(store: WritableStore, path: string, options: CreateArrayOptions): Promise<ArrayMetadata> {
  const overwrite = options.overwrite ?? false;
  // An existing node first: `openArray(path, { mode: "w-" })` without creation options on an
  // existing array is ALREADY_EXISTS, not a complaint about the missing shape.
  if (!overwrite) await refuseExisting(store, path);
  // Everything is validated before the first byte is written.
  const meta = await buildArrayMetadata(options);
  await prepareNode(store, path, meta.zarrFormat, overwrite, true);
  await writeArrayMetadata(store, path, meta);
  return meta;
}

/** createGroup's documents: the way cleared, the group's document written. */
export async function createGroupNode(store: WritableStore, path: string, meta: GroupMetadata, overwrite: boolean): Promise<void> {
  await prepareNode(store, path, meta.zarrFormat, overwrite);
  await writeGroupMetadata(store, path, meta);
}
