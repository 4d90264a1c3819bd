/**
 * Per-core codec throughput on realistic chunks: 1024 x 1024 float32 random walks along rows
 * (4 MiB), and 1024 x 512 float64 ones for typesize 8. Every figure is MiB/s of uncompressed data
 * on one thread (median latency of the samples).
 *
 *   npm run bench                      # everything (~2-3 minutes)
 *   npm run bench -- --filter lz4      # names matching a regular expression
 *   npm run bench -- --time 200        # ms per task (default 400)
 *   npm run bench -- --json out.json   # also write the results
 *   npm run bench -- --wall            # wall-clock time instead of CPU time
 *
 * Times are this process's CPU time by default (process.cpuUsage), so that other work on a shared
 * machine (time spent descheduled) does not count; caches shared with that work still do.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import Blosc from "numcodecs/blosc";
import { Bench } from "tinybench";
import * as blosc from "../src/codecs/blosc/blosc.js";
import type { BloscCname } from "../src/codecs/blosc/blosc.js";
import { lz4CompressBlock, lz4CompressBound, lz4CompressInto, lz4DecompressBlock } from "../src/codecs/blosc/lz4.js";
import { bitShuffle, bitUnshuffle, byteShuffle, byteUnshuffle } from "../src/codecs/blosc/shuffle.js";
import { setWasmKernels } from "../src/codecs/wasm/wasm.js";
import { kernelZstdBackend, nativeZstdBackend, wasmZstdBackend, zstdBackend, zstdCompress } from "../src/codecs/zstd.js";
import { nativeDeflateBackend, type DeflateBackend } from "../src/codecs/deflate.js";
import { pakoBackend } from "../src/codecs/pako-backend.js";
import { gdeflateDecodeInto } from "../src/codecs/gdeflate-decode.js";
import { gdeflateEncode } from "../src/codecs/gdeflate-encode.js";
import { bytesOf, randomWalkFloat32, randomWalkFloat64 } from "./compare/data.js";

const { values: args } = parseArgs({
  options: {
    filter: { type: "string" },
    time: { type: "string", default: "400" },
    json: { type: "string" },
    wall: { type: "boolean", default: false },
  },
});
const filter = args.filter ? new RegExp(args.filter) : null;
const timeMs = Number(args.time);

const f32 = bytesOf(randomWalkFloat32(1024, 1024));
const f64 = bytesOf(randomWalkFloat64(1024, 512));
const dataFor = (typesize: number): Uint8Array => (typesize === 8 ? f64 : f32);
const MiB = 2 ** 20;

interface Row {
  name: string;
  mibps: number;
  /** Compressed size over uncompressed, where the task is a codec. */
  ratio?: number;
  samples: number;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const bench = new Bench({ time: timeMs, iterations: 3, warmupIterations: 2, warmupTime: 50, ...(args.wall ? {} : { now: cpuNow }) });
const sizes = new Map<string, { bytes: number; ratio?: number }>();

function add(name: string, bytes: number, fn: () => unknown, ratio?: number): void {
  if (filter && !filter.test(name)) return;
  sizes.set(name, { bytes, ratio });
  bench.add(name, fn);
}

// ---- blosc frames, every compressor x shuffle x typesize ----------------------------------------
const CNAMES: BloscCname[] = ["lz4", "lz4hc", "blosclz", "zstd", "zlib"];
const SHUFFLES = [
  [0, "noshuffle"],
  [1, "shuffle"],
  [2, "bitshuffle"],
] as const;
const CLEVEL: Record<BloscCname, number> = { lz4: 5, lz4hc: 5, blosclz: 5, zstd: 3, zlib: 1, snappy: 5 };

for (const cname of CNAMES) {
  for (const [shuffle, sname] of SHUFFLES) {
    for (const typesize of [4, 8]) {
      const src = dataFor(typesize);
      const opts = { cname, clevel: CLEVEL[cname], shuffle, typesize, blocksize: 0 };
      const base = `blosc ${cname}/${CLEVEL[cname]} ${sname} ts${typesize}`;
      if (filter && !filter.test(`${base} decode`) && !filter.test(`${base} encode`)) continue;
      const frame = await blosc.bloscEncode(src, opts);
      const dest = new Uint8Array(src.length);
      const ratio = frame.length / src.length;
      add(`${base} decode`, src.length, () => blosc.bloscDecode(frame, dest), ratio);
      add(`${base} encode`, src.length, () => blosc.bloscEncode(src, opts), ratio);
      if (shuffle === 1 && typesize === 4) {
        // The same without the WebAssembly kernels: TypeScript LZ4 and shuffle (the fallback's speed).
        const jsOnly = <T>(f: () => T): (() => T) => () => {
          const previous = setWasmKernels(false);
          try {
            return f();
          } finally {
            setWasmKernels(previous);
          }
        };
        add(`${base} decode (no WASM kernels)`, src.length, jsOnly(() => blosc.bloscDecode(frame, dest)), ratio);
        add(`${base} encode (no WASM kernels)`, src.length, jsOnly(() => blosc.bloscEncode(src, opts)), ratio);
      }
    }
  }
}

