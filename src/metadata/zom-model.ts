/**
 * Between metadata documents and ZEP 6 nodes: a node is its document with `attributes` ({} when
 * there are none) and, for groups, `members`. Both directions keep every field as the document
 * has it, so a model written out and read back is the same model.
 */
import type { RawNodeDocs } from "./consolidated.js";
import type { JsonObject } from "./json.js";
import type { AnyGroupSpecV2, AnyGroupSpecV3, AnyNodeSpecV2, AnyNodeSpecV3, ArraySpecV2, ArraySpecV3, NodeSpec } from "./zom-types.js";

export type NodeKind = "array" | "group";

export function rawKind(raw: RawNodeDocs): NodeKind {
  return raw.zarrFormat === 2 ? raw.kind : raw.doc.node_type === "array" ? "array" : "group";
}

/**
 * ZEP 6: a group document's own `members` field would collide with the model's, so it becomes
 * `_members` (and `_members` becomes `__members`, and so on); `unescapeMembers` undoes it.
 */
function escapeMembers(doc: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(doc)) out[/^_*members$/.test(k) ? `_${k}` : k] = v;
  return out;
}

function unescapeMembers(doc: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(doc)) out[/^_+members$/.test(k) ? k.slice(1) : k] = v;
  return out;
}

/**
 * The model of one node from its documents; `members` for a group. A v3 group's
 * `consolidated_metadata` is left out: it repeats the members.
 */
export function specFromDocs(raw: RawNodeDocs, members: { [name: string]: NodeSpec } | undefined): NodeSpec {
  if (raw.zarrFormat === 2) {
    const attributes = raw.attrs ?? {};
    if (raw.kind === "array") return { ...raw.doc, attributes } as unknown as ArraySpecV2;
    return { ...escapeMembers(raw.doc), attributes, members: (members ?? {}) as { [name: string]: AnyNodeSpecV2 } } as AnyGroupSpecV2;
  }
  const { consolidated_metadata: _cm, ...doc } = raw.doc;
  const attributes = (doc.attributes as JsonObject | undefined) ?? {};
  if (doc.node_type === "array") return { ...doc, attributes } as unknown as ArraySpecV3;
  return { ...escapeMembers(doc), attributes, members: (members ?? {}) as { [name: string]: AnyNodeSpecV3 } } as AnyGroupSpecV3;
}

/** The documents of one node of a model, by file name relative to the node. */
export function docsFromSpec(spec: NodeSpec): { file: string; doc: JsonObject }[] {
  const { members: _m, ...rest } = spec as NodeSpec & { members?: unknown };
  const node = "members" in spec ? unescapeMembers(rest as unknown as JsonObject) : (rest as unknown as JsonObject);
  if (spec.zarr_format === 3) return [{ file: "zarr.json", doc: node }];
  const { attributes, ...doc } = node;
  const file = "members" in spec ? ".zgroup" : ".zarray";
  const out = [{ file, doc }];
  // zarr-python 2 writes .zattrs only once there are attributes; so do we.
  const attrs = attributes as JsonObject;
  if (Object.keys(attrs).length > 0) out.push({ file: ".zattrs", doc: attrs });
  return out;
}
