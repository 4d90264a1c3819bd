// A barrel of every store, the Node-only ones included: it stands on the Node platform, which
// also lets paths and the file-system and zip descriptors resolve.
import "../platform/node.js";
export * from "./types.js";
export { validateKey, validatePrefix, joinKey, validateRange, rangeBounds, sliceRange, childrenOf } from "./keys.js";
export { MemoryStore, getMemoryStore } from "./memory.js";
export { FileSystemStore } from "./filesystem.js";
export { FetchStore, type FetchStoreOptions } from "./fetch.js";
export { parseS3Url, resolveS3Config } from "./s3-config.js";
export { S3Store, type S3StoreOptions, type S3Credentials, type S3StoreDescriptor } from "./s3.js";
export { httpPolicy, DEFAULT_HTTP_POLICY, type HttpOptions } from "./http.js";
export { resolveStore } from "./open.js";
export { storeFromDescriptor, workerCanOpen } from "./kinds.js";
export { ReferenceStore, MAX_TRAVELLING_DOCUMENT_CHARS, type ReferenceStoreOptions, type ReferenceStoreDescriptor, type ReferenceSource } from "./reference.js";
export { ZipStore, type ZipMode, type ZipStoreOptions } from "./zip.js";
