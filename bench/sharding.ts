/**
 * Sharding benchmark: partial reads of a few inner chunks against whole-shard reads, and sharded
 * writes with 1 and 2 threads. Plain timings (median of several runs) on a filesystem store in a
 * temporary folder; the machine is shared, so read the ratios, not the milliseconds.
 *
 *   npx tsx bench/sharding.ts [--quick]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSystemStore, createArray, openArray, slice, type CodecConfig, type RangeRequest } from "../src/index.js";

const quick = process.argv.includes("--quick");
const N = quick ? 1024 : 2048;
const SHARD = quick ? 512 : 1024;
const INNER = 64;
const RUNS = quick ? 3 : 7;

/** A filesystem store that counts requests and bytes, so the table shows what each read fetched. */
class MeteredStore extends FileSystemStore {
  requests = 0;
  bytes = 0;
  override async get(key: string) {
    const b = await super.get(key);
    if (!key.endsWith("zarr.json")) {
      this.requests++;
      this.bytes += b?.length ?? 0;
    }
    return b;
  }
  // getRange goes through getRangeVersioned too: counting here counts every range read once.
  override async getRangeVersioned(key: string, range: RangeRequest) {
    const r = await super.getRangeVersioned(key, range);
    this.requests++;
    this.bytes += r?.bytes.length ?? 0;
    return r;
  }
}

async function median(runs: number, f: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const dir = mkdtempSync(join(tmpdir(), "parzarr-bench-shard-"));
try {
  const data = new Int32Array(N * N);
  // Smooth data with some noise: compresses like a real field, not like a constant.
  for (let i = 0; i < data.length; i++) data[i] = Math.round(1000 * Math.sin(i / 977) + ((i * 2654435761) % 17));
  const codecs: CodecConfig[] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }];
  const rows: string[][] = [];

  // Writes: the whole array, every shard encoded whole, with threads 1 and 2.
  const write: Record<number, number> = {};
  for (const threads of [1, 2]) {
    write[threads] = await median(RUNS, async () => {
      const a = await createArray(join(dir, `w${threads}`), { shape: [N, N], chunks: [INNER, INNER], shards: [SHARD, SHARD], dtype: "int32", codecs, overwrite: true });
      await a.set(null, { data, shape: [N, N] }, { threads });
    });
  }
  rows.push([`write ${N}x${N} int32, shards ${SHARD}², inner ${INNER}², threads 1`, write[1].toFixed(1), "1.00"]);
  rows.push([`write, threads 2`, write[2].toFixed(1), (write[1] / write[2]).toFixed(2)]);

  const store = new MeteredStore(join(dir, "w1"), { readOnly: true });
  const arr = await openArray(store, { mode: "r" });
  const meter = async (f: () => Promise<unknown>) => {
    store.requests = 0;
    store.bytes = 0;
    await f();
    const r = `${store.requests} req, ${(store.bytes / 1024).toFixed(0)} KiB`;
    return r;
  };
  // Partial: a 2 x 2 block of inner chunks inside one shard (index cached after the first read).
  const partial = () => arr.get([slice(INNER, 3 * INNER), slice(INNER, 3 * INNER)]);
  const cold = await meter(partial);
  const warm = await meter(partial);
  const tPartial = await median(RUNS * 3, partial);
  // Whole shard: what a reader without partial decoding fetches and decodes for the same block.
  const whole = () => arr.get([slice(0, SHARD), slice(0, SHARD)]);
  const wholeIo = await meter(whole);
  const tWhole = await median(RUNS, whole);
  // One element: the smallest partial read.
  const one = () => arr.get([INNER * 5 + 3, INNER * 6 + 1]);
  const tOne = await median(RUNS * 3, one);
  rows.push([`read 2x2 inner chunks (first: ${cold}; then: ${warm})`, tPartial.toFixed(2), (tWhole / tPartial).toFixed(1) + "x faster"]);
  rows.push([`read 1 element (1 inner chunk)`, tOne.toFixed(2), (tWhole / tOne).toFixed(1) + "x faster"]);
  rows.push([`read the whole shard (${wholeIo})`, tWhole.toFixed(2), "1.0"]);

  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`${"case".padEnd(w)} | median ms | ratio`);
  console.log(`${"-".repeat(w)} | --------- | -----`);
  for (const r of rows) console.log(`${r[0].padEnd(w)} | ${r[1].padStart(9)} | ${r[2]}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
