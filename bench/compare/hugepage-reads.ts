/**
 * Child process of the comparison, started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (the
 * setting the `parzarr` command runs with): whole reads into fresh memory by parzarr (default
 * threads) and zarrita.js, so that both get transparent huge pages for their outputs.
 *
 *   node [loader] hugepage-reads.(ts|js) CONFIG_JSON   ({ cases: [{ codec, path }], repeats, rows, cols })
 *
 * Prints one JSON line: HugePageReport.
 */
// The Node platform (folder stores, worker_threads): the benchmark opens arrays by path.
import "../../src/platform/node.js";
import { openArray } from "../../src/hierarchy/open.js";
import type { NDArray } from "../../src/indexing/ndarray.js";
import type { CompareCodec } from "./compare.js";
import { checksum, loadZarrita, timeRuns } from "./measure.js";

export interface HugePageReport {
  tunables: string | null;
  results: { codec: CompareCodec; parzarr: number[]; parzarrSum: number; zarrita: number[] | null; zarritaSum: number | null }[];
  skipped: string[];
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2]) as { cases: { codec: CompareCodec; path: string }[]; repeats: number; rows: number; cols: number };
  const z = await loadZarrita();
  const report: HugePageReport = { tunables: process.env.GLIBC_TUNABLES ?? null, results: [], skipped: typeof z === "string" ? [z] : [] };
  for (const { codec, path } of cfg.cases) {
    const arr = await openArray(path, { mode: "r" });
    let parzarrSum = 0;
    const parzarr = await timeRuns(cfg.repeats, true, async () => {
      const r = (await arr.get(null)) as NDArray;
      parzarrSum = checksum(r.data as Float32Array, cfg.cols, cfg.rows);
    });
    let zarrita: number[] | null = null;
    let zarritaSum: number | null = null;
    if (typeof z !== "string") {
      const za = await z.zarrita.open(z.zarrita.root(new z.Store(path)), { kind: "array" });
      zarrita = await timeRuns(cfg.repeats, true, async () => {
        zarritaSum = checksum((await z.zarrita.get(za)).data, cfg.cols, cfg.rows);
      });
    }
    report.results.push({ codec, parzarr, parzarrSum, zarrita, zarritaSum });
  }
  process.stdout.write(JSON.stringify(report) + "\n");
  // The default pool's workers are unref'd, but say so plainly: this child is done.
  process.exit(0);
}

await main();
