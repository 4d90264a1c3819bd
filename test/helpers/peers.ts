/**
 * The interoperability peers: zarr-python 2 (Debian's python3-zarr, run with /usr/bin/python3)
 * through the oracle script, and zarrita.js (a devDependency). When PARZARR_REQUIRE_PEERS=1 (as
 * in CI) a missing peer fails the run instead of skipping the tests; PARZARR_NO_PEERS=1 (`npm run
 * test:unit`) skips them all, installed or not, as every helper's `...Skip()` here does.
 */
import { spawnSync } from "node:child_process";

export const PYTHON = process.env.PARZARR_PYTHON ?? "/usr/bin/python3";
export const ORACLE = new URL("../peers/zarr_python_oracle.py", import.meta.url).pathname;
const required = process.env.PARZARR_REQUIRE_PEERS === "1";

/** The reason to skip every peer's tests in the fast loop (tools/unit-tests.ts), or false. */
export function noPeersSkip(): false | string {
  return process.env.PARZARR_NO_PEERS === "1" ? "PARZARR_NO_PEERS=1 (npm run test:unit): peers are left to npm test" : false;
}

let available: boolean | undefined;

/** false when zarr-python can be used; otherwise the reason to skip. Throws when peers are required. */
export function zarrPythonSkip(): false | string {
  if (noPeersSkip()) return noPeersSkip();
  available ??= spawnSync(PYTHON, ["-c", "import zarr, numcodecs"], { encoding: "utf8" }).status === 0;
  if (available) return false;
  const why = `zarr-python is not importable by ${PYTHON} (apt-get install -y python3-zarr)`;
  if (required) throw new Error(`PARZARR_REQUIRE_PEERS=1 but ${why}`);
  return why;
}

export function runOracle(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(PYTHON, [ORACLE, ...args], { encoding: "utf8", maxBuffer: 256 * 2 ** 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function runPython(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(PYTHON, ["-c", script, ...args], { encoding: "utf8", maxBuffer: 256 * 2 ** 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const importable = new Map<string, boolean>();

/**
 * false when `/usr/bin/python3` imports every module (h5py, netCDF4, ...); otherwise the reason to
 * skip. Throws when peers are required (PARZARR_REQUIRE_PEERS=1).
 */
export function pythonModulesSkip(modules: string[], hint: string): false | string {
  if (noPeersSkip()) return noPeersSkip();
  const key = modules.join(",");
  if (!importable.has(key)) importable.set(key, spawnSync(PYTHON, ["-c", `import ${key}`], { encoding: "utf8" }).status === 0);
  if (importable.get(key)) return false;
  const why = `${PYTHON} cannot import ${key} (${hint})`;
  if (required) throw new Error(`PARZARR_REQUIRE_PEERS=1 but ${why}`);
  return why;
}
