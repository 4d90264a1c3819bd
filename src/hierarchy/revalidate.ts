/**
 * `recheckCachedMetadata`: the conditional read of an array's document before a read or write
 * (ZarrArray.whenReady), and the stored metadata it brings. Loaded through lazy-features.ts with
 * the first handle whose metadata goes stale: a handle opened with the default ("open") never
 * rechecks, so a page that only opens and reads never loads it.
 */
import { NotFoundError } from "../errors.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import { nodeKey } from "../metadata/chunk-key.js";
import { readVersioned, type Store } from "../stores/types.js";
import { describePath, nodeLocation, readNode } from "./node-io.js";
import { checkSameLayout } from "./open-options.js";

/** What a handle is rechecked with: where its array is, the metadata in force, how it came by it. */
export interface Rechecked {
  store: Store;
  path: string;
  meta: ArrayMetadata;
  assumed?: "assumed" | "cached";
}

/**
 * The array's document read again unless unchanged since `version` (undefined: unchanged). When
 * it changed (another writer resized the array, say) the stored metadata, checked as
 * assumeCachedMetadata's when the handle assumed it, and the version read ("" when the store has
 * none). Refuses an array no longer stored.
 */
export async function revalidatedMetadata(a: Rechecked, version: string | undefined): Promise<{ meta: ArrayMetadata; version: string } | undefined> {
  const key = nodeKey(a.path, a.meta.zarrFormat === 3 ? "zarr.json" : ".zarray");
  const read = await readVersioned(a.store, key, { ifChanged: version });
  if (read.kind === "unchanged") return undefined;
  const stored = read.kind === "value" ? await readNode(a.store, a.path, a.meta.zarrFormat) : undefined;
  if (stored?.nodeType !== "array") throw new NotFoundError(`array ${nodeLocation(a.store, a.path)} is no longer stored (found when revalidating its metadata)`);
  const { nodeType: _n, ...meta } = stored;
  if (a.assumed === "cached") checkSameLayout(meta, a.meta, `array ${describePath(a.path)}`);
  // A v2 separator given at open for old metadata without one stays in force.
  if (meta.v2?.dimensionSeparator === null) meta.chunkKeyEncoding = a.meta.chunkKeyEncoding;
  return { meta, version: read.kind === "value" ? read.version : "" };
}
