/**
 * Everything parzarr offers on every platform. Not an entry point itself: src/index.ts (Node) and
 * src/browser.ts (browsers) install their platform first and then re-export this. The S3 and
 * kerchunk-reference stores (and `resolveStore`, which holds them) are not here: Node's entry adds
 * them, and browsers import them from `parzarr/stores` (stores/browser.ts), so that a page that
 * does not name them loads them only when a string given to openArray and the rest names one
 * (stores/routes.ts).
 */
export { openArray, createArray, openGroup, createGroup, open } from "./hierarchy/open.js";
export type { Mode, OpenOptions, ArrayOpenOptions, GroupOptions, StoreInput } from "./hierarchy/open.js";
export type { ExpectOptions } from "./hierarchy/open-options.js";
export { ChunkCache, type ChunkCacheOptions, type ChunkCacheStats, type Recheck } from "./parallel/chunk-io/chunk-cache.js";
export { ZarrArray } from "./hierarchy/array.js";
export type { GetOptions, SelectionAccess } from "./hierarchy/array.js";
export type { ReadOutput } from "./indexing/read-into.js";
export type { ChunkEntry, ChunkIterOptions } from "./hierarchy/chunk-iter.js";
export { formatInfo } from "./hierarchy/info.js";
export type { ArrayInfo, GroupInfo } from "./hierarchy/info.js";
export { Group, UnopenableNode } from "./hierarchy/group.js";
export type { CreateArrayOptions, GridOption } from "./hierarchy/create-options.js";
export type { AxisEdges, ChunkShapes, EdgeRun } from "./metadata/chunk-grid.js";
export { zeros, ones, full, empty, array, zerosLike, onesLike, fullLike, emptyLike } from "./hierarchy/creation.js";
export type { CreationOptions } from "./hierarchy/creation.js";
export { slice, parseSelectionString } from "./indexing/selection.js";
export type { Slice, Selection, SelectionItem, DimSelection, IndexArray, DimMask, MaskArray } from "./indexing/selection.js";
export type { NDArray, AnyNDArray, WriteInput } from "./indexing/ndarray.js";
export { fieldView } from "./indexing/records.js";
export type { OperationOptions } from "./parallel/execution/options.js";
export { WorkerPool } from "./parallel/execution/worker-pool.js";
export type { WorkerLike } from "./parallel/execution/comlink-web-workers.js";
export type { WorkerPoolOptions } from "./parallel/execution/worker-pool.js";
export type { ChunkLockRef } from "./parallel/sync/lock-table.js";
export { runChunkTask } from "./parallel/chunk-io/chunk-task.js";
export type { ChunkTask, ReadTask, WriteTask, ChunkItem } from "./parallel/chunk-io/chunk-task.js";
export { MemoryStore } from "./stores/memory.js";
export { FetchStore } from "./stores/fetch.js";
export { workerCanOpen, registerStoreKind, type OpenStore } from "./stores/kinds.js";
export type { UserStore } from "./stores/caller.js";
export type { Store, ReadableStore, WritableStore, StoreDescriptor, RangeRequest, WriteCondition, ConditionalSetResult } from "./stores/types.js";
export { toNumpyTypestr } from "./metadata/dtype-names.js";
export { parseDataTypeName as parseDataType, loadDataTypes } from "./metadata/metadata-json.js";
export { hasFloat16Array } from "./metadata/elements.js";
export { NAT } from "./metadata/dtype.js";
export type {
  DataType,
  Scalar,
  TypedArray,
  ElementArray,
  NumericTypeName,
  DateTimeDataType,
  DateTimeUnit,
  StructuredDataType,
  StructuredField,
  Utf32DataType,
  FixedBytesDataType,
  RawBitsDataType,
  VlenStringDataType,
  VlenBytesDataType,
  JsonDataType,
  NumericDataType,
  OptionalDataType,
  VlenArrayDataType,
  NarrowFloatDataType,
} from "./metadata/dtype.js";
export type { ArrayMetadata, CodecConfig, ChunkKeyEncoding } from "./metadata/array-metadata.js";
export type { JsonObject, JsonValue } from "./metadata/json.js";
export { registerCodec } from "./codecs/registry.js";
export type { Codec, CodecFactory, ChunkSpec, ChunkView } from "./codecs/types.js";
export * from "./errors.js";
export { copy, copyAll } from "./copy/copy.js";
export type { CopyOptions, CopyReport, CopyEntry, CopyProgressInfo, CopySource, CopyDestination, IfExists } from "./copy/copy.js";
export { parseCodecSpec } from "./copy/codec-spec.js";
export type { CodecSpec } from "./copy/codec-spec.js";
export { consolidateMetadata } from "./hierarchy/consolidated.js";
export type { ConsolidateOptions } from "./hierarchy/consolidated.js";
export { fromZarr, toZarr, diffZarr, validateZarr } from "./hierarchy/zom.js";
export type { FromZarrOptions, ToZarrOptions, ZomValidation } from "./hierarchy/zom.js";
export type { ZomDifference } from "./metadata/zom-diff.js";
export { zomJsonSchema, ZOM_SCHEMA_ERRATA } from "./metadata/zom-json-schema.js";
// The zod schemas live in the `parzarr/zom` entry (src/zom.ts), so that importing the library
// does not load zod; issue reporting and the model types stay here.
export { zomIssues, formatZomIssue } from "./metadata/zom-issues.js";
export type { ZomIssue } from "./metadata/zom-issues.js";
export type { XarrayAttrs, XarrayArraySpecV2, XarrayGroupSpecV2, XarrayArraySpecV3, XarrayGroupSpecV3 } from "./metadata/zom-schema.js";
export { walkSpec, isGroupSpec, isArraySpec } from "./metadata/zom-types.js";
export type {
  ArraySpec,
  GroupSpec,
  NodeSpec,
  ArraySpecV2,
  GroupSpecV2,
  ArraySpecV3,
  GroupSpecV3,
  AnyGroupSpecV2,
  AnyGroupSpecV3,
  AnyNodeSpecV2,
  AnyNodeSpecV3,
  NamedConfigJson,
} from "./metadata/zom-types.js";
export { setMaxChunkBytes, getMaxChunkBytes, DEFAULT_MAX_CHUNK_BYTES, MAX_SELECTION_POINTS } from "./limits.js";
export type { HttpOptions } from "./stores/http.js";
export type { Synchronizer, SyncDescriptor } from "./parallel/sync/synchronizer.js";
export { DEFAULT_CONDITIONAL_WRITES } from "./parallel/sync/conditional-writes.js";
export type { ConditionalWritesOption, ConditionalWritePolicy } from "./parallel/sync/conditional-writes.js";
export type { ArrayOf, DataOf, ScalarOf, GetResult, KeepsDimension } from "./hierarchy/array-types.js";
