/**
 * NetCDF-4 and HDF5 files through h5wasm (HDF5's C library compiled to WASM), loaded only when
 * such a file is opened, so `import "parzarr"` never pays for it. HDF5 does the decompression
 * (deflate, shuffle, fletcher32) and the hyperslab reads; this module maps groups, datasets,
 * dimension scales and attributes onto the archive model as netCDF4-python and xarray see them.
 */
import { resolve } from "node:path";
import { SourceFileError, UnsupportedError, ZarrError } from "../errors.js";
import type { JsonObject } from "../metadata/json.js";
import {
  attributeJson,
  contiguousChunks,
  fillValueJson,
  isInternalAttribute,
  type ArchiveDtype,
  type ArchiveGroup,
  type ArchiveModel,
  type ArchiveVariable,
  type UnreadableVariable,
} from "./model.js";
import { loadOptional } from "../optional-deps.js";

type H5 = typeof import("h5wasm/node");
type H5Group = InstanceType<H5["Group"]>;
type H5Dataset = InstanceType<H5["Dataset"]>;
type H5Metadata = H5Dataset["metadata"];

let loading: Promise<H5> | undefined;

/** h5wasm (an optional peer dependency), loaded once per thread on first use. */
async function loadH5wasm(): Promise<H5> {
  loading ??= (async () => {
    const mod = (await loadOptional(["h5wasm"], "reading HDF5 and NetCDF-4 files", () => import("h5wasm/node"))) as H5 & { default?: H5 };
    const h5 = (mod.default ?? mod) as H5;
    const module = (await h5.ready) as unknown as { activate_throwing_error_handler?: () => number };
    // HDF5 errors as exceptions carrying HDF5's error stack, instead of printed on stderr.
    module.activate_throwing_error_handler?.();
    return h5;
  })();
  return loading;
}

/** netCDF-C marks a dimension without a coordinate variable with this NAME on its scale dataset. */
const DIMENSION_ONLY = "This is a netCDF dimension but not a netCDF variable";

// HDF5 type classes as h5wasm reports them (H5T_class_t).
const H5T_INTEGER = 0;
const H5T_FLOAT = 1;
const H5T_STRING = 3;

function dtypeOf(m: H5Metadata, where: string): ArchiveDtype {
  if (m.type === H5T_INTEGER && [1, 2, 4, 8].includes(m.size)) {
    return { kind: "numeric", v2: `${m.size === 1 ? "|" : "<"}${m.signed ? "i" : "u"}${m.size}`, itemSize: m.size };
  }
  if (m.type === H5T_FLOAT && (m.size === 4 || m.size === 8)) return { kind: "numeric", v2: `<f${m.size}`, itemSize: m.size };
  if (m.type === H5T_STRING) return m.vlen ? { kind: "vlen-string" } : { kind: "fixed-bytes", v2: `|S${m.size}`, itemSize: m.size };
  throw new UnsupportedError(`${where}: HDF5 type class ${m.type} of ${m.size} bytes has no Zarr equivalent here (integers, floats of 4 and 8 bytes and strings are converted)`);
}

/** The innermost reason from an HDF5 error stack ("truncated file: eof = 3000, ..."). */
function h5Reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const reasons = [...text.matchAll(/line \d+ in [\w:]+\(\): (.*)$/gm)].map((m) => m[1].trim());
  return reasons.length > 0 ? reasons[reasons.length - 1] : text.trim().split("\n")[0];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Internal attributes whose values matter here; the others (reference lists) are not even read. */
const READ_INTERNAL = new Set(["_FillValue", "NAME", "CLASS"]);

