/**
 * Opening through consolidated metadata, and writing it. A group opened from a store whose
 * group holds consolidated metadata (`.zmetadata`, or v3 inline `consolidated_metadata`) serves
 * `get`, `members` and `contains` for its whole subtree from that one document, without listing
 * the store or reading each node's metadata.
 */
import { InvalidMetadataError, NodeTypeError, NotFoundError } from "../errors.js";
import {
  type NodeMetadata,
  type NodeType,
  nodeTypeOfV3,
  parseV2Array,
  parseV2Group,
  parseV3,
} from "../metadata/array-metadata.js";
import { nodeKey } from "../metadata/chunk-key.js";
import {
  type ConsolidatedNodes,
  type RawNodeDocs,
  V2_CONSOLIDATED_KEY,
  parseV2Consolidated,
  parseV3Consolidated,
  v2ConsolidatedDocument,
  v3ConsolidatedRootDocument,
  v3EntryText,
} from "../metadata/consolidated.js";
import { type JsonObject, isJsonObject, jsonTextOf } from "../metadata/json.js";
import { metadataJson, metadataText } from "../metadata/metadata-json.js";
import { resolveStoreOnDemand } from "../stores/routes.js";
import type { ReadableStore, Store } from "../stores/types.js";
import { describePath, normalisePath, readNode } from "./node-io.js";
import { requireWritable } from "./nodes.js";

/** The metadata of one consolidated subtree, shared by every handle opened from it. */
export class ConsolidatedView {
  /**
   * Set once a handle writes metadata below the root: the document no longer tells the truth,
   * so every handle goes back to the store (re-consolidate to get one-read opens again).
   */
  stale = false;
  private readonly parsed = new Map<string, NodeMetadata>();

  constructor(
    /** The store path of the group that holds the consolidated document. */
    readonly root: string,
    readonly zarrFormat: 2 | 3,
    readonly nodes: ConsolidatedNodes,
  ) {}

  private relative(path: string): string | undefined {
    if (this.root === "") return path;
    if (path === this.root) return "";
    return path.startsWith(`${this.root}/`) ? path.slice(this.root.length + 1) : undefined;
  }

  /** Whether this view answers for `path` (inside its subtree and not stale). */
  covers(path: string): boolean {
    return !this.stale && this.relative(path) !== undefined;
  }

  /** The node at a store path, or undefined when the consolidated document lists none there. */
  node(path: string): NodeMetadata | undefined {
    const rel = this.relative(path);
    if (rel === undefined) return undefined;
    const cached = this.parsed.get(rel);
    if (cached) return cached;
    const raw = this.nodes.get(rel);
    if (!raw) return undefined;
    const meta = parseRawNode(raw, rel === "" ? "" : rel, `consolidated metadata of ${describePath(this.root)}`);
    this.parsed.set(rel, meta);
    return meta;
  }

  /** Whether the node at a store path is an array or a group, without validating the rest of it. */
  nodeType(path: string): NodeType | undefined {
    const rel = this.relative(path);
    const raw = rel === undefined ? undefined : this.nodes.get(rel);
    if (!raw) return undefined;
    return raw.zarrFormat === 3 ? nodeTypeOfV3(raw.doc, `consolidated metadata of ${describePath(this.root)}: ${rel}`) : raw.kind;
  }

  /** The names of the direct children of a store path, sorted. */
  children(path: string): string[] {
    const rel = this.relative(path);
    if (rel === undefined) return [];
    const prefix = rel === "" ? "" : `${rel}/`;
    const out: string[] = [];
    for (const key of this.nodes.keys()) {
      if (key === "" || !key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      if (rest !== "" && !rest.includes("/")) out.push(rest);
    }
    return out.sort();
  }
}

function parseRawNode(raw: RawNodeDocs, rel: string, where: string): NodeMetadata {
  const file = (name: string) => `${where}: ${rel === "" ? name : `${rel}/${name}`}`;
  if (raw.zarrFormat === 3) return parseV3(raw.doc, file("zarr.json"));
  const attrs = raw.attrs ?? {};
  return raw.kind === "array"
    ? { nodeType: "array", ...parseV2Array(raw.doc, attrs, file(".zarray")) }
    : { nodeType: "group", ...parseV2Group(raw.doc, attrs, file(".zgroup")) };
}

/** A broken consolidated document need not lock a user out: say how to open without it. */
function withHint<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof InvalidMetadataError)) throw err;
    throw new InvalidMetadataError(`${err.message} (open with { consolidated: false } to read the nodes' own metadata)`, { cause: err });
  }
}

async function readJson(store: ReadableStore, key: string): Promise<unknown | undefined> {
  const bytes = await store.get(key);
  return bytes == null ? undefined : metadataJson(bytes, key);
}

/**
 * The node at `path` and, when it is a group holding consolidated metadata (and `consolidated`
 * is not false), a view of its subtree. Without a format, `zarr.json` and `.zmetadata` are read
 * at the same time: one round trip whichever version the store holds.
 */
