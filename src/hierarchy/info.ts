/**
 * What zarr-python's `.info` reports for an array or a group, as data (`groupInfo`; an array's,
 * `arrayInfo`, is array-info.ts, loaded with the first `info()`) and as zarr-python's text
 * (`formatInfo`). `parzarr info` builds on `arrayInfo`.
 */
import type { Store } from "../stores/types.js";
import type { NodeType } from "../metadata/array-metadata.js";
import { tuple } from "../format.js";
import type { ChunkShapes } from "../metadata/chunk-grid.js";
// Types only: the handles import this module to answer `info()`, so it must not import them back.
import type { Group } from "./group.js";

/** An array's `info()`: what zarr-python's `.info` reports, as data. */
export interface ArrayInfo {
  /** The node's path in its store ("" for the root). */
  path: string;
  /** Always "array". */
  nodeType: "array";
  /** The Zarr format version. */
  zarrFormat: 2 | 3;
  /** Elements along each dimension. */
  shape: number[];
  /** The chunk a reader decodes (the inner chunk when sharded). */
  chunks: number[];
  /** The stored shard shape, or null when not sharded. */
  shards: number[] | null;
  /** A rectilinear grid's edges (`arr.chunkShapes`; `chunks` or `shards` is then its largest); null when regular. */
  chunkShapes: ChunkShapes | null;
  /** The data type's name (`"float32"`, `"numpy.datetime64"`); an optional's names its inner type (`"optional(int16)"`). */
  dtype: string;
  /** The numpy type string; null for types only Zarr v3 has (bfloat16, float8_*, int4, ...). */
  numpyDtype: string | null;
  /** v2 memory order; null for v3 (a transpose codec says it there). */
  order: "C" | "F" | null;
  /** Whether the handle refuses writes. */
  readOnly: boolean;
  /** The store class: MemoryStore, FileSystemStore, FetchStore, ZipStore, or the custom class's name. */
  storeType: string;
  /** v2: the numcodecs compressor and filters as stored; v3: null (see `codecs`). */
  compressor: unknown;
  /** v2: the numcodecs filters as stored; v3: null. */
  filters: unknown;
  /** The whole codec chain, v3 style (for v2: its order, filters and compressor as codecs). */
  codecs: unknown[];
  /** The fill value as JSON holds it (big integers and non-finite floats as strings). */
  fillValue: unknown;
  /**
   * Logical bytes: elements times the item size (an optional's inner type's, without the mask, as
   * zarrs counts it); null for variable-length strings and bytes, whose
   * size is unknown without reading every element (zarr-python counts 8 bytes per object pointer,
   * which says nothing about the data).
   */
  nbytes: number | null;
  /** Bytes in the store (metadata and chunks), null where the store cannot list (plain HTTP). */
  nbytesStored: number | null;
  /** nbytes / nbytesStored, as zarr-python's storage ratio. */
  compressionRatio: number | null;
  /** Stored chunks (shards when sharded), null where the store cannot list. */
  chunksInitialized: number | null;
  /** Chunks (shards when sharded) in the whole grid. */
  chunksTotal: number;
  /** The user attributes. */
  attributes: unknown;
}

/** A group's `info()`, as zarr-python's `.info` reports it. */
export interface GroupInfo {
  /** The node's path in its store ("" for the root). */
  path: string;
  /** Always "group". */
  nodeType: "group";
  /** The Zarr format version. */
  zarrFormat: 2 | 3;
  /** Whether the handle refuses writes. */
  readOnly: boolean;
  /** The store class, as for arrays. */
  storeType: string;
  /** The direct members, as zarr-python counts them (not recursive). */
  arrays: string[];
  /** The direct member groups (not recursive). */
  groups: string[];
  /** The user attributes. */
  attributes: unknown;
}

export function storeType(store: Store): string {
  return store.constructor?.name ?? "Store";
}

/** Stored counts need a store that can list; over plain HTTP they are unknown, not an error. */
export async function orNull<T>(store: Store, f: () => Promise<T>): Promise<T | null> {
  return store.descriptor().kind === "fetch" ? null : f();
}

