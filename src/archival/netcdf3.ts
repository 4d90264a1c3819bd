/**
 * A reader of NetCDF-3 files: classic (CDF-1), 64-bit offset (CDF-2) and 64-bit data (CDF-5).
 * The format is small: a header (dimensions, attributes, variables with the file offset of their
 * data), then big-endian values, non-record variables each in one contiguous block, record
 * variables interleaved record by record (each record holds every record variable's slab in
 * turn). See the NetCDF classic format specification.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import { openSourceFile } from "./source-file.js";
import { SourceFileError, UnsupportedError } from "../errors.js";
import type { JsonObject, JsonValue } from "../metadata/json.js";
import { attributeJson, contiguousChunks, fillValueJson, isInternalAttribute, type ArchiveDtype, type ArchiveModel, type ArchiveVariable } from "./model.js";

const NC_DIMENSION = 0x0a;
const NC_VARIABLE = 0x0b;
const NC_ATTRIBUTE = 0x0c;
const STREAMING = 0xffffffff;

/** nc_type -> item size, v2 data type (little-endian, as Zarr stores it) and DataView reader. */
const TYPES: Record<number, { size: number; v2: string; get?: (v: DataView, o: number) => number | bigint }> = {
  1: { size: 1, v2: "|i1", get: (v, o) => v.getInt8(o) },
  2: { size: 1, v2: "|S1" },
  3: { size: 2, v2: "<i2", get: (v, o) => v.getInt16(o) },
  4: { size: 4, v2: "<i4", get: (v, o) => v.getInt32(o) },
  5: { size: 4, v2: "<f4", get: (v, o) => v.getFloat32(o) },
  6: { size: 8, v2: "<f8", get: (v, o) => v.getFloat64(o) },
  7: { size: 1, v2: "|u1", get: (v, o) => v.getUint8(o) },
  8: { size: 2, v2: "<u2", get: (v, o) => v.getUint16(o) },
  9: { size: 4, v2: "<u4", get: (v, o) => v.getUint32(o) },
  10: { size: 8, v2: "<i8", get: (v, o) => v.getBigInt64(o) },
  11: { size: 8, v2: "<u8", get: (v, o) => v.getBigUint64(o) },
};

export const NETCDF3_MAGIC = [0x43, 0x44, 0x46]; // "CDF"

interface Var3 {
  name: string;
  dims: number[];
  attributes: JsonObject;
  fill: unknown;
  type: number;
  vsize: number;
  begin: number;
}

/** A cursor over the header bytes; running past them means the file is truncated. */
class Header {
  pos = 4;
  private readonly view: DataView;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly file: string,
    readonly version: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number): void {
    if (this.pos + n > this.bytes.length) throw new SourceFileError(`${this.file}: the NetCDF-3 header is truncated at byte ${this.pos}`);
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): number {
    this.need(8);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new SourceFileError(`${this.file}: a size of ${v} in the NetCDF-3 header is past what this reader handles`);
    return Number(v);
  }
  /** NON_NEG: 64-bit in CDF-5, else 32-bit. */
  count(): number {
    return this.version === 5 ? this.u64() : this.u32();
  }
  offset(): number {
    return this.version === 1 ? this.u32() : this.u64();
  }
  raw(n: number): Uint8Array {
    this.need(n);
    const b = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n + ((4 - (n % 4)) % 4);
    return b;
  }
  name(): string {
    return new TextDecoder().decode(this.raw(this.count()));
  }
  values(type: number, n: number): unknown {
    const t = TYPES[type];
    if (!t) throw new SourceFileError(`${this.file}: unknown NetCDF-3 type ${type} in the header`);
    const b = this.raw(t.size * n);
    if (!t.get) return new TextDecoder().decode(b).replace(/\0+$/, "");
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return Array.from({ length: n }, (_, i) => t.get!(v, i * t.size));
  }
  attributes(): { attributes: JsonObject; fill: unknown } {
    const attributes: JsonObject = {};
    let fill: unknown;
    const tag = this.u32();
    const n = this.count();
    if (tag === 0 && n === 0) return { attributes, fill };
    if (tag !== NC_ATTRIBUTE) throw new SourceFileError(`${this.file}: expected an attribute list at byte ${this.pos - 8}`);
    for (let i = 0; i < n; i++) {
      const name = this.name();
      const type = this.u32();
      const value = this.values(type, this.count());
      if (name === "_FillValue") fill = value;
      if (!isInternalAttribute(name)) attributes[name] = attributeJson(value) as JsonValue;
    }
    return { attributes, fill };
  }
}

