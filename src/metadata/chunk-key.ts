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

/**
 * The grid coordinates a chunk key (relative to its array) names, or null when the key is not a
 * chunk key of that encoding and rank (a metadata document, a stray file).
 */
export function parseChunkKey(encoding: ChunkKeyEncoding, key: string, ndim: number): number[] | null {
  let body = key;
  if (encoding.name === "default") {
    if (ndim === 0) return key === "c" ? [] : null;
    const head = `c${encoding.separator}`;
    if (!key.startsWith(head)) return null;
    body = key.slice(head.length);
  } else if (ndim === 0) {
    return key === "0" ? [] : null;
  }
  const parts = body.split(encoding.separator);
  if (parts.length !== ndim || parts.some((p) => !/^\d+$/.test(p))) return null;
  return parts.map(Number);
}
