/** Opening what a command names (a Target: a store string and a path in it). */
import { Group, ZarrError, resolveStore, type Store, type ZarrArray } from "../index.js";
import { openNodeAt } from "../hierarchy/walk.js";
import type { Target } from "./args.js";

export { walk, baseName, type TreeEntry } from "../hierarchy/walk.js";

export function storeOf(target: Target, readOnly: boolean): Store {
  return resolveStore(target.store, { readOnly });
}

export function openNode(target: Target, store: Store = storeOf(target, true)): Promise<ZarrArray | Group> {
  return openNodeAt(store, target.path, target.text);
}

export async function openArrayTarget(target: Target): Promise<ZarrArray> {
  const node = await openNode(target);
  if (node instanceof Group) {
    throw new ZarrError("NODE_TYPE_MISMATCH", `${target.text} is a group; name an array inside it with ${target.store}#path/to/array`);
  }
  return node;
}
