/** Reading fixture manifests and comparing what parzarr reads with what they record. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import type { NDArray, Scalar, Store, TypedArray, ZarrArray } from "../../src/index.js";
import { fieldView, hasFloat16Array, openArray } from "../../src/index.js";
import { numberToFloat16Bits } from "../../src/metadata/float16.js";

export interface ManifestEntry {
  path: string;
  shape?: number[];
  dtype?: unknown;
  sha256?: string;
  values?: unknown[];
  note?: string;
  tolerance?: number;
  unsupported_ok?: boolean;
  zarr_python_error?: string;
  fill_value?: unknown;
  expected_from?: string;
}

export { FIXTURES } from "./paths.js";

export function loadManifest(dir: string): ManifestEntry[] {
  return JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as ManifestEntry[];
}

/** The array's values as little-endian bytes in C order, as manifests hash them. */
export function leBytes(arr: ZarrArray, data: TypedArray): Uint8Array {
  if (arr.dtype === "float16" && !hasFloat16Array) {
    const halves = new Uint16Array(data.length);
    for (let i = 0; i < data.length; i++) halves[i] = numberToFloat16Bits(data[i] as number);
    return new Uint8Array(halves.buffer);
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function jsonNumber(v: unknown): number {
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return v as number;
}

function sameNumber(got: number, want: number, tolerance: number): boolean {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (tolerance > 0) return Math.abs(got - want) <= tolerance;
  return got === want;
}

/** Every element as a JS value: numbers, bigints, booleans, [re, im], strings, Uint8Arrays. */
export function elements(arr: ZarrArray, result: NDArray | Scalar): Scalar[] {
  if (typeof result !== "object" || result === null || Array.isArray(result) || result instanceof Uint8Array) return [result];
  if (Array.isArray(result.data)) return [...result.data] as Scalar[];
  const data = result.data as TypedArray;
  const out: Scalar[] = [];
  const complex = arr.dtype.startsWith("complex");
  const n = complex ? data.length / 2 : data.length;
  for (let i = 0; i < n; i++) {
    if (complex) out.push([data[2 * i] as number, data[2 * i + 1] as number]);
    else if (arr.dtype === "bool") out.push(data[i] !== 0);
    else out.push(data[i] as number | bigint);
  }
  return out;
}

function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
}

/**
 * Records: the manifest lists each record's field values; compare field by field through
 * `fieldView` (byte-string fields as base64, as the manifest writes them).
 */
function assertRecords(arr: ZarrArray, result: NDArray | Scalar, entry: ManifestEntry, want: unknown[]): void {
  const dt = arr.dataType;
  assert.ok(dt.kind === "structured" && typeof result === "object" && !(result instanceof Uint8Array) && !Array.isArray(result));
  const records = result as NDArray<Uint8Array[]>;
  assert.equal(records.data.length, want.length, `${entry.path}: record count`);
  for (const [k, field] of dt.fields.entries()) {
    const values = fieldView(records, dt, field.name).data;
    want.forEach((w, i) => {
      const fw = (w as unknown[])[k];
      const g = (values as ArrayLike<unknown>)[i];
      const got = g instanceof Uint8Array ? base64(g) : typeof g === "bigint" ? Number(g) : g;
      if (typeof fw === "number" && typeof got === "number") assert.ok(sameNumber(got, fw, entry.tolerance ?? 0), `${entry.path}[${i}].${field.name}: got ${got}, want ${fw}`);
      else assert.deepEqual(got, fw, `${entry.path}[${i}].${field.name}`);
    });
  }
}

/** Asserts that the values read equal the manifest's (null entries in the manifest: any value). */
export function assertValues(arr: ZarrArray, result: NDArray | Scalar, entry: ManifestEntry, values?: unknown[]): void {
  const want = values ?? entry.values ?? [];
  if (arr.dataType.kind === "structured") return assertRecords(arr, result, entry, want);
  const got = elements(arr, result);
  assert.equal(got.length, want.length, `${entry.path}: element count`);
  const tol = entry.tolerance ?? 0;
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    const g = got[i];
    if (w === null) continue;
    if (typeof g === "string") {
      // zarr-python 2 reads a missing chunk of a string object array as the JSON fill value
      // itself (the number 0 by default); a string array reads it as "".
      assert.equal(g, typeof w === "string" ? w : "", `${entry.path}[${i}]`);
    } else if (g instanceof Uint8Array) {
      assert.equal(base64(g), w, `${entry.path}[${i}]`);
    } else if (Array.isArray(w)) {
      const [re, im] = g as [number, number];
      assert.ok(sameNumber(re, jsonNumber(w[0]), tol) && sameNumber(im, jsonNumber(w[1]), tol), `${entry.path}[${i}]: got [${re}, ${im}], want ${JSON.stringify(w)}`);
    } else if (typeof w === "boolean") {
      assert.equal(g, w, `${entry.path}[${i}]`);
    } else if (typeof g === "bigint") {
      assert.equal(Number(g), w as number, `${entry.path}[${i}]: got ${g}, want ${w}`);
    } else {
      assert.ok(sameNumber(g as number, jsonNumber(w), tol), `${entry.path}[${i}]: got ${String(g)}, want ${String(w)}`);
    }
  }
}