/** Converts `n` big-endian items of `size` bytes in place to little-endian. */
function swap(bytes: Uint8Array, size: number): void {
  if (size === 1) return;
  for (let i = 0; i < bytes.length; i += size) bytes.subarray(i, i + size).reverse();
}

/**
 * Reads the box [start, stop) of a C-order block at byte `base`, one call of `run` per contiguous
 * stretch: the trailing dimensions the box covers whole make one stretch with the one before.
 */
function readBlock(
  base: number,
  strides: number[],
  start: number[],
  stop: number[],
  shape: number[],
  size: number,
  run: (at: number, bytes: number) => void,
): void {
  const nd = shape.length;
  if (nd === 0) return run(base, size);
  let j = nd - 1;
  while (j > 0 && start[j] === 0 && stop[j] === shape[j]) j--;
  const runBytes = (stop[j] - start[j]) * strides[j] * size;
  const idx = start.slice(0, j);
  for (;;) {
    let elem = start[j] * strides[j];
    for (let d = 0; d < j; d++) elem += idx[d] * strides[d];
    run(base + elem * size, runBytes);
    let d = j - 1;
    while (d >= 0) {
      if (++idx[d] < stop[d]) break;
      idx[d] = start[d];
      d--;
    }
    if (d < 0) return;
  }
}

