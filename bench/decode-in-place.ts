/**
 * What decoding straight into the output saves, per 1024 x 1024 float32 chunk (4 MiB): the
 * pipeline's decode into a fresh buffer plus the copy into a shared output, against decodeInto
 * the same place. Single thread, median of RUNS.
 *   node --import tsx bench/decode-in-place.ts [RUNS=41]
 */
import { CodecPipeline } from "../src/codecs/pipeline.js";
import { parseDataType } from "../src/metadata/dtype.js";
import type { CodecConfig } from "../src/index.js";
import { median, randomWalk } from "./pool-data.js";

const runs = Number(process.argv[2] ?? 41);
const shape = [1024, 1024];
const data = randomWalk(shape);
const spec = { shape, dtype: parseDataType("float32"), fillValue: 0 };
const out = new Float32Array(new SharedArrayBuffer(data.byteLength * 2));
const dest = new Uint8Array(out.buffer, data.byteLength, data.byteLength); // the chunk's place

const chains: Record<string, CodecConfig[]> = {
  raw: [{ name: "bytes", configuration: { endian: "little" } }],
  "blosc lz4": [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4 } }],
  "blosc zstd": [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "shuffle", typesize: 4 } }],
};

async function perChunk(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

console.log(`per 4 MiB chunk, median of ${runs}: decode + copy  vs  decodeInto  (saving)`);
for (const [name, codecs] of Object.entries(chains)) {
  const p = CodecPipeline.create(codecs, spec);
  const encoded = await p.encode({ data, shape, strides: [1024, 1], offset: 0 });
  // The store hands every read a fresh buffer; so do both variants here.
  const copyPath = await perChunk(async () => {
    const view = await p.decode(encoded.slice());
    out.set(view.data as Float32Array, data.length);
  });
  const intoPath = await perChunk(async () => {
    await p.decodeInto(encoded.slice(), dest);
  });
  console.log(`${name.padEnd(11)} ${copyPath.toFixed(2).padStart(6)} ms  vs ${intoPath.toFixed(2).padStart(6)} ms  (${(100 * (1 - intoPath / copyPath)).toFixed(0)}%)`);
}
