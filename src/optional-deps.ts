/**
 * Optional peer dependencies: zod (object models), ioredis and bullmq (chunk leases, the copy
 * queue), h5wasm (HDF5 and NetCDF-4 files), @napi-rs/lzma (the lzma codec) and @earthmover/icechunk
 * (Icechunk repositories in a folder or S3, the CLI's icechunk: URLs) are not installed
 * with parzarr, so an app that only reads and writes arrays carries none of them. Each is loaded
 * on first use by the feature that needs it; when it is missing that feature alone fails, with a
 * MissingDependencyError naming the install command rather than Node's module error.
 */
import { MissingDependencyError } from "./errors.js";

/**
 * The typed error for `err` when it is Node's "module not found" for one of `packages` itself (its
 * bare name or a subpath, from import() or require()); undefined for anything else, such as an
 * installed package whose own files or dependencies are missing, which is a broken install.
 */
export function missingDependency(err: unknown, packages: readonly string[], feature: string): MissingDependencyError | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e !== "object" || e === null) return undefined;
  const message = String(e.message);
  // Node names what it could not find first: "Cannot find package 'zod' imported from ...",
  // "Cannot find module 'h5wasm/node'\nRequire stack: ...". A browser page (dist/browser/parzarr.js
  // leaves zod to the page's import map) gets a TypeError without a code, worded per engine.
  const named =
    e.code === "ERR_MODULE_NOT_FOUND" || e.code === "MODULE_NOT_FOUND"
      ? /^Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1]
      : err instanceof TypeError
        ? /^(?:Failed to resolve module specifier "([^"]+)"|The specifier “([^”]+)” was a bare specifier|Module name, '([^']+)' does not resolve)/.exec(message)?.slice(1).find((n) => n !== undefined)
        : undefined;
  const missing = packages.find((p) => named === p || named?.startsWith(`${p}/`));
  if (missing === undefined) return undefined;
  const command = `npm install ${packages.join(" ")}`;
  return new MissingDependencyError(`${feature} needs ${missing}, which is not installed: run \`${command}\``, [...packages], { cause: err });
}

/** `load()` (an `import()` of the package, or of a module that imports it), with a missing package typed. */
export async function loadOptional<T>(packages: readonly string[], feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw missingDependency(err, packages, feature) ?? err;
  }
}
