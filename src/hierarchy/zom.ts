/**
 * Whole hierarchies as data (ZEP 6): read a hierarchy's model, write a hierarchy from a model,
 * compare and validate models. The model is plain JSON (see metadata/zom-types.ts), so it can be
 * printed, stored, sent and diffed.
 */
import type { z } from "zod";
import { InvalidMetadataError, NotFoundError, UnsupportedError } from "../errors.js";
import { loadOptional } from "../optional-deps.js";
import { parseV2Array, parseV3 } from "../metadata/array-metadata.js";
import { nodeKey } from "../metadata/chunk-key.js";
import {
  type ConsolidatedNodes,
  type RawNodeDocs,
  V2_CONSOLIDATED_KEY,
  parseV2Consolidated,
  parseV3Consolidated,
} from "../metadata/consolidated.js";
import { type JsonObject, isJsonObject } from "../metadata/json.js";
import { jsonBytes } from "../metadata/json-write.js";
import { metadataJson, rareTypesReady } from "../metadata/metadata-json.js";
import { type ZomDifference, diffSpecs } from "../metadata/zom-diff.js";
import { docsFromSpec, rawKind, specFromDocs } from "../metadata/zom-model.js";
import { type ZomIssue, formatZomIssue, zomIssues } from "../metadata/zom-issues.js";
import type { AnyGroupSpecV2, AnyGroupSpecV3, ArraySpecV2, ArraySpecV3, NodeSpec } from "../metadata/zom-types.js";
import { walkSpec } from "../metadata/zom-types.js";
import { resolveStoreOnDemand } from "../stores/routes.js";
import type { ReadableStore } from "../stores/types.js";
import { ZarrArray } from "./array.js";
import { consolidateMetadata } from "./consolidated.js";
import { Group } from "./group.js";
import { describePath, normalisePath } from "./node-io.js";
import { prepareNode, requireWritable } from "./nodes.js";
import { type StoreInput, open } from "./open.js";

const join = (path: string, name: string) => (path === "" ? name : name === "" ? path : `${path}/${name}`);

/** Where a model's documents come from: one consolidated document, or the store itself. */
interface DocSource {
  node(rel: string): Promise<RawNodeDocs | undefined>;
  children(rel: string): Promise<string[]>;
}

function consolidatedSource(nodes: ConsolidatedNodes): DocSource {
  return {
    node: async (rel) => nodes.get(rel),
    children: async (rel) => {
      const prefix = rel === "" ? "" : `${rel}/`;
      return [...nodes.keys()].filter((k) => k !== "" && k.startsWith(prefix) && !k.slice(prefix.length).includes("/")).map((k) => k.slice(prefix.length));
    },
  };
}

async function readObject(store: ReadableStore, key: string): Promise<JsonObject | undefined> {
  const bytes = await store.get(key);
  if (bytes == null) return undefined;
  const doc = await metadataJson(bytes, key);
  if (!isJsonObject(doc)) throw new InvalidMetadataError(`${key}: must be a JSON object`);
  return doc;
}

function storeSource(store: ReadableStore, root: string, zarrFormat: 2 | 3): DocSource {
  return {
    async node(rel) {
      const path = join(root, rel);
      if (zarrFormat === 3) {
        const doc = await readObject(store, nodeKey(path, "zarr.json"));
        return doc && doc.zarr_format === 3 ? { zarrFormat: 3, doc } : undefined;
      }
      const [array, attrs] = await Promise.all([readObject(store, nodeKey(path, ".zarray")), readObject(store, nodeKey(path, ".zattrs"))]);
      if (array) return { zarrFormat: 2, kind: "array", doc: array, attrs };
      const group = await readObject(store, nodeKey(path, ".zgroup"));
      return group ? { zarrFormat: 2, kind: "group", doc: group, attrs } : undefined;
    },
    async children(rel) {
      const path = join(root, rel);
      return (await store.listDir(path === "" ? "" : `${path}/`)).prefixes;
    },
  };
}

async function buildSpec(source: DocSource, rel: string, raw: RawNodeDocs): Promise<NodeSpec> {
  if (rawKind(raw) === "array") return specFromDocs(raw, undefined);
  const names = [...(await source.children(rel))].sort();
  const children = await Promise.all(names.map(async (name) => [name, await source.node(join(rel, name))] as const));
  const members: { [name: string]: NodeSpec } = {};
  for (const [name, child] of children) {
    // A folder without metadata is not a node; a node of the other version is not a member.
    if (child && child.zarrFormat === raw.zarrFormat) members[name] = await buildSpec(source, join(rel, name), child);
  }
  return specFromDocs(raw, members);
}