function attributesOf(
  node: H5Group | H5Dataset,
  where: string,
): { attributes: JsonObject; fill: unknown; name: unknown; dimClass: unknown; hasDimensionList: boolean } {
  const attributes: JsonObject = {};
  let fill: unknown;
  let name: unknown;
  let dimClass: unknown;
  // `attrs` is a getter that asks HDF5 for every attribute's metadata: once per node.
  const attrs = node.attrs;
  const hasDimensionList = "DIMENSION_LIST" in attrs;
  for (const [key, attr] of Object.entries(attrs)) {
    if (isInternalAttribute(key) && !READ_INTERNAL.has(key)) continue;
    let value: unknown;
    try {
      value = attr.value;
    } catch (err) {
      throw new UnsupportedError(`${where}: attribute ${key} cannot be read (${h5Reason(err)})`);
    }
    if (key === "_FillValue") fill = value;
    if (key === "NAME") name = value;
    if (key === "CLASS") dimClass = value;
    if (isInternalAttribute(key)) continue;
    attributes[key] = attributeJson(value);
  }
  return { attributes, fill, name, dimClass, hasDimensionList };
}

/** One value of a 0-d dataset (h5wasm hands it out as a number) as a typed array of its type. */
function scalarArray(value: number | bigint, v2: string): ArrayBufferView {
  const kind = v2[1];
  const size = Number(v2.slice(2));
  const big = size === 8 && kind !== "f";
  const ctors: Record<string, unknown> = {
    f4: Float32Array,
    f8: Float64Array,
    i1: Int8Array,
    i2: Int16Array,
    i4: Int32Array,
    i8: BigInt64Array,
    u1: Uint8Array,
    u2: Uint16Array,
    u4: Uint32Array,
    u8: BigUint64Array,
  };
  return new (ctors[`${kind}${size}`] as new (xs: (number | bigint)[]) => ArrayBufferView)([big ? BigInt(value) : Number(value)]);
}

/** Encodes fixed-length strings as |S bytes: each padded with NULs, longer ones cut. */
function fixedBytes(values: string[], itemSize: number): Uint8Array {
  const out = new Uint8Array(values.length * itemSize);
  const enc = new TextEncoder();
  values.forEach((s, i) => out.set(enc.encode(s).subarray(0, itemSize), i * itemSize));
  return out;
}

/**
 * Names for dimensions without a dimension scale, as netCDF-C (and so xarray) gives them:
 * `phony_dim_N` with N counted over the whole file (a group's subgroups first, then its datasets
 * in name order), one name per length per group, except that a dataset with two dimensions of one
 * length gets two names.
 */
class PhonyDims {
  private readonly byLength = new Map<number, string[]>();
  constructor(private readonly counter: { next: number }) {}

  namesFor(shape: readonly number[], named: (string | null)[]): string[] {
    const used = new Set<string>();
    return shape.map((n, d) => {
      if (named[d] !== null) return named[d]!;
      const list = this.byLength.get(n) ?? [];
      this.byLength.set(n, list);
      let name = list.find((x) => !used.has(x));
      if (name === undefined) {
        name = `phony_dim_${this.counter.next++}`;
        list.push(name);
      }
      used.add(name);
      return name;
    });
  }
}

function dimensionNames(ds: H5Dataset, shape: number[], own: string, isScale: boolean, hasScales: boolean, phony: PhonyDims): string[] {
  const named = shape.map((_, d): string | null => {
    let scales: string[] = [];
    try {
      if (hasScales) scales = ds.get_attached_scales(d);
    } catch {
      scales = [];
    }
    if (scales.length > 0) return baseName(scales[0]);
    return isScale && shape.length === 1 ? own : null;
  });
  return phony.namesFor(shape, named);
}

