/**
 * Bundles each Node worker entry (dist/workers/node-worker.js, comlink-node-worker.js) into one
 * file over what tsc wrote there: a worker then loads one module instead of resolving, reading and
 * linking a hundred, which took 150-190 ms of each worker's start in a CPU profile of `parzarr cp`
 * (issue 12). Packages stay external (imported from node_modules as before); the source maps point
 * at the shipped sources. Run by `npm run build` after tsc: `tsx tools/bundle-node-workers.ts [outdir]`.
 */
import { build } from "esbuild";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ENTRIES = ["node-worker", "comlink-node-worker"];

export async function bundleNodeWorkers(root: string, outdir: string): Promise<string[]> {
  const files = ENTRIES.map((e) => join(outdir, `${e}.js`));
  await Promise.all(
    ENTRIES.map((e, i) =>
      build({
        entryPoints: [join(root, "workers", `${e}.ts`)],
        outfile: files[i],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        sourcemap: true,
        logLevel: "warning",
        absWorkingDir: root,
        allowOverwrite: true,
      }),
    ),
  );
  return files;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = process.argv[3] ? resolve(process.argv[3]) : ROOT;
  const files = await bundleNodeWorkers(root, resolve(process.argv[2] ?? join(root, "dist/workers")));
  console.log(`wrote ${files.join(", ")}`);
}
