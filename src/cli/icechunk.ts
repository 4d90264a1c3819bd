/**
 * The CLI's names for Icechunk repositories: `icechunk:PATH?branch=main`, `?tag=v1` or
 * `?snapshot=ID`, PATH a folder or an s3:// URL (configured from the environment, as for any
 * s3:// store). The repository lives in that store through icechunkStorage (storage.ts).
 */
import { NotFoundError } from "../errors.js";
import { UsageError } from "./args.js";
import { markKeepsAlive } from "./keeps-alive.js";
import { resolveStore } from "../stores/open.js";
import { openIcechunk, type IcechunkRef, type IcechunkStore } from "../icechunk/session.js";
import { icechunkStorage, loadIcechunk } from "../icechunk/storage.js";

export const isIcechunkUrl = (text: string): boolean => /^icechunk:/i.test(text);


/** PATH and the version an `icechunk:` URL names (branch "main" when it names none). */
function parseIcechunkUrl(text: string): { location: string; ref: IcechunkRef } {
  const rest = text.replace(/^icechunk:/i, "");
  const q = rest.lastIndexOf("?");
  const location = q === -1 ? rest : rest.slice(0, q);
  if (location === "") throw new UsageError(`${text} names no repository: icechunk:PATH?branch=main, PATH a folder or s3:// URL`);
  const ref: IcechunkRef = {};
  for (const [k, v] of new URLSearchParams(q === -1 ? "" : rest.slice(q + 1))) {
    if (k !== "branch" && k !== "tag" && k !== "snapshot") throw new UsageError(`${text}: unknown parameter "${k}" (branch, tag or snapshot)`);
    if (v === "" || ref[k] !== undefined) throw new UsageError(`${text}: give ${k} once, with a value`);
    ref[k] = v;
  }
  return { location, ref };
}

/**
 * Opens the repository an `icechunk:` URL names, and a session in it: read-only, or writable on
 * its branch (a repository that does not exist yet is created for writing).
 */
export async function openIcechunkUrl(text: string, writable: boolean): Promise<IcechunkStore> {
  const { location, ref } = parseIcechunkUrl(text);
  const { Repository } = await loadIcechunk();
  markKeepsAlive();
  const storage = await icechunkStorage(resolveStore(location, { readOnly: !writable }));
  let repo;
  if (writable) repo = await Repository.openOrCreate(storage);
  else if (await Repository.exists(storage)) repo = await Repository.open(storage);
  else throw new NotFoundError(`no Icechunk repository at ${location}`);
  return openIcechunk(repo, { ...ref, writable });
}
