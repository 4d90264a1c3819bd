/**
 * parzarr: Zarr v2 and v3 arrays and groups for TypeScript, read and written chunk by chunk
 * through one task function that runs inline or on worker threads.
 */
export { openArray, createArray, openGroup, createGroup, open } from "./hierarchy/open.js";
export type { Mode, OpenOptions, GroupOptions, StoreInput } from "./hierarchy/open.js";
export { ZarrArray } from "./hierarchy/array.js";
export { Group } from "./hierarchy/group.js";
export type { CreateArrayOptions } from "./hierarchy/create-options.js";
export { slice, parseSelectionString } from "./indexing/selection.js";
export type { Slice, Selection, SelectionItem, DimSelection } from "./indexing/selection.js";
export type { NDArray, WriteInput } from "./indexing/ndarray.js";
export type { OperationOptions } from "./parallel/options.js";
export { ProcessSynchronizer } from "./parallel/process-sync.js";
export type { ProcessSynchronizerOptions, ProcessSyncDescriptor } from "./parallel/process-sync.js";
export type { ChunkLockRef } from "./parallel/lock-table.js";
export { runChunkTask } from "./parallel/chunk-task.js";
export type { ChunkTask, ReadTask, WriteTask, ChunkItem } from "./parallel/chunk-task.js";
export { MemoryStore } from "./stores/memory.js";
export { FileSystemStore } from "./stores/filesystem.js";
export { FetchStore } from "./stores/fetch.js";
export { resolveStore } from "./stores/open.js";
export type { Store, ReadableStore, WritableStore, StoreDescriptor, RangeRequest } from "./stores/types.js";
export { parseDataType, toNumpyTypestr, hasFloat16Array } from "./metadata/dtype.js";
export type { DataType, Scalar, TypedArray, NumericTypeName } from "./metadata/dtype.js";
export type { ArrayMetadata, CodecConfig, ChunkKeyEncoding } from "./metadata/array-metadata.js";
export type { JsonObject, JsonValue } from "./metadata/json.js";
export { registerCodec } from "./codecs/registry.js";
export type { Codec, CodecFactory, ChunkSpec, ChunkView } from "./codecs/types.js";
export * from "./errors.js";
export { setMaxChunkBytes, getMaxChunkBytes, DEFAULT_MAX_CHUNK_BYTES } from "./limits.js";