/** Opens a NetCDF-3 file as an archive model. */
export function openNetcdf3Model(path: string): ArchiveModel {
  const fd = openSourceFile(path);
  try {
    return readModel(path, fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function readModel(path: string, fd: number): ArchiveModel {
  const size = fstatSync(fd).size;
  // The header is read in growing pieces: it ends where the first variable's data begins.
  let headerBytes = new Uint8Array(Math.min(size, 1 << 16));
  readSync(fd, headerBytes, 0, headerBytes.length, 0);
  let h: Header;
  for (;;) {
    const version = headerBytes[3];
    if (headerBytes.length < 4 || headerBytes[0] !== 0x43 || headerBytes[1] !== 0x44 || headerBytes[2] !== 0x46 || ![1, 2, 5].includes(version)) {
      throw new SourceFileError(`${path}: not a NetCDF-3 file (no CDF\\x01, \\x02 or \\x05 signature)`);
    }
    h = new Header(headerBytes, path, version);
    try {
      return parse(h, path, fd, size);
    } catch (err) {
      if (!(err instanceof SourceFileError && err.message.includes("header is truncated")) || headerBytes.length >= size) throw err;
      headerBytes = new Uint8Array(Math.min(size, headerBytes.length * 4));
      readSync(fd, headerBytes, 0, headerBytes.length, 0);
    }
  }
}

function parse(h: Header, path: string, fd: number, fileSize: number): ArchiveModel {
  let numrecs = h.count();
  const dims: { name: string; length: number }[] = [];
  const dimTag = h.u32();
  const nDims = h.count();
  if (!(dimTag === 0 && nDims === 0)) {
    if (dimTag !== NC_DIMENSION) throw new SourceFileError(`${path}: expected the dimension list in the NetCDF-3 header`);
    for (let i = 0; i < nDims; i++) dims.push({ name: h.name(), length: h.count() });
  }
  const global = h.attributes();
  const vars: Var3[] = [];
  const varTag = h.u32();
  const nVars = h.count();
  if (!(varTag === 0 && nVars === 0)) {
    if (varTag !== NC_VARIABLE) throw new SourceFileError(`${path}: expected the variable list in the NetCDF-3 header`);
    for (let i = 0; i < nVars; i++) {
      const name = h.name();
      const nd = h.count();
      const ids = Array.from({ length: nd }, () => h.count());
      for (const id of ids) if (id >= dims.length) throw new SourceFileError(`${path}: variable ${name} names dimension ${id}, but there are ${dims.length}`);
      const { attributes, fill } = h.attributes();
      const type = h.u32();
      const vsize = h.version === 5 ? h.u64() : h.u32();
      const begin = h.offset();
      vars.push({ name, dims: ids, attributes, fill, type, vsize, begin });
    }
  }
  const isRecord = (v: Var3) => v.dims.length > 0 && dims[v.dims[0]].length === 0;
  const recordVars = vars.filter(isRecord);
  const itemOf = (v: Var3) => TYPES[v.type]?.size ?? 0;
  // One record variable alone is stored without padding between records.
  const recSize = recordVars.length === 1 ? recordVars[0].dims.slice(1).reduce((a, d) => a * dims[d].length, itemOf(recordVars[0])) : recordVars.reduce((a, v) => a + v.vsize, 0);
  if (numrecs === STREAMING && recordVars.length > 0) {
    const first = Math.min(...recordVars.map((v) => v.begin));
    numrecs = recSize === 0 ? 0 : Math.floor((fileSize - first) / recSize);
  }
  const variables: ArchiveVariable[] = vars.map((v) => {
    const where = `${path}: variable ${v.name}`;
    const t = TYPES[v.type];
    if (!t) throw new UnsupportedError(`${where}: unknown NetCDF-3 type ${v.type}`);
    const record = isRecord(v);
    const shape = v.dims.map((d, i) => (i === 0 && record ? numrecs : dims[d].length));
    const inner = shape.slice(1).reduce((a, n) => a * n, t.size);
    const dataBytes = record ? (numrecs === 0 ? 0 : (numrecs - 1) * recSize + inner) : shape.reduce((a, n) => a * n, t.size);
    if (v.begin + dataBytes > fileSize) {
      throw new SourceFileError(`${where}: its data runs to byte ${v.begin + dataBytes} but the file has ${fileSize} (truncated?)`);
    }
    const dtype: ArchiveDtype = v.type === 2 ? { kind: "fixed-bytes", v2: "|S1", itemSize: 1 } : { kind: "numeric", v2: t.v2, itemSize: t.size };
    const attributes: JsonObject = { ...v.attributes, _ARRAY_DIMENSIONS: v.dims.map((d) => dims[d].name) };
    const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, n) => a * n, 1));
    return {
      path: v.name,
      shape,
      // A record variable: one record per chunk, as it lies in the file (and as kerchunk does).
      chunks: contiguousChunks(shape, t.size, record),
      fileChunks: false,
      dtype,
      fillValue: fillValueJson(v.fill, dtype),
      attributes,
      storage: { kind: "netcdf3", begin: v.begin, recordSize: record ? recSize : undefined },
      async read(start, stop) {
        const count = start.reduce((a, s, d) => a * (stop[d] - s), 1);
        const out = new Uint8Array(count * t.size);
        if (count === 0) return out;
        let pos = 0;
        const readRun = (at: number, bytes: number) => {
          const got = readSync(fd, out, pos, bytes, at);
          if (got !== bytes) throw new SourceFileError(`${where}: the file ends inside its data (byte ${at + got})`);
          pos += bytes;
        };
        if (record) {
          // Each record's slab of the variable is a C-order block of its own.
          for (let r = start[0]; r < stop[0]; r++) readBlock(v.begin + r * recSize, strides.slice(1), start.slice(1), stop.slice(1), shape.slice(1), t.size, readRun);
        } else readBlock(v.begin, strides, start, stop, shape, t.size, readRun);
        swap(out, t.size);
        return out;
      },
    };
  });
  return {
    file: path,
    format: "netcdf3",
    groups: [{ path: "", attributes: global.attributes }],
    variables,
    unreadable: [],
    close: () => closeSync(fd),
  };
}
