/**
 * Opening a node by store and path, and walking a hierarchy below a group. The walk opens each
 * child on its own so that one array parzarr cannot read (a data type of a later release) is
 * reported in its place instead of failing the whole listing. Shared by the copy engine and the
 * commands that list or describe hierarchies.
 */
import { NotFoundError, ZarrError } from "../errors.js";
import type { Store } from "../stores/types.js";
import { ZarrArray } from "./array.js";
import { Group } from "./group.js";
import { open } from "./open.js";

/**
 * The array or group at `path`, read-only. `text` names it in a NOT_FOUND message (how the user
 * wrote it). Below the root of a store that cannot list (HTTP), the node is opened through the
 * root's consolidated metadata when there is some, so its children can be listed too.
 */
export async function openNodeAt(store: Store, path: string, text = path === "" ? "/" : path): Promise<ZarrArray | Group> {
  try {
    if (path !== "" && store.descriptor().kind === "fetch") {
      const root = await open(store, { mode: "r" }).catch(() => undefined);
      if (root instanceof Group && root.consolidated) return await root.get(path);
    }
    return await open(store, { path, mode: "r" });
  } catch (err) {
    // A bare "no group at the store root" hides which path the user typed.
    if (err instanceof NotFoundError) throw new NotFoundError(`nothing at ${text}: ${err.message}`);
    throw err;
  }
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
