/**
 * The entry points: open and create arrays and groups in a store given as an object, a path
 * (a FileSystemStore) or an http(s) URL (a FetchStore), with zarr-python's modes.
 */
import { InvalidArgumentError, NodeTypeError, NotFoundError, ReadOnlyError } from "../errors.js";
import type { JsonObject, JsonValue } from "../metadata/json.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import { resolveStoreOnDemand } from "../stores/routes.js";
import type { Store } from "../stores/types.js";
import type { UserStore } from "../stores/caller.js";
import type { Synchronizer } from "../parallel/sync/synchronizer.js";
import type { ConditionalWritesOption } from "../parallel/sync/conditional-writes.js";
import { lazyFeatures } from "../lazy-features-loader.js";
import { rareTypesReady } from "../metadata/metadata-json.js";
import { type ChunkCache, checkRecheck, isChunkCache, type Recheck } from "../parallel/chunk-io/chunk-cache.js";
import type { ZarrArray } from "./array.js";
import type { ArrayOf } from "./array-types.js";
import type { CreateArrayOptions } from "./create-options.js";
import type { ExpectOptions } from "./open-options.js";
import { Group } from "./group.js";
import { readNodeConsolidated } from "./consolidated.js";
import { describePath, nodeLocation, normalisePath, readNode } from "./node-io.js";
import { arrayFromMetadata, buildArrayMetadata, createArrayAt, createGroupAt, nodeFromMetadata } from "./nodes.js";

/**
 * `r` read-only, must exist; `r+` read/write, must exist; `a` read/write, created if missing;
 * `w` created, replacing what is there; `w-` created, failing if something is there.
 */
export type Mode = "r" | "r+" | "a" | "w" | "w-";

/** A path, a URL, a store, or any object with `get` (stores/caller.ts: keys like "/zarr.json"). */
export type StoreInput = string | URL | Store | UserStore;

/** Options of opening a node: the mode, where it is, and how reads and writes of it behave. */
export interface OpenOptions {
  /** Default "a": read/write, created if missing where the call can create it. */
  mode?: Mode;
  /** The node's path inside the store ("" or omitted: the root). */
  path?: string;
  /** Only look for (or create) this format. */
  zarrFormat?: 2 | 3;
  /** Store chunks whose values all equal the fill value. */
  writeEmptyChunks?: boolean;
  /**
   * For v2 arrays whose metadata predates `dimension_separator` (zarr-python < 2.8) but whose
   * chunks are nested: the separator their keys use. Ignored when the metadata names one.
   */
  dimensionSeparator?: "." | "/";
  /**
   * Groups (openGroup, open): use the group's consolidated metadata when it has some (the
   * default), so the whole hierarchy opens with one read; false reads every node from the store.
   */
  consolidated?: boolean;
  /**
   * Locks that make partial-chunk writes safe against other processes writing the same array:
   * lock files (`new ProcessSynchronizer(lockDir)`) on one file system, or leases in Redis
   * (`new RedisSynchronizer("redis://host:6379")`) for writers on several machines. Threads of
   * this process are always synchronised.
   */
  synchronizer?: Synchronizer;
  /**
   * Partial-chunk writes without locks, by compare-and-swap on a store whose server checks
   * conditional writes (S3's If-Match / If-None-Match: AWS S3, moto): read the chunk with its
   * ETag, merge, PUT only if the ETag still holds, else again with backoff; after `maxAttempts`
   * a WriteConflictError. `true` or `{ maxAttempts, backoffMs, maxBackoffMs }`. Opening a
   * writable node with it probes the store and refuses one that does not honour the conditions
   * (an UnsupportedError); it cannot be combined with `synchronizer`. See README "Concurrent writes".
   */
  conditionalWrites?: ConditionalWritesOption;
  /**
   * false: reading a chunk that is not stored is a MissingChunkError naming its key, instead of
   * the fill value (TensorStore's `fill_missing_data_reads`). Default true. Writers still delete
   * chunks that are all fill value unless `writeEmptyChunks` is set.
   */
  fillMissingDataReads?: boolean;
  /**
   * Decoded chunks kept in memory and shared by every array opened with the same cache
   * (`new ChunkCache({ maxBytes })`, TensorStore's `cache_pool`). See README "Chunk cache".
   */
  cache?: ChunkCache;
  /**
   * When a cached chunk is revalidated (a conditional read) before it is used: true (the default,
   * every read), false (never), "open" (once per handle), or a number of seconds since its last check.
   */
  recheckCachedData?: Recheck;
  /**
   * When an array's metadata document is revalidated (a conditional read) before a read or
   * write: "open" (the default: read at open only), true (before every operation), false, or a
   * number of seconds since its last check. A changed document (another writer resized the
   * array) replaces the handle's metadata.
   */
  recheckCachedMetadata?: Recheck;
}

