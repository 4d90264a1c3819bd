/**
 * What a page that reads a v3 zstd (or v2 blosc) array over HTTP on Web Workers may load, in gzip
 * bytes (issue 30: at most 40 KB of main-thread JavaScript and 150 KB in the worker, WebAssembly
 * included). The page measured is one that only reads: it names openArray and WorkerPool and
 * nothing else of parzarr's (test/bundlers.test.ts builds it with esbuild --splitting, Vite and
 * webpack and reads both arrays on workers in Chromium; test/bundle.test.ts builds the same with
 * esbuild from the sources). The worker meets its budget, counting the codecs it imports on first
 * use (74 to 92 KB measured). The main thread meets its target since the last steps below (40,185
 * bytes with esbuild, the largest of the three: 39.2 KiB; 185 bytes over 40,000); its budget is a
 * ratchet, the largest of the three bundlers' measurements when it was set plus 0.5 KiB, to be
 * lowered as the main thread sheds what a read on workers does not need.
 *
 * Measured on the read-only page (esbuild, Vite 8, webpack 5, KB gzip): 67.3, 63.4, 63.3 when it
 * became the page measured; 66.3, 62.4, 62.2 once OPFS, S3 and reference stores added their
 * descriptor kinds when first made (stores/kinds.ts); 64.7, 60.2, 61.0 once createArray's options
 * loaded with the first array made; 63.7, 59.4, 59.8 once write tasks' chunk writes did; 63.2,
 * 59.1, 59.4 once the conditional-writes probe did; 62.4, 58.4, 58.6 once point, mask and block
 * selections did (all in src/lazy-features.ts); 61.9, 57.9, 58.2 once the numcodecs.lz4 and
 * zarrs.gdeflate factories loaded with the first array naming one (codecs/lazy-codecs.ts); 61.1,
 * 57.4, 57.7 once crc32c loaded with sharding; 57.4, 53.7, 54.1 once openArray's options on
 * metadata, the chunk locks, info, chunk iteration, reads through a cache and the write operation
 * did (lazy-features.ts), then 53.5, 49.8, 49.7 once the rare data types (metadata/rare-types.ts)
 * and the codec chain's decoding and encoding (codecs/pipeline-run.ts) did; 52.9, 49.8, 49.1 with
 * package.json's sideEffects list (test/side-effects.test.ts); 48.8, 45.8, 44.0 once S3Store and
 * ReferenceStore left the browser entry for `parzarr/stores`, openArray and the rest importing the
 * one a string names (stores/routes.ts); 44.2, 41.5, 39.8 once writing
 * metadata (the JSON serialiser, the documents, fill values' JSON, the grid's edits, creating
 * nodes), reading into `out` and the metadata recheck loaded with their first use
 * (lazy-features.ts), numcodecs' vlen-array type, v2 filters and the rectilinear grid's parser with
 * the rare data types, transpose with the first array naming it, and ChunkCache's class with the
 * first cache made; 43.2, 40.5, 39.8 once the two stores' classes loaded with
 * lazy-features.ts and the xz container imported the CRC-32 kernel alone (esbuild's page in 12
 * files, from 15); 42.5, 39.8, 39.2 once the lenient JSON parser (NaN, Infinity, long integers:
 * metadata/json-lenient.ts) loaded with the first document that needs it; 41.3, 38.8, 38.1 once
 * the workers' messaging replaced comlink (parallel/execution/worker-rpc.ts); 40.1 (40,058 B: 39.1 KiB), 36.9, 37.3 once
 * CallerStore (a user's store object) loaded with lazy-features.ts, the worker's store of fetched
 * chunks (and OverlayStore) left fetched-chunks.ts, and a point selection's plan loaded with
 * fancy selections (esbuild's page in 11 files); 40.2 (40,185 B), 37.0, 37.4 once the browser's
 * byte copy checked its range (platform/browser.ts copyBytes). Before that the
 * budget held the page that writes too: 82 KiB at the start, 69.5 once the codec factories outside
 * the core loaded with the first array naming them, 66.5 once S3Store's requests, ReferenceStore's
 * reads and ZarrArray's writes loaded on first use. esbuild's is the largest because its
 * splitting loads up front every module the page reaches statically whose code a chunk loaded on
 * first use needs, and cuts that code into chunk files compressed alone (3.2 KB more than one
 * file; 4.3 KB in 15 files before). What remains is listed in docs/ARCHITECTURE.md.
 */
export const MAIN_THREAD_TARGET = 40 * 1024;
export const MAIN_THREAD_BUDGET = 39.75 * 1024;
/**
 * The files esbuild's build of that page (--splitting, test/bundle.test.ts) loads up front: one
 * per distinct set of modules loaded on first use that reach the code it holds. 15 when it was
 * set; 12 once the S3 and reference stores' classes loaded with lazy-features.ts and the xz
 * container imported the CRC-32 kernel alone (codecs/slicing-crc32.ts): four sets fewer, one more
 * for the modules loaded on first use since (transpose, read-into and the rest); 11 once the point
 * plan (lazy-features.ts) reached indexing/projection.ts, which had a file of its own.
 */
export const MAIN_THREAD_FILES = 11;
export const WORKER_BUDGET = 150 * 1024;
