/** Opening what a command names (a Target: a store string and a path in it). */
import { Group, ZarrError, resolveStore, type Store, type ZarrArray } from "../index.js";
import { openNodeAt } from "../hierarchy/walk.js";
import type { Target } from "./args.js";
import { isIcechunkUrl, openIcechunkUrl } from "./icechunk.js";

export { walk, baseName, type TreeEntry } from "../hierarchy/walk.js";

export function storeOf(target: Target, readOnly: boolean): Store {
  return resolveStore(target.store, { readOnly });
}

/** The store a target names, an `icechunk:` URL's session included (read-only here). */
export async function targetStore(target: Target): Promise<Store> {
  return isIcechunkUrl(target.store) ? resolveStore(await openIcechunkUrl(target.store, false)) : storeOf(target, true);
}

export async function openNode(target: Target, store?: Store): Promise<ZarrArray | Group> {
  return openNodeAt(store ?? (await targetStore(target)), target.path, target.text);
}

export async function openArrayTarget(target: Target): Promise<ZarrArray> {
  const node = await openNode(target);
  if (node instanceof Group) {
    throw new ZarrError("NODE_TYPE_MISMATCH", `${target.text} is a group; name an array inside it with ${target.store}#path/to/array`);
  }
  return node;
}