/** openArray's options on metadata, from TensorStore's zarr3 driver (see README). */
export interface ArrayOpenOptions {
  /** Constraints on the stored metadata: a mismatch is a MetadataMismatchError naming the field. */
  expect?: ExpectOptions;
  /**
   * createArray's options: open without reading or writing the stored metadata, which need not
   * exist. The caller vouches for it: chunks are read and written as if it were this. The shape
   * and attributes cannot change (resize, append, setAttrs are refused).
   */
  assumeMetadata?: CreateArrayOptions;
  /**
   * createArray's options: open without reading the stored metadata, as if it were this; an
   * operation that rewrites the metadata (resize, append, setAttrs) reads it first and refuses
   * when it disagrees.
   */
  assumeCachedMetadata?: CreateArrayOptions;
}

const MODES: readonly Mode[] = ["r", "r+", "a", "w", "w-"];

async function setup(input: StoreInput, options: OpenOptions) {
  const mode = options.mode ?? "a";
  if (!MODES.includes(mode)) throw new InvalidArgumentError(`mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  const store = await resolveStoreOnDemand(input, { readOnly: mode === "r" });
  const path = normalisePath(options.path);
  // "a" on a store that cannot be written (HTTP) quietly means "r", as for zarr-python's fsspec.
  const readOnly = mode === "r" || (mode === "a" && store.readOnly);
  if (!readOnly && store.readOnly) throw new ReadOnlyError(`mode "${mode}" needs a writable store: ${nodeLocation(store, path)} is read-only`);
  const { synchronizer } = options;
  if (synchronizer !== undefined && typeof (synchronizer as Partial<Synchronizer> | null)?.descriptor !== "function") {
    throw new InvalidArgumentError("synchronizer must be a ProcessSynchronizer or a RedisSynchronizer");
  }
  // Off (the option left out or false): its check (conditional-probe.ts) is not loaded.
  const option = options.conditionalWrites;
  const conditionalWrites = option === undefined || option === false ? undefined : await conditionalPolicy(option);
  if (conditionalWrites && synchronizer !== undefined) {
    throw new InvalidArgumentError("conditionalWrites and synchronizer are two ways to make partial-chunk writes safe: give one, not both");
  }
  const { fillMissingDataReads } = options;
  if (fillMissingDataReads !== undefined && typeof fillMissingDataReads !== "boolean") {
    throw new InvalidArgumentError(`fillMissingDataReads must be true or false, got ${JSON.stringify(fillMissingDataReads)}`);
  }
  const { cache } = options;
  if (cache !== undefined && !isChunkCache(cache)) throw new InvalidArgumentError("cache must be a ChunkCache");
  const recheckCachedData = checkRecheck(options.recheckCachedData, "recheckCachedData");
  const recheckCachedMetadata = checkRecheck(options.recheckCachedMetadata, "recheckCachedMetadata");
  const handle = { readOnly, writeEmptyChunks: options.writeEmptyChunks, synchronizer, conditionalWrites, fillMissingDataReads, cache, recheckCachedData, recheckCachedMetadata };
  return { mode, store, path, handle };
}

/** The conditional-writes probe (conditional-probe.ts), loaded with the first node opened to write with them. */
const conditionalProbe = lazyFeatures;

/** openArray's options on metadata (open-options.ts), loaded with the first open that gives one. */
const assumedArrayMetadata = lazyFeatures((m, options: unknown, name: "assumeMetadata" | "assumeCachedMetadata") => m.assumedArrayMetadata(options, name));
const checkExpected = lazyFeatures((m, meta: ArrayMetadata, expect: unknown, where: string) => m.checkExpected(meta, expect, where));

/** The conditionalWrites option checked (conditional-probe.ts), loaded with the first open that gives it. */
const conditionalPolicy = lazyFeatures((m, option: unknown) => m.conditionalWritePolicy(option));

/** With conditionalWrites, a writable node's store must honour them: probed (once per store). */
async function checkConditional(setupResult: ReturnType<typeof setup>): ReturnType<typeof setup> {
  const { store, path, handle } = await setupResult;
  if (handle.conditionalWrites && !handle.readOnly) await conditionalProbe((m) => m.requireConditionalWrites(store, path))();
  return setupResult;
}

/**
 * The data type in a handle's type: inferred from a `dtype` string given, or named by the caller
 * (`openArray<"float32">(path)`, the caller's claim; `arr.typed("float32")` checks it).
 * @inline
 */
type TypedDtype<D extends string> = { dtype?: D | Exclude<JsonValue, string> };

/** Opens an array; with mode `a`, `w` or `w-` and creation options, creates it. */
export async function openArray<D extends string = string>(
  input: StoreInput,
  options: OpenOptions & ArrayOpenOptions & Partial<CreateArrayOptions> & TypedDtype<D> = {},
): Promise<ArrayOf<D>> {
  return (await openUntyped(input, options)) as unknown as ArrayOf<D>;
}

async function openUntyped(input: StoreInput, options: OpenOptions & ArrayOpenOptions & Partial<CreateArrayOptions>): Promise<ZarrArray> {
  const { mode, store, path, handle } = await checkConditional(setup(input, options));
  const where = `array ${describePath(path)}`;
  // The data types the options name (expect, assumed metadata, those of an array made here).
  await rareTypesReady(options);
  const assumed = assumedMetadataOption(options);
  if (assumed !== null) {
    if (mode === "w" || mode === "w-") throw new InvalidArgumentError(`${assumed.name} cannot be combined with mode "${mode}", which writes metadata`);
    // Nothing is read: the handle's metadata is the caller's word.
    const meta = await assumedArrayMetadata(assumed.value, assumed.name);
    if (options.expect !== undefined) await checkExpected(meta, options.expect, where);
    const how = assumed.name === "assumeMetadata" ? "assumed" : "cached";
    return arrayFromMetadata(store, path, { ...meta, nodeType: "array" }, { ...handle, assumed: how });
  }
  if (mode === "w" || mode === "w-") {
    if (options.expect !== undefined) await checkExpected(await buildArrayMetadata(options as CreateArrayOptions), options.expect, where);
    return createArrayAt(store, path, { ...(options as CreateArrayOptions), overwrite: mode === "w" }, handle);
  }
  const meta = await readNode(store, path, options.zarrFormat);
  if (!meta) {
    if (mode === "a" && options.shape !== undefined && options.dtype !== undefined) {
      if (options.expect !== undefined) await checkExpected(await buildArrayMetadata(options as CreateArrayOptions), options.expect, where);
      return createArrayAt(store, path, options as CreateArrayOptions, handle);
    }
    throw new NotFoundError(`no array at ${nodeLocation(store, path)}`);
  }
  if (meta.nodeType !== "array") throw new NodeTypeError(`expected an array at ${describePath(path)} but found a group`);
  if (options.dimensionSeparator && meta.v2 && meta.v2.dimensionSeparator === null) {
    meta.chunkKeyEncoding = { name: "v2", separator: options.dimensionSeparator };
  }
  if (options.expect !== undefined) await checkExpected(meta, options.expect, where);
  return arrayFromMetadata(store, path, meta, handle);
}

/** The one of assumeMetadata / assumeCachedMetadata given, if any (both is an error). */
function assumedMetadataOption(options: ArrayOpenOptions) {
  const { assumeMetadata, assumeCachedMetadata } = options;
  if (assumeMetadata !== undefined && assumeCachedMetadata !== undefined) {
    throw new InvalidArgumentError("give assumeMetadata or assumeCachedMetadata, not both");
  }
  if (assumeMetadata !== undefined) return { name: "assumeMetadata", value: assumeMetadata } as const;
  if (assumeCachedMetadata !== undefined) return { name: "assumeCachedMetadata", value: assumeCachedMetadata } as const;
  return null;
}

/** Options only openArray takes: refused by openGroup and open rather than ignored. */
function refuseArrayOnly(options: object, what: string): void {
  for (const name of ["expect", "assumeMetadata", "assumeCachedMetadata"]) {
    if ((options as Record<string, unknown>)[name] !== undefined) throw new InvalidArgumentError(`${what}: ${name} is an openArray option`);
  }
}

/** Creates an array (failing if one exists unless `overwrite` is set). */
export async function createArray<D extends string = string>(
  input: StoreInput,
  options: CreateArrayOptions &
    TypedDtype<D> & { path?: string; writeEmptyChunks?: boolean; synchronizer?: Synchronizer; conditionalWrites?: ConditionalWritesOption },
): Promise<ArrayOf<D>> {
  const { store, path, handle } = await checkConditional(setup(input, { ...options, mode: options.overwrite ? "w" : "w-" }));
  return (await createArrayAt(store, path, options, handle)) as unknown as ArrayOf<D>;
}

/** Options of openGroup and createGroup. */
export interface GroupOptions extends OpenOptions {
  /** Attributes of a group this call creates. */
  attributes?: JsonObject;
  /** createGroup: replace what is at the path. */
  overwrite?: boolean;
}

/** Opens a group; mode `a` (the default) creates it when missing. */
export async function openGroup(input: StoreInput, options: GroupOptions = {}): Promise<Group> {
  refuseArrayOnly(options, "openGroup");
  const { mode, store, path, handle } = await checkConditional(setup(input, options));
  if (mode === "w" || mode === "w-") {
    return createGroupAt(store, path, { ...options, overwrite: mode === "w" }, handle);
  }
  const { meta, view } = await readNodeConsolidated(store, path, options.zarrFormat, options.consolidated);
  if (!meta) {
    if (mode === "a") return createGroupAt(store, path, options, handle);
    throw new NotFoundError(`no group at ${nodeLocation(store, path)}`);
  }
  if (meta.nodeType !== "group") throw new NodeTypeError(`expected a group at ${describePath(path)} but found an array`);
  return nodeFromMetadata(store, path, meta, { ...handle, consolidated: view }) as Group;
}

export async function createGroup(input: StoreInput, options: Omit<GroupOptions, "mode"> = {}): Promise<Group> {
  const { store, path, handle } = await checkConditional(setup(input, { ...options, mode: options.overwrite ? "w" : "w-" }));
  return createGroupAt(store, path, options, handle);
}

/**
 * Opens whatever node is at the path: an array or a group. As in zarr-python, modes that create
 * make an array when `shape` and `dtype` are given and a group otherwise.
 */
export async function open(
  input: StoreInput,
  options: GroupOptions & Partial<CreateArrayOptions> = {},
): Promise<ZarrArray | Group> {
  refuseArrayOnly(options, "open");
  const { mode, store, path, handle } = await checkConditional(setup(input, options));
  const wantsArray = options.shape !== undefined && options.dtype !== undefined;
  // Creating modes go through openArray/openGroup with the resolved store, not a second one.
  const create = () => (wantsArray ? openArray(store, { ...options, path }) : openGroup(store, { ...options, path }));
  if (mode === "w" || mode === "w-") return create();
  const { meta, view } = await readNodeConsolidated(store, path, options.zarrFormat, options.consolidated);
  if (meta) return nodeFromMetadata(store, path, meta, { ...handle, consolidated: view });
  if (mode === "a") return create();
  throw new NotFoundError(`no array or group at ${nodeLocation(store, path)}`);
}

export { Group };
