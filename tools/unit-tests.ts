/**
 * `npm run test:unit`: the fast loop. The test files that need no peer (zarr-python, redis-server,
 * moto, Chromium), no server process (s3rver) and no build (npm pack, bundlers), run with
 * PARZARR_NO_PEERS=1 so that the few peer checks inside them skip even where a peer is installed.
 * `npm test` stays the whole suite, as CI runs it. A file named here that no longer exists fails
 * the run, so a rename cannot drop it silently.
 * Usage: `tsx tools/unit-tests.ts [extra node --test flags]`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const UNIT_TESTS = [
  "array",
  "bad-input",
  "blosc",
  "blosc-copies",
  "chunk-encode",
  "chunk-iter",
  "cli-plan",
  "copy-bytes",
  "cp-overlap",
  "creation",
  "decode-bombs",
  "dtypes",
  "fixtures",
  "fuzz",
  "gdeflate",
  "group-api",
  "indexing",
  "inflate",
  "lazy-features",
  "lz4-decode",
  "metadata",
  "open-existing",
  "optional-deps",
  "optional-more",
  "placement",
  "planning",
  "read-into",
  "resize-append",
  "set-casting",
  "shard-into-place",
  "sharding",
  "staged-writes",
  "struct",
  "u64",
  "write-scratch",
  "zip-store",
  "zom",
  "zstd-decoder",
].map((name) => `test/${name}.test.ts`);

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const missing = UNIT_TESTS.filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length > 0) {
    console.error(`tools/unit-tests.ts names files that do not exist: ${missing.join(", ")}`);
    process.exit(2);
  }
  const start = Date.now();
  // A file per core at once (node --test's default leaves one core free: half of this machine).
  const concurrency = `--test-concurrency=${availableParallelism()}`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--test", concurrency, "--test-reporter=spec", ...process.argv.slice(2), ...UNIT_TESTS], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, PARZARR_NO_PEERS: "1" },
  });
  console.log(`test:unit: ${UNIT_TESTS.length} files in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  process.exit(r.status ?? 1);
}
