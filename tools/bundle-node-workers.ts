/**
 * Bundles the Node worker entries (dist/workers/node-worker.js, comlink-node-worker.js) over what
 * tsc wrote there: a worker then loads its entry and one shared file instead of resolving, reading
 * and linking a hundred modules, which took 150-190 ms of each worker's start in a CPU profile of
 * `parzarr cp` (issue 12). The two entries run the same code, so it lies once in a shared chunk
 * beside them (one copy in the package, not two). Packages stay external (imported from
 * node_modules as before). No source maps: the package ships none (see tsconfig.build.json); the
 * bundle is unminified, each module's code under a comment naming its source file.
 * Run by `npm run build` after tsc: `tsx tools/bundle-node-workers.ts [outdir]`.
 */
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ENTRIES = ["node-worker", "comlink-node-worker"];
/** The shared chunks' names: each build's are removed first, so that a rebuild ships no stale one. */
const CHUNK = /^chunk-[A-Z0-9]+\.js$/;

export async function bundleNodeWorkers(root: string, outdir: string): Promise<string[]> {
  for (const f of readdirSync(outdir)) if (CHUNK.test(f)) rmSync(join(outdir, f));
  const r = await build({
    entryPoints: ENTRIES.map((e) => ({ in: join(root, "workers", `${e}.ts`), out: e })),
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: "chunk-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    metafile: true,
    logLevel: "warning",
    absWorkingDir: root,
    allowOverwrite: true,
  });
  return Object.keys(r.metafile.outputs).filter((f) => f.endsWith(".js")).map((f) => resolve(root, f));
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = process.argv[3] ? resolve(process.argv[3]) : ROOT;
  const files = await bundleNodeWorkers(root, resolve(process.argv[2] ?? join(root, "dist/workers")));
  console.log(`wrote ${files.join(", ")}`);
}
