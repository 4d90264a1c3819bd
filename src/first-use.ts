/**
 * Runs functions of the module `load()` imports, which a feature imports on its first use, so that
 * a page or process that never uses the feature never loads it (a page's main thread that leaves
 * chunks to workers loads no codec implementation): synchronously once the module is loaded (a
 * loaded codec adds no microtask), after the import before that. A failed import is not kept: the
 * next call tries again.
 */
export function onFirstUse<M>(load: () => Promise<M>) {
  let mod: M | undefined;
  let loading: Promise<M> | undefined;
  const loaded = () => (loading ??= load().then((m) => (mod = m)).finally(() => (loading = undefined)));
  return <A extends unknown[], R>(fn: (m: M, ...args: A) => R) =>
    (...args: A): R | Promise<Awaited<R>> => (mod !== undefined ? fn(mod, ...args) : loaded().then((m) => fn(m, ...args) as Awaited<R>));
}
