/**
 * Consolidated metadata documents: every node's metadata of a hierarchy in one document at its
 * root group, so that opening the hierarchy takes one read.
 *
 * - v2 (zarr-python 2): `.zmetadata` = `{"metadata": {".zgroup": {...}, "a/.zarray": {...},
 *   "a/.zattrs": {...}}, "zarr_consolidated_format": 1}`, keys relative to the group.
 * - v3 (zarr-python 3): the root group's `zarr.json` holds `"consolidated_metadata": {"kind":
 *   "inline", "must_understand": false, "metadata": {"a": {...a's zarr.json...}, "a/b": {...}}}`.
 *
 * The writers splice each node's document in as the text it had in the store: JSON.parse would
 * round integers beyond 2^53 (an int64 fill value), and consolidation must not change metadata.
 */
import { InvalidMetadataError } from "../errors.js";
import { type JsonObject, isJsonObject } from "./json.js";
import { jsonBytes, serialiseJson } from "./json-write.js";

export const V2_CONSOLIDATED_KEY = ".zmetadata";

/** One node's documents, as found in a consolidated document or in the store. */
export type RawNodeDocs =
  | { zarrFormat: 3; doc: JsonObject }
  | { zarrFormat: 2; kind: "array" | "group"; doc: JsonObject; attrs: JsonObject | undefined };

/** The nodes below a consolidated group, by path relative to it ("" is the group itself). */
export type ConsolidatedNodes = Map<string, RawNodeDocs>;

const V2_NAMES = [".zarray", ".zgroup", ".zattrs"] as const;

function splitV2Key(key: string): [string, (typeof V2_NAMES)[number]] | undefined {
  const slash = key.lastIndexOf("/");
  const name = key.slice(slash + 1);
  if (!(V2_NAMES as readonly string[]).includes(name)) return undefined;
  return [slash < 0 ? "" : key.slice(0, slash), name as (typeof V2_NAMES)[number]];
}

/**
 * The nodes of a `.zmetadata`. Keys are relative to the group that holds it (zarr-python 3, and
 * zarr-python 2 at the store root); zarr-python 2 keys a `.zmetadata` below the root from the
 * store root instead, which `groupPath` lets us recognise and rebase.
 */
export function parseV2Consolidated(doc: unknown, file: string, groupPath = ""): ConsolidatedNodes {
  if (!isJsonObject(doc)) throw new InvalidMetadataError(`${file}: must be a JSON object`);
  if (doc.zarr_consolidated_format !== 1) {
    throw new InvalidMetadataError(`${file}: unsupported zarr_consolidated_format ${JSON.stringify(doc.zarr_consolidated_format)} (only 1)`);
  }
  const meta = doc.metadata;
  if (!isJsonObject(meta)) throw new InvalidMetadataError(`${file}: field "metadata" must be a JSON object`);
  const arrays = new Map<string, JsonObject>();
  const groups = new Map<string, JsonObject>();
  const attrs = new Map<string, JsonObject>();
  for (const [key, value] of Object.entries(meta)) {
    const parts = splitV2Key(key);
    // zarr-python copies only these three kinds of key; anything else is not ours to judge.
    if (!parts) continue;
    if (!isJsonObject(value)) throw new InvalidMetadataError(`${file}: metadata "${key}" must be a JSON object`);
    const [path, name] = parts;
    (name === ".zarray" ? arrays : name === ".zgroup" ? groups : attrs).set(path, value);
  }
  const nodes: ConsolidatedNodes = new Map();
  for (const [path, d] of groups) nodes.set(path, { zarrFormat: 2, kind: "group", doc: d, attrs: attrs.get(path) });
  // An array's .zarray wins over a stray .zgroup at the same path, as it does when reading a store.
  for (const [path, d] of arrays) nodes.set(path, { zarrFormat: 2, kind: "array", doc: d, attrs: attrs.get(path) });
  // Store-wide keys hold the group under its full path and every ancestor group on the way. The
  // one ambiguity (a group "a" whose own child is "a") is read the store-wide way.
  const parts = groupPath.split("/");
  const ancestors = parts.map((_, i) => parts.slice(0, i).join("/"));
  const storeWide = groupPath !== "" && nodes.has(groupPath) && ancestors.every((a) => {
    const n = nodes.get(a);
    return n?.zarrFormat === 2 && n.kind === "group";
  });
  if (!storeWide) return nodes;
  const rebased: ConsolidatedNodes = new Map();
  for (const [path, node] of nodes) {
    if (path === groupPath) rebased.set("", node);
    else if (path.startsWith(`${groupPath}/`)) rebased.set(path.slice(groupPath.length + 1), node);
  }
  return rebased;
}

