/**
 * Runs inside Chromium (test/zarrita-browser.test.ts), bundled with zarrita and parzarr/zarrita's
 * browser entry: parzarr's `get` and `set` on zarrita arrays, on 2 Web Workers, against zarrita's
 * own `zarr.get` and `zarr.set` on seeded random selections.
 */
import * as zarr from "zarrita";
import { get, set } from "../../src/zarrita-browser.js";
import { WorkerPool } from "../../src/browser.js";
import { rng } from "../helpers/rng.js";
import { elements, randomSelection } from "../helpers/zarrita-cases.js";

const same = (a: unknown, b: unknown) => elements(a).map(String).join() === elements(b).map(String).join();

/** Reads each array at `urls` on random selections; then writes a Map-backed array against its twin. */
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
        const sel = randomSelection(arr.shape, r, false);
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
      const sel = randomSelection(mine.shape, r, false);
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
