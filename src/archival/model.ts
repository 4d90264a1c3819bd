/**
 * What an archival file (NetCDF-3, NetCDF-4/HDF5) holds, in the terms a Zarr v2 hierarchy needs:
 * groups with attributes, and variables with a shape, a chunk grid, a v2 data type, a fill value,
 * cleaned attributes (dimension names in `_ARRAY_DIMENSIONS`) and a reader of boxes. The readers
 * (hdf5-model.ts, netcdf3.ts) build it; archive-store.ts presents it as a Zarr store and refs.ts
 * as a kerchunk reference document, so both say the same about every variable.
 */
import type { ZarrError } from "../errors.js";
import type { JsonObject, JsonValue } from "../metadata/json.js";

/** A variable's values as Zarr v2 stores them. */
export type ArchiveDtype =
  /** Fixed-size numbers, little-endian in memory and in the chunk bytes: "<f4", "<i8", "|u1". */
  | { kind: "numeric"; v2: string; itemSize: number }
  /** Fixed-length byte strings ("|S10"; NetCDF-3 `char` is "|S1"). */
  | { kind: "fixed-bytes"; v2: string; itemSize: number }
  /** Variable-length UTF-8 strings: v2 "|O" with the vlen-utf8 filter, as zarr-python stores str. */
  | { kind: "vlen-string" };

/** Where the values lie in the file, for reference documents (refs.ts). */
export type StorageInfo =
  /** HDF5: the file's byte order and filter pipeline (HDF5 filter ids and their parameters). */
  | { kind: "hdf5"; littleEndian: boolean; filters: { id: number; name: string; cd_values: number[] }[] }
  /** NetCDF-3: big-endian values from `begin`; a record variable's records `recordSize` apart. */
  | { kind: "netcdf3"; begin: number; recordSize: number | undefined };

export interface ArchiveVariable {
  /** Path in the hierarchy without a leading slash ("temp", "forecast/temp"). */
  path: string;
  shape: number[];
  /** The chunk grid: the file's chunks where it has them, else one made up (see contiguousChunks). */
  chunks: number[];
  /** Whether `chunks` are the file's own storage chunks. */
  fileChunks: boolean;
  dtype: ArchiveDtype;
  /** The v2 `fill_value` JSON: the variable's `_FillValue`, or null when it has none. */
  fillValue: JsonValue;
  attributes: JsonObject;
  storage: StorageInfo;
  /**
   * The values in the box [start, stop), C order: little-endian bytes for numbers and fixed
   * strings, JS strings for variable-length strings.
   */
  read(start: number[], stop: number[]): Promise<Uint8Array | string[]>;
}

/** A variable the file holds but Zarr cannot (a compound or enum type): reading its metadata throws `error`. */
export interface UnreadableVariable {
  path: string;
  error: ZarrError;
}

export interface ArchiveGroup {
  /** "" for the root. */
  path: string;
  attributes: JsonObject;
}

export interface ArchiveModel {
  /** The file, for messages. */
  file: string;
  format: "netcdf3" | "hdf5";
  groups: ArchiveGroup[];
  variables: ArchiveVariable[];
  unreadable: UnreadableVariable[];
  close(): void;
}

/** Largest made-up chunk for a variable stored without chunks (contiguous or NetCDF-3). */
export const CONTIGUOUS_CHUNK_BYTES = 16 * 2 ** 20;

/**
 * A chunk grid for a variable the file stores whole: the whole variable when it is small, else
 * runs of whole trailing dimensions, cut along the leading ones so a chunk stays near
 * CONTIGUOUS_CHUNK_BYTES (one chunk is also what the reader reads at once).
 */
export function contiguousChunks(shape: readonly number[], itemSize: number, leading1 = false): number[] {
  const chunks = shape.map((n) => Math.max(1, n));
  if (leading1 && chunks.length > 0) chunks[0] = 1;
  let bytes = chunks.reduce((a, b) => a * b, itemSize);
  for (let d = 0; d < chunks.length && bytes > CONTIGUOUS_CHUNK_BYTES; d++) {
    const rest = bytes / chunks[d];
    chunks[d] = Math.max(1, Math.floor(CONTIGUOUS_CHUNK_BYTES / rest));
    bytes = rest * chunks[d];
  }
  return chunks;
}

/**
 * Attributes the NetCDF libraries keep for themselves, hidden by netCDF4-python and xarray
 * (dimension bookkeeping, HDF5 dimension-scale links, the library's provenance), and
 * `_FillValue`, which becomes the array's fill value.
 */
const INTERNAL_ATTRIBUTES = new Set([
  "_Netcdf4Dimid",
  "_Netcdf4Coordinates",
  "_NCProperties",
  "_nc3_strict",
  "_IsNetcdf4",
  "DIMENSION_LIST",
  "REFERENCE_LIST",
  "DIMENSION_LABELS",
  "CLASS",
  "NAME",
  "_FillValue",
]);

export function isInternalAttribute(name: string): boolean {
  return INTERNAL_ATTRIBUTES.has(name);
}

/**
 * An attribute's value as netCDF4-python hands it to xarray, in JSON: one value as a scalar,
 * several as a list; 64-bit integers as numbers (exact up to 2^53), bytes as text.
 */
export function attributeJson(value: unknown): JsonValue {
  const one = (v: unknown): JsonValue => {
    if (typeof v === "bigint") return Number(v);
    if (typeof v === "number" || typeof v === "string" || typeof v === "boolean" || v === null) return v;
    if (v instanceof Uint8Array) return new TextDecoder().decode(v);
    return String(v);
  };
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const items = Array.from(value as unknown as ArrayLike<number | bigint>, one);
    return items.length === 1 ? items[0] : items;
  }
  if (Array.isArray(value)) {
    const items = value.map(one);
    return items.length === 1 ? items[0] : items;
  }
  return one(value);
}

/** The v2 `fill_value` JSON for a `_FillValue` of a numeric type (NaN and infinities as strings). */
export function fillValueJson(value: unknown, dtype: ArchiveDtype): JsonValue {
  if (value === undefined || value === null) return null;
  const v = attributeJson(value);
  if (dtype.kind !== "numeric") return null;
  if (typeof v !== "number") return null;
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}