/**
 * zod loads here, on the first model checked, not when the library is imported (≈ 0.3 s); it is
 * an optional peer dependency, so without it checking a model is a MissingDependencyError.
 */
async function checkModel(spec: unknown, zarrFormat: 2 | 3, what: string): Promise<void> {
  const { nodeSpecSchema } = await loadOptional(["zod"], "checking a Zarr object model", () => import("../metadata/zom-schema.js"));
  const result = nodeSpecSchema(zarrFormat).safeParse(spec);
  if (!result.success) {
    const issues = zomIssues(result.error).map(formatZomIssue);
    throw new InvalidMetadataError(`${what} is not a valid Zarr v${zarrFormat} object model: ${issues.join("; ")}`);
  }
}

/** Options of fromZarr. */
export interface FromZarrOptions {
  /** The node's path inside the store (for a path or store input). */
  path?: string;
  /** Only look for this format (for a path or store input). */
  zarrFormat?: 2 | 3;
  /** Use consolidated metadata when the group has some (default true). */
  consolidated?: boolean;
}

/**
 * The model of an existing hierarchy: from its consolidated metadata when it has some (one read),
 * else by listing the store. Members of the other Zarr version are left out.
 */
export async function fromZarr(input: Group, options?: FromZarrOptions): Promise<AnyGroupSpecV2 | AnyGroupSpecV3>;
export async function fromZarr(input: ZarrArray, options?: FromZarrOptions): Promise<ArraySpecV2 | ArraySpecV3>;
export async function fromZarr(input: StoreInput | Group | ZarrArray, options?: FromZarrOptions): Promise<NodeSpec>;
export async function fromZarr(input: StoreInput | Group | ZarrArray, options: FromZarrOptions = {}): Promise<NodeSpec> {
  const handle = input instanceof Group || input instanceof ZarrArray;
  const store = handle ? input.store : await resolveStoreOnDemand(input, { readOnly: true });
  const path = handle ? input.path : normalisePath(options.path);
  const zarrFormat = handle ? input.zarrFormat : options.zarrFormat;
  const found = await findRoot(store, path, zarrFormat, options.consolidated ?? true);
  if (!found) throw new NotFoundError(`no array or group at ${describePath(path)}`);
  const spec = await buildSpec(found.source, "", found.root);
  await checkModel(spec, found.root.zarrFormat, `the hierarchy at ${describePath(path)}`);
  return spec;
}

/**
 * The root's documents and where the rest come from. Nothing is parsed into parzarr's array
 * model here: a model describes data types and codecs that parzarr may not read yet.
 */
async function findRoot(
  store: ReadableStore,
  path: string,
  zarrFormat: 2 | 3 | undefined,
  consolidated: boolean,
): Promise<{ root: RawNodeDocs; source: DocSource } | undefined> {
  const [v3Doc, v2Doc] = await Promise.all([
    zarrFormat === 2 ? undefined : readObject(store, nodeKey(path, "zarr.json")),
    zarrFormat === 3 || !consolidated ? undefined : readObject(store, nodeKey(path, V2_CONSOLIDATED_KEY)),
  ]);
  if (v3Doc?.zarr_format === 3) {
    const nodes = consolidated && v3Doc.node_type === "group" ? parseV3Consolidated(v3Doc, nodeKey(path, "zarr.json")) : undefined;
    const root: RawNodeDocs = { zarrFormat: 3, doc: v3Doc };
    return { root, source: nodes ? consolidatedSource(nodes) : storeSource(store, path, 3) };
  }
  if (v2Doc !== undefined) {
    const nodes = parseV2Consolidated(v2Doc, nodeKey(path, V2_CONSOLIDATED_KEY), path);
    const root = nodes.get("");
    if (root && root.zarrFormat === 2 && root.kind === "group") return { root, source: consolidatedSource(nodes) };
  }
  if (zarrFormat === 3) return undefined;
  const source = storeSource(store, path, 2);
  const root = await source.node("");
  return root && { root, source };
}

/** Options of toZarr. */
export interface ToZarrOptions {
  /** Where the root of the model goes inside the store ("" or omitted: the store root). */
  path?: string;
  /** Replace what is at the path (and everything below it); otherwise an existing node is an error. */
  overwrite?: boolean;
  /** Also write consolidated metadata for the new hierarchy (when its root is a group). */
  consolidate?: boolean;
}

