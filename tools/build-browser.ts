/**
 * Builds parzarr's browser files with esbuild:
 * - parzarr-worker.js: the Web Worker module (`parzarr/worker`), self-contained (no bare imports)
 *   so that any static server can serve it beside the data or the page; what it loads on first use
 *   only (numcodecs' zstd encoder) is in parzarr-worker-<hash>.js files beside it, which a read
 *   never fetches (test/bundle.test.ts holds the worker a read loads to its gzip budget);
 * - parzarr.js: the whole browser entry as an ES module (with the parzarr-<hash>.js files it
 *   imports), for pages without a bundler (the browser tests, hand-written pages). Its default
 *   worker (browser/default-worker.ts) is the file beside it; what it imports on first use lies
 *   beside it too: the ZEP 6 model (parzarr-<hash>.js, which imports zod from the page), the S3
 *   and reference stores, and numcodecs' zstd encoder, the worker's own chunk of it;
 * - parzarr-stores.js: `parzarr/stores` (stores/browser.ts) for the same pages, built with
 *   parzarr.js so that the two share their modules (one store registry, one set of classes) in
 *   parzarr-<hash>.js files beside them;
 * - viewer.html and viewer.js: the viewer page (`parzarr view`), also hostable beside any data;
 *   viewer.js imports the library from parzarr.js beside it rather than holding a third copy.
 * Run as a script: `tsx tools/build-browser.ts [outdir]` (the package build writes dist/browser,
 * minified and without source maps: a bundle's map would carry a copy of every module in it, the
 * third-party ones included, and the package ships no maps; see tsconfig.build.json).
 */
import { build, type Metafile, type Plugin } from "esbuild";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The default worker's URL, as browser/default-worker.ts writes it (twice). */
const SOURCE_WORKER_URL = 'new URL("./parzarr-worker.js", import.meta.url)';

/** The viewer page's library is the one-file bundle beside it. */
const libraryBeside: Plugin = {
  name: "parzarr-library-beside",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/browser\.js$/ }, (args) =>
      args.importer.endsWith(join("src", "viewer", "main.ts")) ? { path: "./parzarr.js", external: true } : undefined,
    );
  },
};

/**
 * In the worker a pool's default worker is the worker's own script, wherever a bundler put it; and
 * the file then holds no `new URL(..., import.meta.url)` for a bundler that builds it again (webpack
 * 5's `new Worker(new URL("parzarr/worker", import.meta.url))`) to resolve and fail on.
 */
const workerIsSelf: Plugin = {
  name: "parzarr-worker-is-self",
  setup(b) {
    b.onLoad({ filter: /default-worker\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      if (!text.includes(SOURCE_WORKER_URL)) throw new Error(`${args.path} no longer holds ${SOURCE_WORKER_URL}`);
      return { contents: text.replaceAll(SOURCE_WORKER_URL, "new URL((globalThis as unknown as { location: { href: string } }).location.href)"), loader: "ts" };
    });
  },
};

/**
 * One copy of numcodecs' zstd (748 KB of WebAssembly in base64) for both builds: the library
 * imports the worker's chunk of it, which lies beside parzarr.js and exports the package's own
 * exports (a chunk that an import() loads keeps its entry's export names).
 */
function sharedChunk(filter: RegExp, chunk: string): Plugin {
  return { name: "parzarr-shared-chunk", setup: (b) => b.onResolve({ filter }, () => ({ path: chunk, external: true })) };
}

export interface BrowserBuild {
  library: string;
  worker: string;
  viewer: string;
  /** esbuild's record of every module in each file, for checking the graph. */
  metafiles: { library: Metafile; worker: Metafile };
}

export async function buildBrowser(outdir: string, options: { minify?: boolean; sourcemap?: boolean } = {}): Promise<BrowserBuild> {
  const common = {
    bundle: true,
    platform: "browser" as const,
    format: "esm" as const,
    target: "es2022",
    minify: options.minify ?? false,
    sourcemap: options.sourcemap ?? true,
    metafile: true,
    logLevel: "silent" as const,
    absWorkingDir: ROOT,
  };
  const library = join(outdir, "parzarr.js");
  const worker = join(outdir, "parzarr-worker.js");
  const viewer = join(outdir, "viewer.html");
  await mkdir(outdir, { recursive: true });
  // Split: what the worker imports on first use (numcodecs' zstd WASM, 240 KB gzip, only for
  // encoding) goes to parzarr-worker-*.js files beside it, which a read never loads.
  const wrk = await build({
    ...common,
    entryPoints: { "parzarr-worker": join(ROOT, "workers/browser-worker.ts") },
    outdir,
    splitting: true,
    chunkNames: "parzarr-worker-[hash]",
    plugins: [workerIsSelf],
    // Whitespace stays, because minifying it drops the comments that tell webpack and Vite to
    // leave alone the worker's import() of a user's store module (registerStoreKind): without
    // them a bundler that takes the worker in warns "Critical dependency" or fails. ~5% gzip.
    ...(options.minify ? { minify: false, minifySyntax: true, minifyIdentifiers: true } : {}),
  });
  const zstdChunk = Object.entries(wrk.metafile!.outputs).find(([, o]) => o.entryPoint?.includes("node_modules/numcodecs/dist/zstd"))?.[0];
  if (zstdChunk === undefined) throw new Error("the worker build has no chunk of numcodecs' zstd");
  const [lib] = await Promise.all([
    build({
      ...common,
      entryPoints: { parzarr: join(ROOT, "src/browser.ts"), "parzarr-stores": join(ROOT, "src/stores/browser.ts") },
      outdir,
      // Split too, so that what the library imports on first use stays out of parzarr.js.
      splitting: true,
      chunkNames: "parzarr-[hash]",
      // zod (an optional peer, 150 KB minified) is the page's to supply, for the ZEP 6 model alone:
      // the model's chunk imports the bare "zod", which a page without a bundler maps with an
      // import map (<script type="importmap">{"imports": {"zod": "<url of zod's ESM build>"}}</script>);
      // without one, checking a model fails with MISSING_DEPENDENCY (optional-deps.ts).
      external: ["zod"],
      plugins: [sharedChunk(/^numcodecs\/zstd$/, `./${basename(zstdChunk)}`)],
    }),
    build({ ...common, entryPoints: [join(ROOT, "src/viewer/main.ts")], outfile: join(outdir, "viewer.js"), plugins: [libraryBeside] }),
    copyFile(join(ROOT, "src/viewer/index.html"), viewer),
  ]);
  return { library, worker, viewer, metafiles: { library: lib.metafile!, worker: wrk.metafile! } };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(ROOT, "dist/browser"));
  const r = await buildBrowser(out, { minify: true, sourcemap: false });
  console.log(`wrote ${r.library}, ${r.worker} and ${r.viewer}`);
}
