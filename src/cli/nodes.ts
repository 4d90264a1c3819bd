/**
 * Opening what a command names and walking a hierarchy. The walk opens each child on its own so
 * that one array parzarr cannot read (a data type of a later release) is reported in its place
 * instead of failing the whole listing.
 */
import { Group, NotFoundError, ZarrArray, ZarrError, open, resolveStore, type Store } from "../index.js";
import type { Target } from "./args.js";

export function storeOf(target: Target, readOnly: boolean): Store {
  return resolveStore(target.store, { readOnly });
}

export async function openNode(target: Target, store: Store = storeOf(target, true)): Promise<ZarrArray | Group> {
  try {
    if (target.path !== "" && store.descriptor().kind === "fetch") {
      // A server cannot list: a node below the root is opened through the root's consolidated
      // metadata when there is some, so that its children can be listed too.
      const root = await open(store, { mode: "r" }).catch(() => undefined);
      if (root instanceof Group && root.consolidated) return await root.get(target.path);
    }
    return await open(store, { path: target.path, mode: "r" });
  } catch (err) {
    // A bare "no group at the store root" hides which path the user typed.
    if (err instanceof NotFoundError) throw new NotFoundError(`nothing at ${target.text}: ${err.message}`);
    throw err;
  }
}

export async function openArrayTarget(target: Target): Promise<ZarrArray> {
  const node = await openNode(target);
  if (node instanceof Group) {
    throw new ZarrError("NODE_TYPE_MISMATCH", `${target.text} is a group; name an array inside it with ${target.store}#path/to/array`);
  }
  return node;
}

export type TreeEntry =
  | { kind: "array"; path: string; node: ZarrArray }
  | { kind: "group"; path: string; node: Group }
  | { kind: "error"; path: string; error: ZarrError };

/** The children of a group, depth first, sorted by name. Unreadable nodes come back as errors. */
export async function* walk(group: Group): AsyncGenerator<TreeEntry & { depth: number; last: boolean[] }> {
  yield* walkFrom(group, 0, []);
}

async function* walkFrom(
  group: Group,
  depth: number,
  last: boolean[],
): AsyncGenerator<TreeEntry & { depth: number; last: boolean[] }> {
  const prefix = group.path === "" ? "" : `${group.path}/`;
  // Through the group, so consolidated metadata lists the children where the store cannot (HTTP).
  const children: TreeEntry[] = [];
  for (const name of await group.memberNames()) {
    const path = `${prefix}${name}`;
    try {
      const node = await group.get(name);
      children.push(node instanceof ZarrArray ? { kind: "array", path, node } : { kind: "group", path, node });
    } catch (err) {
      if (err instanceof NotFoundError) continue; // a folder that is not a node (a stray directory)
      if (err instanceof ZarrError) children.push({ kind: "error", path, error: err });
      else throw err;
    }
  }
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    const chain = [...last, i === children.length - 1];
    yield { ...child, depth: depth + 1, last: chain };
    if (child.kind === "group") yield* walkFrom(child.node, depth + 1, chain);
  }
}

export function baseName(path: string): string {
  return path === "" ? "/" : path.slice(path.lastIndexOf("/") + 1);
}
