/** Chunk keys from grid coordinates, per chunk key encoding (v3 `default` and `v2`). */
import type { ChunkKeyEncoding } from "./array-metadata.js";

export function chunkKey(encoding: ChunkKeyEncoding, coords: readonly number[]): string {
  if (encoding.name === "default") {
    return coords.length === 0 ? "c" : `c${encoding.separator}${coords.join(encoding.separator)}`;
  }
  // v2 names a 0-d array's only chunk "0".
  return coords.length === 0 ? "0" : coords.join(encoding.separator);
}

/** The store key of a node's document or chunk: the node path joined with a relative key. */
export function nodeKey(path: string, key: string): string {
  return path === "" ? key : `${path}/${key}`;
}
