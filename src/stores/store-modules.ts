/**
 * What tells a store the API takes as it is from a user's object that stores/caller.ts wraps:
 * apart from the wrapper, which the read page loads only when a user's object is passed
 * (stores/routes.ts), so that a page reading over HTTP never holds CallerStore's class.
 */
import { InvalidArgumentError } from "../errors.js";
import type { Store } from "./types.js";

/** The module URL of each kind users registered (registerStoreKind), in this thread. */
export const storeModules = new Map<string, string>();

/**
 * The input itself where it is an internal store (a descriptor whose kind no user registered);
 * undefined where it is a user's store to wrap (an object with `get`). Anything else is refused.
 */
export function storeAsIs(input: unknown): Store | undefined {
  const describe = (input as Partial<Store> | null)?.descriptor;
  if (typeof describe === "function" && !storeModules.has(describe.call(input).kind)) return input as Store;
  if (typeof (input as { get?: unknown } | null)?.get !== "function") {
    throw new InvalidArgumentError("a store is a path, a URL, or an object with a get(key) method");
  }
  return undefined;
}
