/**
 * What a page that reads a v3 zstd (or v2 blosc) array over HTTP on Web Workers may load, in gzip
 * bytes (issue 30: at most 40 KB of main-thread JavaScript and 150 KB in the worker, WebAssembly
 * included). The worker meets its budget, counting the codecs it imports on first use (75 to 91 KB
 * measured). The main thread does not yet: its budget is a ratchet, the size measured when it was
 * set plus a little headroom, to be lowered as the main thread sheds what a read on workers does
 * not need. Lowered from 82 to 69.5 KiB when the codec factories outside bytes, the compressors,
 * crc32c and transpose came to load with the first array that names them (codecs/registry.ts:
 * sharding, and the rest as one module), openArray stopped naming Group and the lazy ZEP 6 model
 * stopped re-exporting the issue formatter; to 66.5 KiB when what S3Store and ReferenceStore do
 * once used and ZarrArray's writes came to load on first use, as one module (src/lazy-features.ts):
 * 63.7 KB with Vite 8, 63.5 KB with webpack 5 and 67.5 KB with esbuild --splitting measured by
 * test/bundlers.test.ts (67.0, 67.4 and 70.1 KB before; 78.2, 79.3 and 81.8 KB at the start).
 * esbuild's is the largest because its splitting cuts the code the page shares with what loads
 * on first use into chunk files, each compressed alone. What remains is listed in
 * docs/ARCHITECTURE.md.
 */
export const MAIN_THREAD_TARGET = 40 * 1024;
export const MAIN_THREAD_BUDGET = 66.5 * 1024;
export const WORKER_BUDGET = 150 * 1024;
