/** Creating nodes (with their ancestor groups) and making handles from metadata. */
import { AlreadyExistsError, NodeTypeError, ReadOnlyError } from "../errors.js";
import type { ArrayMetadata, GroupMetadata, NodeMetadata } from "../metadata/array-metadata.js";
import type { JsonObject } from "../metadata/json.js";
import type { ConsolidatedView } from "./consolidated.js";
import type { Synchronizer } from "../parallel/sync/synchronizer.js";
import type { ConditionalWritePolicy } from "../parallel/sync/conditional-writes.js";
import type { ChunkCache, Recheck } from "../parallel/chunk-io/chunk-cache.js";
import { isWritable, type Store, type WritableStore } from "../stores/types.js";
import { type ArrayHandleOptions, ZarrArray } from "./array.js";
import type { CreateArrayOptions } from "./create-options.js";
import { lazyFeatures } from "../lazy-features-loader.js";
import { Group } from "./group.js";
import { deleteNode, describePath, nodeLocation, parentPaths, readNode } from "./node-io.js";

/**
 * createArray's options, checked, as metadata (create-options.ts), which loads with the first
 * array made or opened with assumed metadata: a page that only opens arrays never loads it.
 */
export const buildArrayMetadata = lazyFeatures((m, options: CreateArrayOptions) => m.buildArrayMetadata(options));

/** Writing node documents (node-writes.ts, with the JSON serialiser), loaded with the first node created. */
const writeArrayMetadata = lazyFeatures((m, store: WritableStore, path: string, meta: ArrayMetadata) => m.writeArrayMetadata(store, path, meta));
const writeGroupMetadata = lazyFeatures((m, store: WritableStore, path: string, meta: GroupMetadata) => m.writeGroupMetadata(store, path, meta));

export interface NodeOpenOptions {
  readOnly: boolean;
  writeEmptyChunks?: boolean;
  /** The consolidated metadata the handle was opened through, shared with its children. */
  consolidated?: ConsolidatedView;
  synchronizer?: Synchronizer;
  conditionalWrites?: ConditionalWritePolicy;
  fillMissingDataReads?: boolean;
  cache?: ChunkCache;
  recheckCachedData?: Recheck;
  recheckCachedMetadata?: Recheck;
  /** Arrays whose metadata the caller gave (ArrayHandleOptions.assumed). */
  assumed?: "assumed" | "cached";
}

/** An array opened through consolidated metadata: changing its metadata makes that stale. */
class ConsolidatedArray extends ZarrArray {
  constructor(store: Store, path: string, meta: ArrayMetadata, options: ArrayHandleOptions, private readonly view: ConsolidatedView) {
    super(store, path, meta, options);
  }

  /** @internal */
  override metadataWillChange(): void {
    this.view.stale = true;
  }
}

/** How a group makes its children's handles: passed to each Group, as group.ts cannot import this module. */
const childNodes = { open: nodeFromMetadata, createArray: createArrayAt, createGroup: createGroupAt };
export type ChildNodes = typeof childNodes;

export function nodeFromMetadata(store: Store, path: string, meta: NodeMetadata, options: NodeOpenOptions): ZarrArray | Group {
  if (meta.nodeType === "array") return arrayFromMetadata(store, path, meta, options);
  return new Group(store, path, meta.attributes, meta.zarrFormat, options, childNodes);
}

/** An array's handle (openArray's, which so never holds the group code: see bundle.test.ts). */
export function arrayFromMetadata(store: Store, path: string, meta: ArrayMetadata & { nodeType: "array" }, options: NodeOpenOptions): ZarrArray {
  const { nodeType: _n, ...arrayMeta } = meta;
  // Arrays never look up other nodes; their options may travel with chunk tasks, the view not.
  const { consolidated, ...arrayOptions } = options;
  return consolidated ? new ConsolidatedArray(store, path, arrayMeta, arrayOptions, consolidated) : new ZarrArray(store, path, arrayMeta, arrayOptions);
}

export function requireWritable(store: Store, path: string): WritableStore {
  if (!isWritable(store)) throw new ReadOnlyError(`cannot create ${nodeLocation(store, path)}: the store is read-only`);
  return store;
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

export async function createArrayAt(
  store: Store,
  path: string,
  options: CreateArrayOptions,
  handle: NodeOpenOptions,
): Promise<ZarrArray> {
  const writable = requireWritable(store, path);
  const overwrite = options.overwrite ?? false;
  // An existing node first: `openArray(path, { mode: "w-" })` without creation options on an
  // existing array is ALREADY_EXISTS, not a complaint about the missing shape.
  if (!overwrite) await refuseExisting(writable, path);
  // Everything is validated before the first byte is written.
  const meta = await buildArrayMetadata(options);
  await prepareNode(writable, path, meta.zarrFormat, overwrite, true);
  await writeArrayMetadata(writable, path, meta);
  return new ZarrArray(store, path, meta, handle);
}

export async function createGroupAt(
  store: Store,
  path: string,
  options: { zarrFormat?: 2 | 3; attributes?: JsonObject; overwrite?: boolean },
  handle: NodeOpenOptions,
): Promise<Group> {
  const writable = requireWritable(store, path);
  const zarrFormat = options.zarrFormat ?? 3;
  const attributes = options.attributes ?? {};
  await prepareNode(writable, path, zarrFormat, options.overwrite ?? false);
  await writeGroupMetadata(writable, path, { zarrFormat, attributes });
  return new Group(store, path, attributes, zarrFormat, handle, childNodes);
}
