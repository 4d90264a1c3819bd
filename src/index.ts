/**
 * parzarr: Zarr v2 and v3 arrays and groups for TypeScript, read and written chunk by chunk
 * through one task function that runs inline or on worker threads.
 *
 * The Node entry: the Node platform (worker_threads pools, Buffer limits), then the portable API,
 * then what only Node has (file-system and zip stores, lock files across processes).
 * @module parzarr
 */
import "./platform/node.js";

export * from "./api.js";
// Kept off the browser entry, whose pages import them from `parzarr/stores` (see api.ts).
export { resolveStore } from "./stores/open.js";
export { S3Store, type S3StoreOptions, type S3Credentials, type S3StoreDescriptor } from "./stores/s3.js";
export { ReferenceStore, MAX_TRAVELLING_DOCUMENT_CHARS, type ReferenceStoreOptions, type ReferenceStoreDescriptor, type ReferenceSource } from "./stores/reference.js";
export { ProcessSynchronizer } from "./parallel/sync/process-sync.js";
export type { ProcessSynchronizerOptions, ProcessSyncDescriptor } from "./parallel/sync/process-sync.js";
export { FileSystemStore } from "./stores/filesystem.js";
export { ZipStore, type ZipMode, type ZipStoreOptions } from "./stores/zip.js";
export { RedisSynchronizer } from "./parallel/sync/redis-sync.js";
export type { RedisSynchronizerOptions, RedisSyncDescriptor } from "./parallel/sync/redis-sync.js";
// NetCDF and HDF5 archives as Zarr: h5wasm loads only when an HDF5 file is opened.
export { openArchive, ArchiveStore, isArchivePath, referencesFor } from "./archival/index.js";
export type { ReferenceOptions, ReferenceResult } from "./archival/index.js";
// Icechunk repositories: sessions as stores, commits with typed conflicts, storage in a folder or S3.
export { openIcechunk, icechunkStore, commit } from "./icechunk/session.js";
export type { IcechunkRef, IcechunkStore, IcechunkSession, IcechunkRepository, IcechunkStoreLike } from "./icechunk/session.js";
export { icechunkStorage } from "./icechunk/storage.js";
