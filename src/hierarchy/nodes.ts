/** Creating nodes (with their ancestor groups) and making handles from metadata. */
import { ReadOnlyError } from "../errors.js";
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
import { nodeLocation } from "./node-io.js";

/**
 * createArray's options, checked, as metadata (create-options.ts), which loads with the first
 * array made or opened with assumed metadata: a page that only opens arrays never loads it.
 */
export const buildArrayMetadata = lazyFeatures((m, options: CreateArrayOptions) => m.buildArrayMetadata(options));

/**
 * Creating a node's documents (node-writes.ts: clearing the way, ancestor groups, the documents
 * with their serialiser), loaded with the first node created: the handle is made here, as
 * modules loaded on first use never import ZarrArray or Group.
 */
const createArrayNode = lazyFeatures((m, store: WritableStore, path: string, options: CreateArrayOptions) => m.createArrayNode(store, path, options));
const createGroupNode = lazyFeatures((m, store: WritableStore, path: string, meta: GroupMetadata, overwrite: boolean) => m.createGroupNode(store, path, meta, overwrite));
/** zom.ts's toZarr clears the way for a hierarchy as createArray does (node-writes.ts). */
export const prepareNode = lazyFeatures((m, store: WritableStore, path: string, zarrFormat: 2 | 3, overwrite: boolean) => m.prepareNode(store, path, zarrFormat, overwrite));

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

export async function createArrayAt(
  store: Store,
  path: string,
  options: CreateArrayOptions,
  handle: NodeOpenOptions,
): Promise<ZarrArray> {
  const meta = await createArrayNode(requireWritable(store, path), path, options);
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
  await createGroupNode(writable, path, { zarrFormat, attributes }, options.overwrite ?? false);
  return new Group(store, path, attributes, zarrFormat, handle, childNodes);
}
