/**
 * TensorStore's open-time options on metadata (its zarr3 driver's `assume_metadata`,
 * `assume_cached_metadata` and the spec's metadata constraints): metadata taken from the caller
 * instead of the store, and constraints checked against what the store holds.
 */
import { InvalidArgumentError, MetadataMismatchError } from "../errors.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import { gridsAgree } from "../metadata/grid-edits.js";
import { parseDataType } from "../metadata/dtype-names.js";
import type { JsonValue } from "../metadata/json.js";
import { checkOptionNames } from "../parallel/execution/options.js";
import { buildArrayMetadata, type CreateArrayOptions } from "./create-options.js";

/** What an array opened from the store must have: a mismatch is a MetadataMismatchError. */
export interface ExpectOptions {
  /** The shape, exactly. */
  shape?: readonly number[];
  /** A v3 name or numpy type string; compared by the v3 name (`"<f4"` and `"float32"` agree). */
  dtype?: string | JsonValue;
  /** The chunks `arr.chunks` reports: the inner chunks of a sharded array. */
  chunks?: readonly number[];
}

/** Checked by the compiler: an option added to CreateArrayOptions and not here is an error. */
const CREATE_ARRAY_KEYS: Record<keyof CreateArrayOptions, true> = {
  shape: true,
  chunks: true,
  shards: true,
  shardIndexLocation: true,
  dtype: true,
  fillValue: true,
  zarrFormat: true,
  codecs: true,
  compressor: true,
  filters: true,
  order: true,
  dimensionSeparator: true,
  chunkKeyEncoding: true,
  dimensionNames: true,
  attributes: true,
  overwrite: true,
};
const CREATE_ARRAY_OPTION_NAMES: readonly string[] = Object.keys(CREATE_ARRAY_KEYS);

const EXPECT_KEYS: Record<keyof ExpectOptions, true> = { shape: true, dtype: true, chunks: true };
const EXPECT_NAMES = Object.keys(EXPECT_KEYS);

/** Metadata for a handle that does not read the store's document: built as createArray would. */
export async function assumedArrayMetadata(options: unknown, name: "assumeMetadata" | "assumeCachedMetadata"): Promise<ArrayMetadata> {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError(`${name} must be createArray's options ({ shape, dtype, ... })`);
  }
  checkOptionNames(options, CREATE_ARRAY_OPTION_NAMES, name);
  if ((options as CreateArrayOptions).overwrite !== undefined) throw new InvalidArgumentError(`${name}: "overwrite" writes metadata; it has no meaning here`);
  return buildArrayMetadata(options as CreateArrayOptions);
}

/** The chunk shape a reader sees: the inner chunks of a sharded array (as `arr.chunks`). */
function readChunks(meta: ArrayMetadata): readonly number[] {
  const inner = meta.codecs.find((c) => c.name === "sharding_indexed")?.configuration?.chunk_shape;
  return Array.isArray(inner) ? (inner as number[]) : meta.chunks;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function mismatch(where: string, field: string, want: unknown, got: unknown): MetadataMismatchError {
  return new MetadataMismatchError(`${where}: ${field} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`, field);
}

/** Checks `expect` against an array's metadata (from the store, or assumed). */
export function checkExpected(meta: ArrayMetadata, expect: unknown, where: string): void {
  if (expect === undefined) return;
  checkOptionNames(expect, EXPECT_NAMES, "expect");
  const e = expect as ExpectOptions;
  if (e.shape !== undefined && !same([...e.shape], meta.shape)) throw mismatch(where, "shape", e.shape, meta.shape);
  if (e.dtype !== undefined) {
    let want: string;
    try {
      want = parseDataType(e.dtype).name;
    } catch {
      throw new InvalidArgumentError(`expect: dtype ${JSON.stringify(e.dtype)} is not a data type`);
    }
    if (want !== meta.dtype.name) throw mismatch(where, "dtype", want, meta.dtype.name);
  }
  if (e.chunks !== undefined && !same([...e.chunks], readChunks(meta))) throw mismatch(where, "chunks", e.chunks, readChunks(meta));
}

/**
 * Refuses stored metadata that disagrees with what a handle assumed, in everything a chunk's
 * key, bytes or values depend on. Shape and attributes may differ: rewriting them is the point.
 */
export function checkSameLayout(stored: ArrayMetadata, assumed: ArrayMetadata, where: string): void {
  const fields = [
    ["zarrFormat", stored.zarrFormat, assumed.zarrFormat],
    ["dtype", stored.dtype, assumed.dtype],
    // A rectilinear grid's largest edge changes with the shape: its edges are compared below.
    ["chunks", stored.rectilinear ? "rectilinear" : stored.chunks, assumed.rectilinear ? "rectilinear" : assumed.chunks],
    ["fillValue", stored.fillValue, assumed.fillValue],
    ["codecs", stored.codecs, assumed.codecs],
    ["chunkKeyEncoding", stored.chunkKeyEncoding, assumed.chunkKeyEncoding],
  ] as const;
  for (const [field, got, want] of fields) {
    if (!same(got, want)) throw mismatch(`${where}: the stored metadata differs from the assumed`, field, want, got);
  }
  if (!gridsAgree(stored, assumed, stored.shape.map((n, d) => Math.min(n, assumed.shape[d] ?? 0)))) {
    throw mismatch(`${where}: the stored metadata differs from the assumed`, "chunks", assumed.rectilinear, stored.rectilinear);
  }
}
