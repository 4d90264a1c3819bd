/**
 * What S3Store and ReferenceStore do once used, as one module that either imports on its first
 * use (s3.ts, reference.ts): one lazy module rather than two, since each module a page imports on
 * first use makes esbuild's splitting cut the code it shares with the page into more chunk files.
 */
export { S3Requests } from "./s3-requests.js";
export { ReferenceReads } from "./reference-reads.js";