// numcodecs.js (c-blosc in WASM), the reference point the issue quotes.
{
  const nc = Blosc.fromConfig({ id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 });
  const frame = await blosc.bloscEncode(f32, { cname: "lz4", clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 });
  add("numcodecs.js blosc lz4/5 shuffle ts4 decode", f32.length, () => nc.decode(frame));
  add("numcodecs.js blosc lz4/5 shuffle ts4 encode (typesize ignored)", f32.length, () => nc.encode(f32));
}

// ---- raw LZ4 block on byte-shuffled data (what blosc feeds it) ----------------------------------
{
  const shuffled = new Uint8Array(f32.length);
  byteShuffle(f32, shuffled, 4);
  const block = lz4CompressBlock(shuffled);
  const dest = new Uint8Array(shuffled.length);
  const out = new Uint8Array(lz4CompressBound(shuffled.length));
  add("lz4 block decode (shuffled f32)", shuffled.length, () => lz4DecompressBlock(block, dest), block.length / shuffled.length);
  add("lz4 block encode (shuffled f32)", shuffled.length, () => lz4CompressInto(shuffled, out, 0, out.length), block.length / shuffled.length);
}

// ---- shuffle kernels ----------------------------------------------------------------------------
{
  const tmp = new Uint8Array(f32.length);
  const back = new Uint8Array(f32.length);
  for (const ts of [2, 4, 8]) {
    add(`byte shuffle ts${ts}`, f32.length, () => byteShuffle(f32, tmp, ts));
    add(`byte unshuffle ts${ts}`, f32.length, () => byteUnshuffle(tmp, back, ts));
  }
  for (const ts of [4, 8]) {
    add(`bit shuffle ts${ts}`, f32.length, () => bitShuffle(f32, tmp, ts));
    add(`bit unshuffle ts${ts}`, f32.length, () => bitUnshuffle(tmp, back, ts));
  }
}

// ---- zlib / gzip: node:zlib against pako ---------------------------------------------------------
{
  const backends: DeflateBackend[] = [pakoBackend];
  const native = nativeDeflateBackend();
  if (native) backends.unshift(native);
  const shuffled = new Uint8Array(f32.length);
  byteShuffle(f32, shuffled, 4);
  for (const b of backends) {
    for (const level of [1, 5]) {
      const z = b.deflate(f32, level);
      const g = b.gzip(f32, level);
      add(`zlib/${level} inflate ${b.name}`, f32.length, () => b.inflate(z), z.length / f32.length);
      add(`zlib/${level} deflate ${b.name}`, f32.length, () => b.deflate(f32, level), z.length / f32.length);
      add(`gzip/${level} gunzip ${b.name}`, f32.length, () => b.gunzip(g), g.length / f32.length);
      add(`gzip/${level} gzip ${b.name}`, f32.length, () => b.gzip(f32, level), g.length / f32.length);
    }
  }
}

// ---- zstd: decoding through each backend this runtime has (native libzstd on Node >= 22.15, our
// WASM decoder, numcodecs.js's WASM libzstd), on shuffled and plain float32; encoding by the
// backend in use -----------------------------------------------------------------------------------
{
  const shuffled = new Uint8Array(f32.length);
  byteShuffle(f32, shuffled, 4);
  const decoders = [nativeZstdBackend(), kernelZstdBackend, wasmZstdBackend].filter((b) => b !== null);
  for (const [what, input] of [["shuffled f32", shuffled], ["f32", f32]] as const) {
    for (const level of [1, 3]) {
      const z = await zstdCompress(input, level);
      for (const b of decoders) add(`zstd/${level} decode ${b.name} (${what})`, f32.length, () => b.decompress(z, f32.length), z.length / f32.length);
      if (input === shuffled) add(`zstd/${level} encode ${zstdBackend().name} (${what})`, f32.length, () => zstdCompress(input, level), z.length / f32.length);
    }
  }
}

// ---- zarrs.gdeflate: our decoder (into a reused buffer, as decodeInto) and encoder, on plain float32 ----
{
  const dest = new Uint8Array(f32.length);
  for (const level of [1, 6]) {
    const z = gdeflateEncode(f32, level);
    add(`gdeflate/${level} decode (f32)`, f32.length, () => gdeflateDecodeInto(z, dest), z.length / f32.length);
    add(`gdeflate/${level} encode (f32)`, f32.length, () => gdeflateEncode(f32, level), z.length / f32.length);
  }
}

console.log(`${bench.tasks.length} tasks, ${timeMs} ms each; MiB/s of uncompressed data per core (median, ${args.wall ? "wall-clock" : "CPU"} time)`);
bench.addEventListener("cycle", (e) => {
  const t = e.task;
  if (t === undefined) return;
  const r = t.result;
  if (r.state !== "completed") return;
  const s = sizes.get(t.name)!;
  const mibps = s.bytes / MiB / (r.latency.p50 / 1000);
  const ratio = s.ratio === undefined ? "" : `  ratio ${s.ratio.toFixed(3)}`;
  console.log(`${t.name.padEnd(58)} ${mibps.toFixed(0).padStart(7)} MiB/s${ratio}`);
});
await bench.run();

const rows: Row[] = [];
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state !== "completed") {
    console.log(`${t.name}: ${r.state}${r.state === "errored" ? ` ${String(r.error)}` : ""}`);
    continue;
  }
  const s = sizes.get(t.name)!;
  rows.push({ name: t.name, mibps: s.bytes / MiB / (r.latency.p50 / 1000), ratio: s.ratio, samples: r.latency.samplesCount });
}
if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2));
