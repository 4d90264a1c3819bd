import { MissingDependencyError, ZarrError } from "./errors.js";

/**
 * Runs functions of the module `load()` imports, which a feature imports on its first use, so that
 * a page or process that never uses the feature never loads it (a page's main thread that leaves
 * chunks to workers loads no codec implementation): synchronously once the module is loaded (a
 * loaded codec adds no microtask), after the import before that. A failed import is not kept: the
 * next call tries again. Its failure is a MissingDependencyError (a chunk of parzarr's own build or
 * a package that did not load: a page offline, a file missing), never taken for bad chunk bytes.
 */
export function onFirstUse<M>(load: () => Promise<M>) {
  let mod: M | undefined;
  let loading: Promise<M> | undefined;
  const loaded = () => (loading ??= load().then((m) => (mod = m), failedLoad).finally(() => (loading = undefined)));
  return <A extends unknown[], R>(fn: (m: M, ...args: A) => R) =>
    (...args: A): R | Promise<Awaited<R>> => (mod !== undefined ? fn(mod, ...args) : loaded().then((m) => fn(m, ...args) as Awaited<R>));
}

function failedLoad(err: unknown): never {
  if (err instanceof ZarrError) throw err;
  const reason = err instanceof Error ? err.message : String(err);
  throw new MissingDependencyError(`a module parzarr loads on first use did not load (the next call tries again): ${reason}`, [], { cause: err });
}
