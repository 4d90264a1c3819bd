/**
 * Reading node documents in a store: `zarr.json` for v3, `.zarray`/`.zgroup` with `.zattrs` for
 * v2. Writing them is node-writes.ts, loaded on first use (a page that only reads holds none).
 */
import { InvalidKeyError } from "../errors.js";
import {
  type NodeType,
  nodeTypeOfV3,
  type NodeMetadata,
  parseV2Array,
  parseV2Attributes,
  parseV2Group,
  parseV3,
} from "../metadata/array-metadata.js";
import { nodeKey } from "../metadata/chunk-key.js";
import type { JsonObject } from "../metadata/json.js";
import { metadataJson } from "../metadata/metadata-json.js";
import { validateKey } from "../stores/keys.js";
import type { ReadableStore, Store, WritableStore } from "../stores/types.js";

/** A node path inside a store: "" for the root, else `a/b` with validated segments. */
export function normalisePath(path: string | undefined): string {
  const p = (path ?? "").replace(/^\/+|\/+$/g, "");
  if (p === "") return "";
  try {
    return validateKey(p);
  } catch (err) {
    throw new InvalidKeyError(`invalid node path "${path}": ${(err as Error).message}`);
  }
}

export function describePath(path: string): string {
  return path === "" ? "the store root" : `"${path}"`;
}

/**
 * Where a node is, for messages a user reads first (not found, read-only, already there): the
 * store's folder, archive or URL and the path inside, since "the store root" alone hides which
 * store was meant.
 */
export function nodeLocation(store: Store, path: string): string {
  const d = store.descriptor();
  const where =
    "root" in d ? d.root : "path" in d ? d.path : "url" in d ? d.url : d.kind === "s3" ? `s3://${d.bucket}/${d.prefix}` : `a ${d.kind} store`;
  return path === "" ? `the root of ${where}` : `"${path}" in ${where}`;
}

async function readJson(store: ReadableStore, key: string): Promise<unknown | undefined> {
  const bytes = await store.get(key);
  return bytes == null ? undefined : metadataJson(bytes, key);
}

/** The node at `path`, or undefined when there is none (of the requested format). */
export async function readNode(store: ReadableStore, path: string, zarrFormat?: 2 | 3): Promise<NodeMetadata | undefined> {
  if (zarrFormat !== 2) {
    const key = nodeKey(path, "zarr.json");
    const doc = await readJson(store, key);
    if (doc !== undefined) return parseV3(doc, key);
  }
  if (zarrFormat !== 3) {
    const attrsKey = nodeKey(path, ".zattrs");
    const arrayKey = nodeKey(path, ".zarray");
    const [arrayDoc, attrsDoc] = await Promise.all([readJson(store, arrayKey), readJson(store, attrsKey)]);
    const attrs: JsonObject = attrsDoc === undefined ? {} : parseV2Attributes(attrsDoc, attrsKey);
    if (arrayDoc !== undefined) return { nodeType: "array", ...parseV2Array(arrayDoc, attrs, arrayKey) };
    const groupKey = nodeKey(path, ".zgroup");
    const groupDoc = await readJson(store, groupKey);
    if (groupDoc !== undefined) return { nodeType: "group", ...parseV2Group(groupDoc, attrs, groupKey) };
  }
  return undefined;
}

/**
 * Whether the node at `path` is an array or a group, from which documents exist and v3's
 * `node_type` alone: nothing else is validated, so a listing never fails for a child whose
 * codecs or data type parzarr cannot open. Undefined when no node is there.
 */
export async function readNodeType(store: ReadableStore, path: string): Promise<NodeType | undefined> {
  const key = nodeKey(path, "zarr.json");
  const doc = await readJson(store, key);
  if (doc !== undefined) return nodeTypeOfV3(doc, key);
  if (await store.has(nodeKey(path, ".zarray"))) return "array";
  return (await store.has(nodeKey(path, ".zgroup"))) ? "group" : undefined;
}

/** Removes a node and everything below it. */
export async function deleteNode(store: WritableStore, path: string): Promise<void> {
  await store.deletePrefix(path === "" ? "" : `${path}/`);
}

export function parentPaths(path: string): string[] {
  if (path === "") return [];
  const parts = path.split("/");
  const out = [""];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join("/"));
  return out;
}
