/**
 * What a codec chain costs to decode: nanoseconds of one core per decoded byte, the number
 * placement (parallel/execution/coordinator.ts) weighs against what the pool itself costs.
 * Measured with `npm run bench -- --filter 'decode|inflate'` (CPU time, 1024^2 float32 random
 * walks, Node 20, the 2-core development VM; docs/benchmarks.md): MiB/s turned into ns/B.
 * Rough figures do: placement compares them with the pool's own cost and a minimum of work per
 * thread, where a factor of two moves the crossover by a factor of two in size.
 */
import type { CodecConfig } from "../metadata/array-metadata.js";
import { canonicalCodecName } from "./registry.js";

/** Stored as they are in memory (little-endian host): read straight into place, nothing to decode. */
const RAW = 0;
/**
 * What a raw chunk costs instead: its copy from the page cache into place, per byte, as an inline
 * read does it. An inline read is driven by one thread (the caller's event loop takes every
 * file's open, stat, read and close through libuv's pool and back), and copies at about one
 * thread's speed whatever libuv's size: 256 MiB in 47-51 ms on the 2-core machine (Node 24, load
 * 0.7, four rounds: 0.19 ns/B; libuv's 4 threads each busy a quarter of the read), 29 ms on the
 * 16-core one (0.11). Placement weighs it only for raw reads of files (concurrency.ts copyThreads).
 */
export const FILE_COPY_NS_PER_BYTE = 0.19;
/** Threads an inline read of files copies on at once, in effect (FILE_COPY_NS_PER_BYTE). */
export const INLINE_FILE_COPIERS = 1;
/** Codecs not measured here (filters, bz2, lzma, users' codecs): priced as a middling compressor. */
const UNMEASURED = 1;

/**
 * Our TypeScript GDeflate decoder (gdeflate-decode.ts), 70-78 MiB/s at levels 1 and 6 (`--filter gdeflate`):
 * floats are mostly literals, and each symbol takes a lane's bit buffer out of memory and back.
 */
const GDEFLATE = 13;

/** By codec name, `numcodecs.` dropped. */
const NS_PER_BYTE: Record<string, number> = {
  zlib: 3.2, // node:zlib inflate 300 MiB/s
  gzip: 3.0, // gunzip 320 MiB/s
  zstd: 1.1, // the WebAssembly decoder, 875 MiB/s (plain floats)
  "zarrs.gdeflate": GDEFLATE,
  lz4: 0.4, // LZ4 block 2389 MiB/s (4494-4831 after the kernel's shortcut: kept, as blosc's below)
  crc32c: 0.1,
  shuffle: 0.3,
};

/**
 * Blosc by its compressor, with the byte shuffle (typesize 4) undone in WebAssembly. lz4, lz4hc
 * and zstd keep the figures measured before the LZ4 kernel's shortcut (28 Nov), which took their
 * decoding to 5044-5658, 4994-5115 and 2587-2835 MiB/s (0.19, 0.19, 0.35 ns/B) while a whole
 * blosc-lz4 read's CPU fell only 4% (file reads, staging and the scatter into the output cost the
 * rest, and threads share those too). Priced by the kernel alone, a 256 MiB blosc-lz4 read on 16
 * cores would get 5 threads, where the 16-core curve (docs/benchmarks.md) measured 16 fastest.
 */
const BLOSC_NS_PER_BYTE: Record<string, number> = {
  blosclz: 0.12, // 7692 MiB/s
  lz4: 0.32, // 3012 MiB/s before the shortcut
  lz4hc: 0.61, // 1563 MiB/s before the shortcut
  zstd: 0.48, // 1970 MiB/s before the shortcut
  zlib: 0.84, // 1133 MiB/s
};
/** What the bit shuffle adds over the byte shuffle (lz4: 531 against 3012 MiB/s). */
const BITSHUFFLE_NS_PER_BYTE = 1.5;

/** The decoding cost of a chain (its normalised configs), the sum of its codecs'. */
export function decodeCost(configs: readonly CodecConfig[]): number {
  let ns = 0;
  for (const { name, configuration: conf = {} } of configs) {
    const id = canonicalCodecName(name).replace(/^numcodecs\./, "");
    if (id === "bytes") ns += conf.endian === "big" ? NS_PER_BYTE.shuffle : RAW;
    else if (id === "blosc") ns += (BLOSC_NS_PER_BYTE[String(conf.cname)] ?? UNMEASURED) + (conf.shuffle === "bitshuffle" ? BITSHUFFLE_NS_PER_BYTE : 0);
    // Its normalised configuration holds the inner chain as normalised configs (the index is tiny).
    else if (id === "sharding_indexed") ns += decodeCost((conf.codecs ?? []) as unknown as CodecConfig[]);
    else ns += NS_PER_BYTE[id] ?? UNMEASURED;
  }
  return ns;
}
