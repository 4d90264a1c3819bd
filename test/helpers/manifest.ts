/** Reading fixture manifests and comparing what parzarr reads with what they record. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import type { NDArray, Scalar, Store, TypedArray, ZarrArray } from "../../src/index.js";
import { hasFloat16Array, openArray } from "../../src/index.js";
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

/** Every element as a JS value: numbers, bigints, booleans, [re, im]. */
export function elements(arr: ZarrArray, result: NDArray | Scalar): Scalar[] {
  if (typeof result !== "object" || Array.isArray(result)) return [result];
  const { data } = result;
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

/** Asserts that the values read equal the manifest's (null entries in the manifest: any value). */
export function assertValues(arr: ZarrArray, result: NDArray | Scalar, entry: ManifestEntry): void {
  const got = elements(arr, result);
  const want = entry.values ?? [];
  assert.equal(got.length, want.length, `${entry.path}: element count`);
  const tol = entry.tolerance ?? 0;
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    const g = got[i];
    if (w === null) continue;
    if (Array.isArray(w)) {
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

const V2_COMPRESSORS = new Set(["blosc", "zlib", "gzip", "zstd", "lz4"]);
const V3_CODECS = new Set(["sharding_indexed", "bytes", "transpose", "blosc", "gzip", "zstd", "crc32c", "numcodecs.zlib", "numcodecs.lz4", "numcodecs.gzip", "numcodecs.zstd", "numcodecs.blosc", "numcodecs.crc32c"]);
const V3_TYPES = new Set(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"]);

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
    if (typeof doc.dtype !== "string" || !/^[<>|]?[biufc]\d+$/.test(doc.dtype)) return JSON.stringify(doc.dtype);
    if (doc.filters && doc.filters.length) return doc.filters[0].id;
    if (doc.compressor && !V2_COMPRESSORS.has(doc.compressor.id)) return doc.compressor.id;
    return null;
  }
  const doc = JSON.parse(readFileSync(join(root, "zarr.json"), "utf8"));
  const dt = typeof doc.data_type === "string" ? doc.data_type : JSON.stringify(doc.data_type);
  if (!V3_TYPES.has(dt)) return dt;
  return unknownCodec(doc.codecs as CodecDoc[]);
}


/** Opens the entry's array in `store` and asserts its shape, sha256 and values. */
export async function assertMatchesManifest(store: Store, entry: ManifestEntry): Promise<ZarrArray> {
  const arr = await openArray(store, { path: entry.path, mode: "r" });
  if (entry.shape) assert.deepEqual(arr.shape, entry.shape, `${entry.path}: shape`);
  const result = await arr.get();
  if (entry.sha256) {
    const data = typeof result === "object" && !Array.isArray(result) ? (result as NDArray).data : undefined;
    if (data) assert.equal(sha256(leBytes(arr, data)), entry.sha256, `${entry.path}: sha256 of the values`);
  }
  if (entry.values) assertValues(arr, result, entry);
  assert.ok(entry.sha256 || entry.values, `${entry.path}: the manifest records something to compare`);
  return arr;
}
