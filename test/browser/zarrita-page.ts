/**
 * Runs inside Chromium (test/zarrita-browser.test.ts), bundled with zarrita and parzarr/zarrita's
 * browser entry: parzarr's `get` and `set` on zarrita arrays, on 2 Web Workers, against zarrita's
 * own `zarr.get` and `zarr.set` on seeded random selections.
 */
import * as zarr from "zarrita";
import { get, set } from "../../src/zarrita-browser.js";
import { WorkerPool } from "../../src/browser.js";

/** xorshift32, as test/helpers/random.ts. */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

type Sel = (number | zarr.Slice | null)[] | null;

function randomSelection(shape: number[], r: (n: number) => number): Sel {
  if (r(8) === 0) return null;
  return shape.map((n) => {
    const k = r(4);
    if (k === 0) return null;
    if (k === 1) return r(2) ? r(n) : -1 - r(n);
    // Slices that are never empty: zarrita throws on those, parzarr reads them as empty.
    const start = r(n);
    return zarr.slice(r(4) === 0 ? null : start, r(4) === 0 ? null : start + 1 + r(n - start), r(3) === 0 ? null : 1 + r(4));
  });
}

function elements(res: unknown): string[] {
  if (typeof res !== "object" || res === null || !("stride" in res)) return [String(res)];
  const { data, shape, stride } = res as zarr.Chunk<zarr.DataType>;
  const at = (i: number) => String("get" in data ? (data as zarr.BoolArray).get(i) : (data as ArrayLike<unknown>)[i]);
  const out: string[] = [];
  const walk = (d: number, offset: number) => {
    if (d === shape.length) return void out.push(at(offset));
    for (let i = 0; i < shape[d]; i++) walk(d + 1, offset + i * stride[d]);
  };
  walk(0, 0);
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(elements(a)) === JSON.stringify(elements(b));

/** Reads each array at `urls` on random selections; then writes a Map-backed copy of the first. */
export async function run({ urls, workerUrl, seed }: { urls: string[]; workerUrl: string; seed: number }) {
  const pool = new WorkerPool({ threads: 2, workerUrl });
  let peak = 0;
  const opts = { pool, threads: 2, onProgress: () => void (peak = Math.max(peak, pool.busy)) };
  const r = rng(seed);
  const mismatches: string[] = [];
  let cases = 0;
  try {
    for (const url of urls) {
      const arr = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
      for (let i = 0; i < 15; i++) {
        const sel = randomSelection(arr.shape, r);
        const [want, got] = [await zarr.get(arr, sel), await get(arr, sel, opts)];
        cases++;
        if (!same(got, want) || (typeof want === "object" && (got as zarr.Chunk<zarr.DataType>).data.constructor !== want.data.constructor)) {
          mismatches.push(`${url} ${JSON.stringify(sel)}`);
        }
      }
    }
    // Writes: a Map store (keys as zarrita gives them), parzarr's set against zarrita's on a twin.
    const make = async () => {
      const a = await zarr.create(zarr.root(new Map<string, Uint8Array>()), { shape: [30, 20], chunkShape: [7, 6], dtype: "int32", fillValue: -1 });
      await zarr.set(a, null, { data: Int32Array.from({ length: 600 }, (_, i) => i * 3), shape: [30, 20], stride: [20, 1] });
      return a;
    };
    const readPeak = peak;
    const [mine, twin] = [await make(), await make()];
    let writePeak = 0;
    for (let i = 0; i < 10; i++) {
      const sel = randomSelection(mine.shape, r);
      const region = await zarr.get(twin, sel);
      const value =
        typeof region === "object" ? { data: Int32Array.from({ length: region.data.length }, () => r(1000)), shape: region.shape, stride: region.stride } : r(1000);
      await zarr.set(twin, sel, value);
      peak = 0;
      await set(mine, sel, value, opts);
      writePeak = Math.max(writePeak, peak);
      cases++;
      if (!same(await zarr.get(mine), await zarr.get(twin))) mismatches.push(`set ${JSON.stringify(sel)}`);
    }
    return { isolated: self.crossOriginIsolated, cases, mismatches, readPeak, writePeak };
  } finally {
    await pool.close();
  }
}
