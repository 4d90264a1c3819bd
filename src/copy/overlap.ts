/**
 * Refusing copies whose source and destination overlap. A copy into a node that holds its
 * source (or into a node inside its source) reads what it is deleting or writing: `--overwrite`
 * clears the destination first, and with the source inside it, the source's chunks are gone
 * before they are read. Stores are compared by where they put bytes (a folder, an archive, a
 * URL, a memory store), not by object, so two handles on one folder are one store, and a store
 * rooted inside another's folder is seen as the node it is.
 */
import { InvalidArgumentError } from "../errors.js";
import { platform } from "../platform/current.js";
import type { ReferenceSource } from "../stores/reference.js";
import type { Store } from "../stores/types.js";

export interface CopyEnd {
  store: Store;
  /** The node's path in the store ("" for the root). */
  path: string;
  /** How the user named it, for the message (defaults to the location). */
  text?: string;
}

/** A local path's segments where it really lies (the platform follows links); as written elsewhere. */
function localSegments(path: string): string[] {
  return platform().realPathSegments?.(path) ?? path.split(/[\\/]/).filter((s) => s !== "");
}

/**
 * One `/`-separated location for a node: a scheme that says which kind of store, then segments.
 * For a folder the node's own folder, so `a.zarr#b` and the store `a.zarr/b` are the same place.
 */
function locationOf(end: CopyEnd): string[] {
  const d = end.store.descriptor();
  const nodeSegments = end.path.split("/").filter((s) => s !== "");
  switch (d.kind) {
    case "filesystem":
      return ["file", ...localSegments(d.root), ...nodeSegments];
    case "zip":
      // An archive is a file in a folder: a copy into the folder holding it can delete it.
      return ["file", ...localSegments(d.path), "\0zip", ...nodeSegments];
    case "fetch":
      return ["url", ...d.url.replace(/\/+$/, "").split("/").filter((s) => s !== ""), ...nodeSegments];
    case "memory":
    case "caller":
      return [d.kind, d.id, ...nodeSegments];
    case "opfs":
      return ["opfs", ...d.root.split("/").filter((x) => x !== ""), ...nodeSegments];
    case "s3":
      // A bucket on an endpoint, then the key prefix: two stores on one bucket overlap by prefix.
      return ["s3", d.endpoint ?? "", d.bucket, ...d.prefix.split("/").filter((s) => s !== ""), ...nodeSegments];
    case "archive":
      // A NetCDF/HDF5 file in a folder, as a zip archive is.
      return ["file", ...localSegments(d.path), "\0archive", ...nodeSegments];
    case "reference":
      // Read-only, so never a destination; as a source it is a place of its own.
      return ["reference", d.instance, ...nodeSegments];
  }
}

function describe(end: CopyEnd): string {
  const d = end.store.descriptor();
  const where =
    d.kind === "filesystem" ? d.root : d.kind === "zip" ? d.path : d.kind === "fetch" ? d.url : d.kind === "s3" ? `s3://${d.bucket}/${d.prefix}` : d.kind === "opfs" ? `opfs:${d.root}` : d.kind === "reference" ? referenceText(d.source) : d.kind === "archive" ? d.path : `${d.kind} store ${d.id}`;
  return end.path === "" ? where : `${where}#${end.path}`;
}

function referenceText(source: ReferenceSource): string {
  return source.kind === "url" ? source.url : "kerchunk references in memory";
}

function startsWith(whole: string[], head: string[]): boolean {
  return head.length <= whole.length && head.every((s, i) => whole[i] === s);
}

/**
 * Throws INVALID_ARGUMENT when source and destination are the same node or one lies inside the
 * other. Call it before anything is written; it reads nothing from either store.
 */
export function assertNoOverlap(source: CopyEnd, dest: CopyEnd): void {
  const a = locationOf(source);
  const b = locationOf(dest);
  const src = source.text ?? describe(source);
  const dst = dest.text ?? describe(dest);
  if (a.length === b.length && startsWith(a, b)) {
    throw new InvalidArgumentError(`cannot copy ${src} onto itself: source and destination are the same node`);
  }
  if (startsWith(a, b)) {
    throw new InvalidArgumentError(
      `cannot copy ${src} into ${dst}: the source lies inside the destination, which the copy would clear or write over; copy it somewhere else`,
    );
  }
  if (startsWith(b, a)) {
    throw new InvalidArgumentError(
      `cannot copy ${src} into ${dst}: the destination lies inside the source, so the copy would read what it writes; copy it somewhere else`,
    );
  }
}
