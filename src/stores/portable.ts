/**
 * The stores and store helpers of every platform, for the `parzarr/stores` entry: its Node barrel
 * (stores/index.ts) adds the file-system and zip stores, its browser one (stores/browser.ts) the
 * OPFS store. Each installs its platform; this module installs none. What parzarr's own modules
 * share beyond this (descriptors to stores, versioned reads, the HTTP policy) stays internal.
 */
export type { Store, ReadableStore, WritableStore, StoreDescriptor, RangeRequest, WriteCondition, ConditionalSetResult } from "./types.js";
export type { UserStore } from "./caller.js";
export { validateKey, validatePrefix, joinKey, validateRange, rangeBounds, sliceRange, childrenOf } from "./keys.js";
export { MemoryStore } from "./memory.js";
export { FetchStore, type FetchStoreOptions } from "./fetch.js";
export { parseS3Url } from "./s3-config.js";
export { S3Store, type S3StoreOptions, type S3Credentials, type S3StoreDescriptor } from "./s3.js";
export type { HttpOptions } from "./http.js";
export { resolveStore } from "./open.js";
export { workerCanOpen, registerStoreKind, type OpenStore } from "./kinds.js";
export { ReferenceStore, MAX_TRAVELLING_DOCUMENT_CHARS, type ReferenceStoreOptions, type ReferenceStoreDescriptor, type ReferenceSource } from "./reference.js";
