/**
 * What a page that only reads arrays over HTTP never uses, as one module that each user imports on
 * its first use (through onFirstUse): ZarrArray's writes (hierarchy/array-writes.ts, on a handle's
 * first write), how write tasks write chunks (parallel/chunk-io/chunk-writes.ts, on a thread's
 * first write task), createArray's options made metadata (hierarchy/create-options.ts, when an
 * array is first created or opened with assumed metadata), openArray's options on metadata
 * (hierarchy/open-options.ts: expect, assumeMetadata, assumeCachedMetadata, with the first open
 * that gives one), the recheck of a handle's metadata under recheckCachedMetadata
 * (hierarchy/revalidate.ts, with the first recheck), an array's info() data and chunk listing and iteration (hierarchy/array-info.ts,
 * hierarchy/chunk-iter.ts, on first use), the read through a chunk cache
 * (parallel/chunk-io/cached-read.ts, with the first; operation.ts hands it the coordinator and
 * the chunk runner), the write operation (parallel/execution/write-operation.ts, with the first
 * write; the handle hands it the same), the conditionalWrites option's check and probe
 * (parallel/sync/conditional-probe.ts, when a node is first opened with the option), the chunk
 * locks (parallel/sync/lock-table.ts, with the first write's plan or group attribute write), creating
 * nodes and writing their documents (hierarchy/node-writes.ts, with the JSON serialiser and the
 * documents' writers: when a node is first created or a group's attributes first written), point,
 * mask and block selections (indexing/fancy.ts, with the first: hierarchy/array.ts) and the point
 * plan they make (indexing/point-plan.ts), reading into
 * the caller's buffer (indexing/read-into.ts, with the first `get` given `out`), S3Store's requests
 * (stores/s3-requests.ts, on a store's first request) and ReferenceStore's reads
 * (stores/reference-reads.ts, when a store is made), those two stores' classes, for the entry
 * points' strings that name one (stores/routes.ts), and CallerStore's wrapper of a user's store
 * object (stores/caller.ts's asStore, when the first such object is used as a store). One module rather than several because each
 * module loaded on first use makes esbuild's splitting cut the code it shares with the page into
 * more chunk files, each compressed alone (docs/ARCHITECTURE.md). The cost: the first of these
 * uses loads them all (27.7 KB gzip with esbuild, in 5 files beyond the page; 25.5 before asStore
 * and the point plan joined, 20.4 before the two store classes did, 16.0 before
 * creating nodes, the document writers, `out` and the metadata recheck did). Nothing here may import a module that imports
 * this one back (the chunk runner, chunk-task.ts; the stores; hierarchy/array.ts): the writes are
 * handed what they need by ZarrArray, the rest import chunk-codec.ts, not the chunk runner, and
 * S3Store and ReferenceStore reach this module's loader through the platform (platform/types.ts).
 */
export { S3Requests } from "./stores/s3-requests.js";
export { S3Store } from "./stores/s3.js";
export { ReferenceStore } from "./stores/reference.js";
export { ReferenceReads } from "./stores/reference-reads.js";
export { asStore } from "./stores/caller.js";
export * as arrayWrites from "./hierarchy/array-writes.js";
export { createArrayNode, createGroupNode, prepareNode, writeGroupMetadata } from "./hierarchy/node-writes.js";
export { buildArrayMetadata } from "./hierarchy/create-options.js";
export { assumedArrayMetadata, checkExpected, checkSameLayout } from "./hierarchy/open-options.js";
export { iterChunks, storedChunkCoords } from "./hierarchy/chunk-iter.js";
export { arrayInfo, nbytesStored, nchunksInitialized } from "./hierarchy/array-info.js";
export { revalidatedMetadata } from "./hierarchy/revalidate.js";
export { readThroughCache } from "./parallel/chunk-io/cached-read.js";
export { runWrite } from "./parallel/execution/write-operation.js";
export { writeItems } from "./parallel/chunk-io/chunk-writes.js";
export { chunkLockRef, lockScopeOf, withChunkLock } from "./parallel/sync/lock-table.js";
export { conditionalWritePolicy, requireConditionalWrites } from "./parallel/sync/conditional-probe.js";
export { resolveBlocks, resolvePoints, resolveSelection } from "./indexing/fancy.js";
export { selectionOutput } from "./indexing/read-into.js";