/** `members`: the direct members' names and node types, openable or not (as `group.members()` lists them). */
export function groupInfo(group: Group, members: [string, NodeType][]): GroupInfo {
  return {
    path: group.name,
    nodeType: "group",
    zarrFormat: group.zarrFormat,
    readOnly: group.readOnly,
    storeType: storeType(group.store),
    arrays: members.filter(([, kind]) => kind === "array").map(([name]) => name),
    groups: members.filter(([, kind]) => kind === "group").map(([name]) => name),
    attributes: group.attrs,
  };
}

/** zarr-python's human size: `5.9K`, `381.5M` (powers of 1024). */
function humanSize(n: number): string {
  const units = ["", "K", "M", "G", "T", "P"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n}` : `${v.toFixed(1)}${units[i]}`;
}

const bytesText = (n: number) => (n < 1024 ? `${n}` : `${n} (${humanSize(n)})`);

/**
 * The grid's rows: chunk (and shard) shape; on a rectilinear grid the largest, and its edges as
 * the metadata's `chunk_shapes`.
 */
export function gridRows(info: ArrayInfo): [string, string][] {
  const bound = info.chunkShapes ? "at most " : "";
  const rows: [string, string][] = [["Chunk shape", `${info.shards ? "" : bound}${tuple(info.chunks)}`]];
  if (info.shards) rows.push(["Shard shape", `${bound}${tuple(info.shards)}`]);
  if (info.chunkShapes) rows.push(["Chunk grid", `rectilinear ${JSON.stringify(info.chunkShapes)}`]);
  return rows;
}

/** "No. bytes": the logical size, or for variable-length elements how many there are. */
export function logicalBytesText(info: ArrayInfo): string {
  if (info.nbytes !== null) return bytesText(info.nbytes);
  const n = info.shape.reduce((a, b) => a * b, 1);
  return `unknown (${n} elements of variable length)`;
}

/** The info as zarr-python prints it: one `Key : value` line per item, keys padded to one width. */
export function formatInfo(info: ArrayInfo | GroupInfo): string {
  const rows: [string, string][] = [["Name", info.path]];
  if (info.nodeType === "group") {
    rows.push(["Type", `group (Zarr v${info.zarrFormat})`], ["Read-only", info.readOnly ? "True" : "False"], ["Store type", info.storeType]);
    rows.push(["No. members", String(info.arrays.length + info.groups.length)], ["No. arrays", String(info.arrays.length)], ["No. groups", String(info.groups.length)]);
    if (info.arrays.length) rows.push(["Arrays", info.arrays.join(", ")]);
    if (info.groups.length) rows.push(["Groups", info.groups.join(", ")]);
  } else {
    rows.push(["Type", `array (Zarr v${info.zarrFormat})`], ["Data type", info.zarrFormat === 2 && info.numpyDtype !== null ? info.numpyDtype : info.dtype]);
    rows.push(["Shape", tuple(info.shape)], ...gridRows(info));
    if (info.order) rows.push(["Order", info.order]);
    rows.push(["Read-only", info.readOnly ? "True" : "False"]);
    if (info.zarrFormat === 2) {
      rows.push(["Compressor", info.compressor === null ? "None" : JSON.stringify(info.compressor)]);
      if (info.filters) rows.push(["Filters", JSON.stringify(info.filters)]);
    } else {
      rows.push(["Codecs", JSON.stringify(info.codecs)]);
    }
    rows.push(["Fill value", JSON.stringify(info.fillValue)], ["Store type", info.storeType], ["No. bytes", logicalBytesText(info)]);
    if (info.nbytesStored !== null) {
      rows.push(["No. bytes stored", bytesText(info.nbytesStored)]);
      rows.push(["Storage ratio", info.compressionRatio === null ? "-" : info.compressionRatio.toFixed(1)]);
    }
    const init = info.chunksInitialized === null ? "?" : String(info.chunksInitialized);
    rows.push([info.shards ? "Shards initialized" : "Chunks initialized", `${init}/${info.chunksTotal}`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)} : ${v}`).join("\n");
}