const V2_JSON = { indent: 4, sortKeys: true, asciiOnly: true } as const;
const V3_JSON = { indent: 2, sortKeys: false, asciiOnly: false } as const;

/** The documents must also be metadata that parzarr can open; data types it lacks are allowed. */
function checkDocuments(spec: NodeSpec): void {
  for (const [rel, node] of walkSpec(spec)) {
    if ("members" in node) continue;
    const file = `${rel === "" ? "the root" : `"${rel}"`}`;
    try {
      const docs = docsFromSpec(node);
      if (node.zarr_format === 3) parseV3(docs[0]?.doc, `${file}: zarr.json`);
      else parseV2Array(docs[0]?.doc, node.attributes, `${file}: .zarray`);
    } catch (err) {
      if (!(err instanceof UnsupportedError)) throw err;
    }
  }
}

/**
 * Writes the hierarchy a model describes: every node's metadata, no chunks (arrays read as their
 * fill value until written). Everything is checked before the first write. Returns the root.
 */
export async function toZarr(spec: AnyGroupSpecV2 | AnyGroupSpecV3, input: StoreInput, options?: ToZarrOptions): Promise<Group>;
export async function toZarr(spec: ArraySpecV2 | ArraySpecV3, input: StoreInput, options?: ToZarrOptions): Promise<ZarrArray>;
export async function toZarr(spec: NodeSpec, input: StoreInput, options?: ToZarrOptions): Promise<Group | ZarrArray>;
export async function toZarr(spec: NodeSpec, input: StoreInput, options: ToZarrOptions = {}): Promise<Group | ZarrArray> {
  // A model may come from JSON.parse: its version is checked before anything trusts the type.
  const format: unknown = isJsonObject(spec as unknown) ? (spec as { zarr_format?: unknown }).zarr_format : undefined;
  const zarrFormat = format === 2 || format === 3 ? format : undefined;
  if (zarrFormat === undefined) {
    throw new InvalidMetadataError(`a Zarr object model needs "zarr_format": 2 or 3 at its root`);
  }
  await checkModel(spec, zarrFormat, "the model");
  await rareTypesReady(spec);
  checkDocuments(spec);
  const store = await resolveStoreOnDemand(input);
  const path = normalisePath(options.path);
  const writable = requireWritable(store, path);
  await prepareNode(writable, path, zarrFormat, options.overwrite ?? false);
  const json = zarrFormat === 2 ? V2_JSON : V3_JSON;
  for (const [rel, node] of walkSpec(spec)) {
    const nodePath = join(path, rel);
    for (const { file, doc } of docsFromSpec(node)) await writable.set(nodeKey(nodePath, file), jsonBytes(doc, json));
  }
  const isGroup = "members" in spec;
  if (options.consolidate && isGroup) await consolidateMetadata(store, { path });
  return open(store, { path, mode: "r+", zarrFormat });
}

function isSpec(x: unknown): x is NodeSpec {
  return isJsonObject(x) && !(x instanceof Group) && !(x instanceof ZarrArray) && "zarr_format" in x;
}

/** A model, an opened node, or what openGroup takes. @inline */
type ModelInput = NodeSpec | Group | ZarrArray | StoreInput;

async function modelOf(x: ModelInput): Promise<NodeSpec> {
  return isSpec(x) ? x : fromZarr(x);
}

/**
 * The differences between two models, or a model and a hierarchy (a Group, an array, or a
 * path or store whose root node is read): `want` is the first one's value, `got` the second's.
 */
export async function diffZarr(want: ModelInput, got: ModelInput): Promise<ZomDifference[]> {
  const [a, b] = await Promise.all([modelOf(want), modelOf(got)]);
  return diffSpecs(a, b);
}

/** What validateZarr answers: the model typed by the schema, or the issues found (and a message listing them). */
export type ZomValidation<T> =
  | { success: true; data: T; issues: [] }
  | { success: false; issues: ZomIssue[]; message: string };

/**
 * Checks a model, or the model of a hierarchy, against a schema (`xarraySchema(2)`, or one built
 * with `groupSpecV2Schema(...)`). Issues name the node and the field.
 */
export async function validateZarr<T>(schema: z.ZodType<T>, input: ModelInput): Promise<ZomValidation<T>> {
  const model = await modelOf(input);
  const result = schema.safeParse(model);
  if (result.success) return { success: true, data: result.data, issues: [] };
  const issues = zomIssues(result.error);
  return { success: false, issues, message: issues.map(formatZomIssue).join("\n") };
}
