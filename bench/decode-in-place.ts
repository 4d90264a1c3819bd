/**
 * What decoding straight into the output saves, per 1024 x 1024 float32 chunk (4 MiB): the
 * pipeline's decode into a fresh buffer plus the copy into a shared output, against decodeInto
 * the same place. Single thread; the variants run in turns, best and median of RUNS.
 *   node --import tsx bench/decode-in-place.ts [RUNS=41]
 */
import { CodecPipeline } from "../src/codecs/pipeline.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import type { CodecConfig } from "../src/index.js";
import { median, randomWalk } from "./pool-data.js";

const runs = Number(process.argv[2] ?? 41);
const shape = [1024, 1024];
const data = randomWalk(shape);
const spec = { shape, dtype: parseDataType("float32"), fillValue: 0 };
const out = new Float32Array(new SharedArrayBuffer(data.byteLength * 2));
const dest = { data: out, offset: data.length, strides: [1024, 1] }; // the chunk's place

const chains: Record<string, CodecConfig[]> = {
  raw: [{ name: "bytes", configuration: { endian: "little" } }],
  "blosc lz4": [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4 } }],
  "blosc zstd": [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "shuffle", typesize: 4 } }],
};

/** Runs the two variants in turns (so that both meet the same load); best and median of each. */
async function turns(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number][]> {
  for (let i = 0; i < 5; i++) {
    await a();
    await b();
  }
  const xs: number[][] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of [a, b].entries()) {
      const t = performance.now();
      await fn();
      xs[k].push(performance.now() - t);
    }
  }
  return xs.map((x) => [Math.min(...x), median(x)]);
}

console.log(`per 4 MiB chunk, best (median) of ${runs} in turns: decode + copy  vs  decodeInto  (saving of bests)`);
for (const [name, codecs] of Object.entries(chains)) {
  const p = CodecPipeline.create(codecs, spec);
  const encoded = await p.encode({ data, shape, strides: [1024, 1], offset: 0 });
  // The store hands every read a fresh buffer; so do both variants here.
  const [copyPath, intoPath] = await turns(
    async () => {
      const view = await p.decode(encoded.slice());
      out.set(view.data as Float32Array, data.length);
    },
    async () => {
      await p.decodeInto(encoded.slice(), dest);
    },
  );
  const fmt = ([best, med]: number[]) => `${best.toFixed(2).padStart(6)} (${med.toFixed(2)}) ms`;
  console.log(`${name.padEnd(11)} ${fmt(copyPath)}  vs ${fmt(intoPath)}  (${(100 * (1 - intoPath[0] / copyPath[0])).toFixed(0)}%)`);
}