export async function readNodeConsolidated(
  store: ReadableStore,
  path: string,
  zarrFormat: 2 | 3 | undefined,
  consolidated = true,
): Promise<{ meta: NodeMetadata | undefined; view?: ConsolidatedView }> {
  if (!consolidated) return { meta: await readNode(store, path, zarrFormat) };
  const v3Key = nodeKey(path, "zarr.json");
  const v2Key = nodeKey(path, V2_CONSOLIDATED_KEY);
  const [v3Doc, v2Doc] = await Promise.all([
    zarrFormat === 2 ? undefined : readJson(store, v3Key),
    zarrFormat === 3 ? undefined : readJson(store, v2Key),
  ]);
  if (v3Doc !== undefined) {
    const meta = parseV3(v3Doc, v3Key);
    const nodes = meta.nodeType === "group" && isJsonObject(v3Doc) ? withHint(() => parseV3Consolidated(v3Doc, v3Key)) : undefined;
    return { meta, view: nodes && new ConsolidatedView(path, 3, nodes) };
  }
  if (v2Doc !== undefined) {
    const view = new ConsolidatedView(path, 2, withHint(() => parseV2Consolidated(v2Doc, v2Key, path)));
    const meta = view.node(path);
    // A .zmetadata that does not describe its own group is not one we can trust for the subtree.
    if (meta?.nodeType === "group") return { meta, view };
  }
  // zarr.json was read already (and is absent): only v2 documents are left to look for.
  return { meta: zarrFormat === 3 ? undefined : await readNode(store, path, 2) };
}

// ---------------------------------------------------------------------------------------------
// Writing

async function readText(store: ReadableStore, key: string): Promise<string | undefined> {
  const bytes = await store.get(key);
  if (bytes == null) return undefined;
  const text = jsonTextOf(bytes, key);
  await metadataText(text, key); // refuse to consolidate a broken document
  return text;
}

/**
 * The metadata documents below a group, by key relative to it. Each folder's documents are read
 * by name and only groups (and folders that are no node) are listed, so an array's chunks are
 * never listed (zarr-python lists every key in the store).
 */
async function collectDocuments(store: ReadableStore, root: string, zarrFormat: 2 | 3): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const visit = async (rel: string): Promise<void> => {
    const dir = rel === "" ? root : root === "" ? rel : `${root}/${rel}`;
    const prefix = dir === "" ? "" : `${dir}/`;
    const relPrefix = rel === "" ? "" : `${rel}/`;
    const take = async (name: string) => {
      const text = await readText(store, prefix + name);
      if (text !== undefined) found.set(relPrefix + name, text);
      return text;
    };
    if (zarrFormat === 2) {
      const [array] = await Promise.all([take(".zarray"), take(".zattrs")]);
      if (array !== undefined) return;
      await take(".zgroup");
    } else {
      const text = await take("zarr.json");
      const doc: unknown = text === undefined ? undefined : await metadataText(text, prefix + "zarr.json");
      if (isJsonObject(doc) && doc.node_type === "array") return;
    }
    const { prefixes } = await store.listDir(prefix);
    await Promise.all(prefixes.map((p) => visit(relPrefix + p)));
  };
  await visit("");
  return found;
}

/** Options of consolidateMetadata. */
export interface ConsolidateOptions {
  /** The group to consolidate ("" or omitted: the root). */
  path?: string;
}

/**
 * Writes consolidated metadata for the group at `path` and everything below it: v2 `.zmetadata`
 * beside its `.zgroup` (zarr-python 2's layout), or v3 `consolidated_metadata` inside its
 * `zarr.json` (zarr-python 3's). The hierarchy is found by listing the store, never from an older
 * consolidated document. Call it again after changing metadata: readers trust what it wrote.
 */
export async function consolidateMetadata(input: string | URL | Store, options: ConsolidateOptions = {}): Promise<void> {
  const store = await resolveStoreOnDemand(input);
  const path = normalisePath(options.path);
  const writable = requireWritable(store, path);
  const root = await readNode(store, path);
  if (!root) throw new NotFoundError(`no group at ${describePath(path)} to consolidate`);
  if (root.nodeType !== "group") throw new NodeTypeError(`cannot consolidate ${describePath(path)}: it is an array, not a group`);
  const texts = await collectDocuments(store, path, root.zarrFormat);
  if (root.zarrFormat === 2) {
    await writable.set(nodeKey(path, V2_CONSOLIDATED_KEY), v2ConsolidatedDocument(texts));
    return;
  }
  const rootText = texts.get("zarr.json");
  if (rootText === undefined) throw new NotFoundError(`${nodeKey(path, "zarr.json")} disappeared while consolidating`);
  const rootDoc = (await metadataText(rootText, nodeKey(path, "zarr.json"))) as JsonObject;
  const docs = new Map<string, string>();
  for (const [key, text] of texts) {
    if (key === "zarr.json") continue;
    const doc: unknown = await metadataText(text, nodeKey(path, key));
    if (!isJsonObject(doc)) throw new InvalidMetadataError(`${nodeKey(path, key)}: must be a JSON object`);
    // Only v3 nodes belong in a v3 group's consolidated metadata.
    if (doc.zarr_format !== 3) continue;
    docs.set(key.slice(0, -"/zarr.json".length), v3EntryText(doc, text));
  }
  await writable.set(nodeKey(path, "zarr.json"), v3ConsolidatedRootDocument(rootDoc, docs));
}