const NUMCODECS_FILTERS = ["delta", "fixedscaleoffset", "quantize", "shuffle", "astype", "packbits", "categorize", "bitround", "vlen-utf8", "vlen-bytes", "vlen-array"];
const NUMCODECS_BYTES = ["bz2", "lzma", "adler32", "fletcher32", "crc32"];
const V2_COMPRESSORS = new Set(["blosc", "zlib", "gzip", "zstd", "lz4", ...NUMCODECS_BYTES]);
const V2_FILTERS = new Set([...NUMCODECS_FILTERS, ...NUMCODECS_BYTES]);
const V2_DTYPE = /^[<>|]?([biufc]\d+|[SUV]\d+|[Mm]8(\[\d*[a-zA-Z]+\])?|O)$/;
const V3_CODECS = new Set([
  "sharding_indexed", "bytes", "transpose", "blosc", "gzip", "zstd", "crc32c", "vlen-utf8", "vlen-bytes", "bitround",
  "packbits", "optional", "zarrs.optional", "zarrs.vlen", "zarrs.vlen_v2", "vlen-array",
  ...["zlib", "lz4", "gzip", "zstd", "blosc", "crc32c", ...NUMCODECS_FILTERS, ...NUMCODECS_BYTES].map((id) => `numcodecs.${id}`),
]);
const V3_TYPES = new Set([
  "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128",
  "bfloat16", "string", "bytes", "variable_length_bytes",
]);
const V3_TYPE_OBJECTS = new Set(["numpy.datetime64", "numpy.timedelta64", "fixed_length_utf32", "null_terminated_bytes", "optional", "zarrs.optional"]);

function v2DtypeSupported(dtype: unknown): boolean {
  if (typeof dtype === "string") return V2_DTYPE.test(dtype);
  return Array.isArray(dtype) && dtype.every((f) => Array.isArray(f) && v2DtypeSupported(f[1]));
}

type CodecDoc = string | { name: string; configuration?: { codecs?: CodecDoc[]; index_codecs?: CodecDoc[] } };

/** The first codec in a chain (looking inside sharding's inner and index chains) not yet supported. */
function unknownCodec(codecs: CodecDoc[]): string | null {
  for (const c of codecs) {
    const name = typeof c === "string" ? c : c.name;
    if (!V3_CODECS.has(name)) return name;
    if (typeof c !== "string" && name === "sharding_indexed") {
      const inner = unknownCodec([...(c.configuration?.codecs ?? []), ...(c.configuration?.index_codecs ?? [])]);
      if (inner) return inner;
    }
  }
  return null;
}

/** Splits `file.zip#inner/path` into the zip file and the array path inside it. */
export function zipEntryPath(entry: ManifestEntry): { zip: string; path: string } | null {
  const at = entry.path.indexOf("#");
  return at === -1 ? null : { zip: entry.path.slice(0, at), path: entry.path.slice(at + 1) };
}

/** The feature a later release brings that this array needs, or null when this release reads it. */
export function laterFeature(dir: string, entry: ManifestEntry): string | null {
  // Arrays inside a zip archive: ZipStore reads them, and their .zarray is checked the same way.
  const zipped = zipEntryPath(entry);
  if (zipped) return null;
  const root = join(dir, entry.path);
  if (existsSync(join(root, ".zarray"))) {
    const doc = JSON.parse(readFileSync(join(root, ".zarray"), "utf8"));
    if (!v2DtypeSupported(doc.dtype)) return JSON.stringify(doc.dtype);
    const filter = (doc.filters ?? []).find((f: { id: string }) => !V2_FILTERS.has(f.id));
    if (filter) return filter.id;
    if (doc.compressor && !V2_COMPRESSORS.has(doc.compressor.id)) return doc.compressor.id;
    return null;
  }
  const doc = JSON.parse(readFileSync(join(root, "zarr.json"), "utf8"));
  const dt = typeof doc.data_type === "string" ? doc.data_type : JSON.stringify(doc.data_type);
  const rawBits = typeof doc.data_type === "string" && /^r\d+$/.test(doc.data_type);
  const objectType = typeof doc.data_type === "object" && V3_TYPE_OBJECTS.has(doc.data_type.name);
  if (!V3_TYPES.has(dt) && !rawBits && !objectType) return dt;
  return unknownCodec(doc.codecs as CodecDoc[]);
}


/** Opens the entry's array in `store` and asserts its shape, sha256 and values. */
export async function assertMatchesManifest(store: Store, entry: ManifestEntry, dir?: string): Promise<ZarrArray> {
  const arr = await openArray(store, { path: entry.path, mode: "r" });
  if (entry.shape) assert.deepEqual(arr.shape, entry.shape, `${entry.path}: shape`);
  const result = await arr.get();
  if (entry.sha256) {
    const data = typeof result === "object" && !Array.isArray(result) && !(result instanceof Uint8Array) ? (result as NDArray).data : undefined;
    if (data && !Array.isArray(data)) assert.equal(sha256(leBytes(arr, data)), entry.sha256, `${entry.path}: sha256 of the values`);
  }
  if (entry.values) assertValues(arr, result, entry);
  if (entry.expected_from) {
    // The rows of a text file next to the manifest (cities.csv), one value per line.
    const rows = readFileSync(join(dir ?? "", entry.expected_from), "utf8").split("\n");
    if (rows[rows.length - 1] === "") rows.pop();
    assertValues(arr, result, entry, rows);
  }
  assert.ok(entry.sha256 || entry.values || entry.expected_from, `${entry.path}: the manifest records something to compare`);
  return arr;
}
