/**
 * Whole-array read and write times of parzarr against zarrita.js and zarr-python 2 (issues 3 and
 * 12): reads into fresh memory, with huge pages, and into a reused `out`; writes; the targets.
 *
 *   npm run bench:compare                 # 8192 x 8192 float32, chunks 1024 x 1024 (~10 min on 2 cores)
 *   npm run bench:compare -- --quick      # 2048 x 2048 and 128^3 cubes, a few minutes
 *   npm run bench:compare -- --rows 4096 --cols 4096 --chunk 512 --repeats 5 --threads 0,2,default
 *   npm run bench:compare -- --json result.json
 *
 * Generated arrays are cached under .bench-data/ (or --dir) and reused.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runCompare, type ThreadSetting } from "./compare/compare.js";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    dir: { type: "string" },
    rows: { type: "string" },
    cols: { type: "string" },
    chunk: { type: "string" },
    repeats: { type: "string" },
    threads: { type: "string" },
    json: { type: "string" },
  },
});

const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));
const threads = values.threads?.split(",").map((t): ThreadSetting => (t.trim() === "default" ? "default" : Number(t)));

const result = await runCompare({
  dir: values.dir,
  rows: num(values.rows) ?? (values.quick ? 2048 : undefined),
  cols: num(values.cols) ?? (values.quick ? 2048 : undefined),
  chunk: num(values.chunk),
  repeats: num(values.repeats),
  threads,
  volumeEdge: values.quick ? 128 : undefined,
});
if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