function variableOf(ds: H5Dataset, path: string, file: string, phony: PhonyDims): ArchiveVariable | UnreadableVariable | null {
  const where = `${file}: variable ${path}`;
  const meta = ds.metadata;
  const { attributes, fill, name, dimClass, hasDimensionList } = attributesOf(ds, where);
  if (typeof name === "string" && name.startsWith(DIMENSION_ONLY)) return null;
  let dtype: ArchiveDtype;
  try {
    dtype = dtypeOf(meta, where);
  } catch (err) {
    if (err instanceof ZarrError) return { path, error: err };
    throw err;
  }
  const shape = [...(meta.shape ?? [])];
  attributes._ARRAY_DIMENSIONS = dimensionNames(ds, shape, baseName(path), dimClass === "DIMENSION_SCALE", hasDimensionList, phony);
  const itemSize = dtype.kind === "vlen-string" ? 16 : dtype.itemSize;
  const fileChunks = Array.isArray(meta.chunks) && meta.chunks.length === shape.length;
  const chunks = fileChunks ? [...(meta.chunks as number[])] : contiguousChunks(shape, itemSize);
  return {
    path,
    shape,
    chunks,
    fileChunks,
    dtype,
    fillValue: fillValueJson(fill, dtype),
    attributes,
    storage: { kind: "hdf5", littleEndian: meta.littleEndian !== false, filters: ds.filters.map((f) => ({ id: f.id, name: f.name, cd_values: [...f.cd_values] })) },
    async read(start, stop) {
      let data: unknown;
      try {
        data = shape.length === 0 ? ds.value : ds.slice(start.map((a, d) => [a, stop[d]]));
      } catch (err) {
        throw new SourceFileError(`${where}: HDF5 could not read [${start}, ${stop}): ${h5Reason(err)}`, { cause: err });
      }
      if (dtype.kind === "numeric") {
        const arr = (ArrayBuffer.isView(data) ? data : typeof data === "number" || typeof data === "bigint" ? scalarArray(data, dtype.v2) : null) as ArrayBufferView | null;
        if (!arr) throw new SourceFileError(`${where}: HDF5 returned no values for [${start}, ${stop})`);
        return new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
      }
      const strings = (Array.isArray(data) ? data : [data]).map((s) => (typeof s === "string" ? s : s instanceof Uint8Array ? new TextDecoder().decode(s) : String(s ?? "")));
      return dtype.kind === "vlen-string" ? strings : fixedBytes(strings, dtype.itemSize);
    },
  };
}

/** The HDF5 signature, at offset 0 (or 512, 1024, ... when a user block precedes it). */
export const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];

/** Opens a NetCDF-4 or HDF5 file as an archive model. */
export async function openHdf5Model(path: string): Promise<ArchiveModel> {
  const h5 = await loadH5wasm();
  let f: InstanceType<H5["File"]>;
  try {
    f = new h5.File(resolve(path), "r");
  } catch (err) {
    throw new SourceFileError(`${path}: HDF5 cannot open it: ${h5Reason(err)}`, { cause: err });
  }
  if (f.file_id === undefined || f.file_id < 0n) throw new SourceFileError(`${path}: HDF5 cannot open it (truncated or corrupt?)`);
  const groups: ArchiveGroup[] = [];
  const variables: ArchiveVariable[] = [];
  const unreadable: UnreadableVariable[] = [];
  try {
    const counter = { next: 0 };
    const visit = (g: H5Group, rel: string) => {
      groups.push({ path: rel, attributes: attributesOf(g, `${path}: group /${rel}`).attributes });
      const children = g.keys().sort().map((key) => ({ child: g.get(key), childPath: rel === "" ? key : `${rel}/${key}` }));
      // Subgroups before this group's datasets: the order netCDF-C numbers phony dimensions in.
      for (const { child, childPath } of children) if (child instanceof h5.Group) visit(child, childPath);
      const phony = new PhonyDims(counter);
      for (const { child, childPath } of children) {
        if (!(child instanceof h5.Dataset)) continue;
        const v = variableOf(child, childPath, path, phony);
        if (v && "error" in v) unreadable.push(v);
        else if (v) variables.push(v);
      }
    };
    visit(f, "");
  } catch (err) {
    f.close();
    if (err instanceof ZarrError) throw err;
    throw new SourceFileError(`${path}: reading its structure failed (truncated or corrupt?): ${h5Reason(err)}`, { cause: err });
  }
  return { file: path, format: "hdf5", groups, variables, unreadable, close: () => void f.close() };
}