/** The nodes listed in a v3 group's `consolidated_metadata`, or undefined when it has none. */
export function parseV3Consolidated(rootDoc: JsonObject, file: string): ConsolidatedNodes | undefined {
  const cm = rootDoc.consolidated_metadata;
  if (cm === undefined || cm === null) return undefined;
  if (!isJsonObject(cm) || !isJsonObject(cm.metadata)) {
    throw new InvalidMetadataError(`${file}: field "consolidated_metadata" must be an object with a "metadata" object`);
  }
  if (cm.kind !== undefined && cm.kind !== "inline") {
    throw new InvalidMetadataError(`${file}: consolidated_metadata kind ${JSON.stringify(cm.kind)} is not supported (only "inline")`);
  }
  const nodes: ConsolidatedNodes = new Map([["", { zarrFormat: 3, doc: rootDoc }]]);
  for (const [key, value] of Object.entries(cm.metadata)) {
    const path = key.replace(/^\/+|\/+$/g, "");
    if (!isJsonObject(value) || path === "") {
      throw new InvalidMetadataError(`${file}: consolidated_metadata entry "${key}" must be a node's zarr.json object`);
    }
    nodes.set(path, { zarrFormat: 3, doc: value });
  }
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** A document's text indented to sit `depth` levels deep (JSON strings hold no raw newlines). */
function nest(text: string, pad: string): string {
  return text.trim().replace(/\n/g, `\n${pad}`);
}

function spliceObject(entries: [string, string][], indent: number, depth: number, asciiOnly: boolean): string {
  if (entries.length === 0) return "{}";
  const inner = " ".repeat(indent * (depth + 1));
  const outer = " ".repeat(indent * depth);
  const items = entries.map(([k, text]) => `${inner}${serialiseJson(k, { indent, sortKeys: false, asciiOnly })}: ${nest(text, inner)}`);
  return `{\n${items.join(",\n")}\n${outer}}`;
}

const encoder = new TextEncoder();

/** `.zmetadata` from the v2 documents' texts, keyed as zarr-python keys them (`a/.zarray`). */
export function v2ConsolidatedDocument(docs: Map<string, string>): Uint8Array {
  const entries = [...docs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = `{\n    "metadata": ${spliceObject(entries, 4, 1, true)},\n    "zarr_consolidated_format": 1\n}`;
  return encoder.encode(text);
}

/** The root group's zarr.json with `consolidated_metadata` listing the nodes' zarr.json texts. */
export function v3ConsolidatedRootDocument(rootDoc: JsonObject, docs: Map<string, string>): Uint8Array {
  const marker = "\u0000consolidated\u0000";
  const { consolidated_metadata: _old, ...rest } = rootDoc;
  const withMarker = { ...rest, consolidated_metadata: marker };
  const base = serialiseJson(withMarker, { indent: 2, sortKeys: false, asciiOnly: false });
  // zarr-python 3 (since 3.1.1) orders entries by depth, then by path: deterministic output.
  const depth = (p: string) => p.split("/").length;
  const entries = [...docs.entries()].sort(([a], [b]) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  const cm = `{\n    "kind": "inline",\n    "must_understand": false,\n    "metadata": ${spliceObject(entries, 2, 2, false)}\n  }`;
  const quoted = serialiseJson(marker, { indent: 2, sortKeys: false, asciiOnly: false });
  return encoder.encode(base.replace(quoted, () => cm));
}

/** A node's document text for a consolidated v3 entry: nested caches of subgroups are dropped. */
export function v3EntryText(doc: JsonObject, text: string): string {
  if (doc.node_type === "group" && doc.consolidated_metadata !== undefined && doc.consolidated_metadata !== null) {
    return new TextDecoder().decode(jsonBytes({ ...doc, consolidated_metadata: null }, { indent: 2, sortKeys: false, asciiOnly: false }));
  }
  return text;
}
