/**
 * The data types a page reading plain numeric arrays never meets, loaded with the first metadata
 * document that names one (metadata-json.ts; Node and workers import it at start): their names and
 * numpy type strings parsed and written back, their fill values' JSON forms, their scalars, and
 * the narrow floats' code tables (narrow-float.ts, minifloat.ts), and numcodecs' vlen-array
 * element type (vlen-array.ts), and a v2 array's filters: the element type of a `|O` array and
 * the codecs the filters become (v2-filters.ts), and rectilinear chunk grids (rectilinear.ts).
 * dtype-names.ts,
 * fill-value.ts, scalars.ts, stored-form.ts, array-metadata.ts and indexing/values.ts hand these
 * kinds here (rareTypes()); loading this module installs it there.
 */
import { InternalFault, InvalidMetadataError, UnsupportedError } from "../errors.js";
import { isJsonObject } from "./json.js";
import type { Serialisable } from "./json-write.js";
import { componentCodec, roundToComponent, type NarrowFloatComponent } from "./narrow-float.js";
import { isMiniFloatName } from "./minifloat.js";
import {
  DATETIME_UNITS, NAT, componentsPerElement, isObjectType, unwrapPresent, wrapPresent, type Component, type DataType, type DateTimeDataType,
  type DateTimeUnit, type Endian, type FixedBytesDataType, type FixedDataType, type NarrowFloatDataType, type OptionalDataType,
  type RawBitsDataType, type Scalar, type StructuredDataType, type StructuredField, type Utf32DataType, type ElementArray, type TypedArray,
} from "./dtype.js";
import { NUMPY_TYPESTR, byteOrder, installRareTypes, parseDataType, toNumpyTypestr, v3DataTypeJson } from "./dtype-names.js";
import { invalidFill, jsonBytesValue, parseFillValue, parseFloatJson, parseInteger } from "./fill-value.js";
import { bigintJson, floatJson, fillValueToJson } from "./fill-value-json.js";
import { allocTypedArray, typedArrayOver } from "./elements.js";
import { codePointsToString, padBytes, scalarToComponents, storedToScalar, stripNuls } from "./scalars.js";
import { bytesToBase64 } from "./base64.js";
import { bytesToNumbers, numbersToBytes, vlenArrayType } from "./vlen-array.js";
import { v2FilterCodecs, v2ObjectType } from "./v2-filters.js";
import { parseRectilinear } from "./rectilinear.js";

function dateTimeType(kind: "M" | "m", unit: string, scale: number, endian: Endian, where: string): DateTimeDataType {
  const u = unit === "μs" ? "us" : unit;
  if (!(DATETIME_UNITS as readonly string[]).includes(u)) {
    throw new InvalidMetadataError(`${where}: unknown datetime unit ${JSON.stringify(unit)}`);
  }
  if (!Number.isSafeInteger(scale) || scale < 1 || scale > 2 ** 31 - 1) {
    throw new InvalidMetadataError(`${where}: datetime scale factor must be an integer from 1 to 2^31-1, got ${scale}`);
  }
  return {
    kind: "datetime",
    name: kind === "M" ? "numpy.datetime64" : "numpy.timedelta64",
    unit: u as DateTimeUnit,
    scaleFactor: scale,
    itemSize: 8,
    endian,
  };
}

function utf32Type(length: number, endian: Endian, where: string): Utf32DataType {
  if (!Number.isSafeInteger(length) || length < 1) throw new InvalidMetadataError(`${where}: a UTF-32 string type needs a length >= 1`);
  return { kind: "utf32", name: "fixed_length_utf32", length, itemSize: 4 * length, endian };
}

function fixedBytesType(size: number, where: string): FixedBytesDataType {
  if (!Number.isSafeInteger(size) || size < 1) throw new InvalidMetadataError(`${where}: a byte string type needs a size >= 1`);
  return { kind: "fixed_bytes", name: "null_terminated_bytes", itemSize: size, endian: null };
}

function rawBitsType(bytes: number, where: string): RawBitsDataType {
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidMetadataError(`${where}: raw bits need a size of 8 bits or more`);
  return { kind: "raw_bits", name: `r${bytes * 8}`, itemSize: bytes, endian: null };
}

/** A numpy type string: `<i4`, `|S7`, `<U5`, `<M8[10ms]`, `|O`, `|V8`. */
function parseNumpyTypestr(input: string, where: string): DataType | null {
  const m = NUMPY_TYPESTR.exec(input);
  if (!m) return null;
  const [, order, kind, sizeStr, scaleStr, unit] = m;
  const endian: Endian = order === ">" ? "big" : "little";
  const size = sizeStr === "" ? NaN : Number(sizeStr);
  // The numeric ones and `|O` are dtype-names.ts' (commonDataType).
  switch (kind) {
    case "M":
    case "m":
      if (sizeStr !== "8") break;
      return dateTimeType(kind, unit ?? "generic", scaleStr ? Number(scaleStr) : 1, endian, where);
    case "S":
    case "a":
      return fixedBytesType(size, where);
    case "U":
      return utf32Type(size, endian, where);
    case "V":
      return rawBitsType(size, where);
  }
  return null;
}

function parseStructured(input: unknown[], where: string): StructuredDataType {
  const fields: StructuredField[] = [];
  let offset = 0;
  input.forEach((f, i) => {
    if (!Array.isArray(f) || f.length < 2 || f.length > 3 || typeof f[0] !== "string") {
      throw new InvalidMetadataError(`${where}: structured field ${i} must be [name, type] or [name, type, shape], got ${JSON.stringify(f)}`);
    }
    const dt = parseDataType(f[1], `${where}: field "${f[0]}"`);
    if (dt.kind === "optional" || dt.kind === "string" || dt.kind === "bytes" || dt.kind === "vlen_array" || dt.kind === "json") {
      throw new UnsupportedError(`${where}: field "${f[0]}" has an object or optional type, which records cannot hold`);
    }
    const shape = f.length === 3 ? f[2] : [];
    if (!Array.isArray(shape) || shape.some((n) => typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)) {
      throw new InvalidMetadataError(`${where}: field "${f[0]}" has an invalid shape ${JSON.stringify(shape)}`);
    }
    const count = (shape as number[]).reduce((a, b) => a * b, 1);
    fields.push({ name: f[0], dtype: dt, shape: shape as number[], offset });
    offset += dt.itemSize * count;
  });
  if (offset === 0) throw new InvalidMetadataError(`${where}: a structured type needs at least one non-empty field`);
  return { kind: "structured", name: "structured", fields, itemSize: offset, endian: null };
}

function configurationOf(input: Record<string, unknown>, where: string): Record<string, unknown> {
  const conf = input.configuration ?? {};
  if (!isJsonObject(conf)) throw new InvalidMetadataError(`${where}: data type configuration must be an object`);
  return conf;
}

function lengthBytes(conf: Record<string, unknown>, where: string, multiple: number): number {
  const n = conf.length_bytes;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n % multiple !== 0) {
    throw new InvalidMetadataError(`${where}: "length_bytes" must be a positive multiple of ${multiple}, got ${JSON.stringify(n)}`);
  }
  return n;
}

/** A v3 data type in object form: `{ name, configuration }`. */
function parseV3Object(input: Record<string, unknown>, where: string): DataType {
  const name = input.name;
  if (typeof name !== "string") throw new InvalidMetadataError(`${where}: a data type object needs a string "name"`);
  const conf = configurationOf(input, where);
  switch (name) {
    case "numpy.datetime64":
    case "datetime64":
    case "numpy.timedelta64":
    case "timedelta64": {
      if (typeof conf.unit !== "string") throw new InvalidMetadataError(`${where}: ${name} needs a "unit"`);
      const scale = conf.scale_factor ?? 1;
      if (typeof scale !== "number") throw new InvalidMetadataError(`${where}: "scale_factor" must be an integer`);
      return dateTimeType(name.includes("datetime") ? "M" : "m", conf.unit, scale, "little", where);
    }
    case "struct":
    case "structured":
      return parseStruct(conf, where);
    case "fixed_length_utf32":
      return utf32Type(lengthBytes(conf, where, 4) / 4, "little", where);
    case "null_terminated_bytes":
    case "fixed_length_bytes":
      return fixedBytesType(lengthBytes(conf, where, 1), where);
    case "optional":
    case "zarrs.optional":
      return optionalType(conf, where);
  }
  if (Object.keys(conf).length === 0) return parseDataType(name, where);
  throw new UnsupportedError(`${where}: data type ${JSON.stringify(input)} is not supported`);
}

/** Any data type that commonDataType (dtype-names.ts) does not parse, or the error it is. */
function parseRareDataType(input: unknown, where: string): DataType {
  if (Array.isArray(input)) return parseStructured(input, where);
  if (isJsonObject(input)) return parseV3Object(input, where);
  if (typeof input !== "string") {
    throw new InvalidMetadataError(`${where}: expected a data type name, got ${JSON.stringify(input)}`);
  }
  const narrow = narrowFloatType(input);
  if (narrow) return narrow;
  const raw = /^r(\d+)$/.exec(input);
  if (raw) {
    const bits = Number(raw[1]);
    if (bits % 8 !== 0 || bits === 0) throw new InvalidMetadataError(`${where}: raw bits "${input}" must be a positive multiple of 8 bits`);
    return rawBitsType(bits / 8, where);
  }
  const dt = /^(datetime64|timedelta64)(?:\[(\d*)([a-zA-Zμ]+)\])?$/.exec(input);
  if (dt) return dateTimeType(dt[1] === "datetime64" ? "M" : "m", dt[3] ?? "generic", dt[2] ? Number(dt[2]) : 1, "little", where);
  const numpy = parseNumpyTypestr(input, where);
  if (numpy) return numpy;
  if (/^(numpy\.|fixed_length|null_terminated)/.test(input)) {
    throw new InvalidMetadataError(`${where}: data type "${input}" needs its configuration ({ name, configuration })`);
  }
  throw new InvalidMetadataError(`${where}: unknown data type ${JSON.stringify(input)}`);
}

/** zarrs' `optional`: `{ name, configuration }` of the inner type: fixed-size, string, bytes or optional itself. */
function optionalType(conf: Record<string, unknown>, where: string): OptionalDataType {
  if (typeof conf.name !== "string" || !isJsonObject(conf.configuration) || Object.keys(conf).length !== 2) {
    throw new InvalidMetadataError(`${where}: optional needs exactly { "name", "configuration" } of its inner type`);
  }
  const inner = parseDataType({ name: conf.name, configuration: conf.configuration }, `${where} (optional)`);
  // vlen-array and JSON elements are v2 object arrays, which have no optional form.
  if (inner.kind === "vlen_array" || inner.kind === "json") throw new UnsupportedError(`${where}: optional ${inner.name} is not supported`);
  const perComponent = isObjectType(inner) ? 0 : inner.itemSize / componentsPerElement(inner);
  return { kind: "optional", name: "optional", inner, itemSize: inner.itemSize + perComponent, endian: null };
}

/** `bfloat16`, `float8_e4m3`, ... and `complex_` of any of them or of float16; null for other names. */
function narrowFloatType(name: string): NarrowFloatDataType | null {
  const complex = name.startsWith("complex_");
  const component = complex ? name.slice("complex_".length) : name;
  const known = component === "bfloat16" || isMiniFloatName(component) || (complex && component === "float16");
  if (!known) return null;
  const c = component as NarrowFloatComponent;
  const bytes = componentCodec(c).bytes;
  const components = complex ? 2 : 1;
  return { kind: "narrow_float", name, component: c, components, itemSize: bytes * components, endian: bytes > 1 ? "little" : null };
}

/** toNumpyTypestr of the fixed-size rare types. */
function rareNumpyTypestr(dt: DateTimeDataType | FixedBytesDataType | RawBitsDataType | Utf32DataType): string {
  switch (dt.kind) {
    case "datetime": {
      const letter = dt.name === "numpy.datetime64" ? "M8" : "m8";
      const unit = dt.unit === "generic" ? "" : `[${dt.scaleFactor === 1 ? "" : dt.scaleFactor}${dt.unit}]`;
      return byteOrder(dt) + letter + unit;
    }
    case "fixed_bytes":
      return `|S${dt.itemSize}`;
    case "raw_bits":
      return `|V${dt.itemSize}`;
    case "utf32":
      return `${byteOrder(dt)}U${dt.length}`;
  }
}

/** A record type's v2 `dtype`: its field list. */
function structuredV2Json(dt: StructuredDataType): Serialisable {
  return dt.fields.map((f) => {
    const t = f.dtype.kind === "structured" ? structuredV2Json(f.dtype) : toNumpyTypestr(f.dtype);
    return f.shape.length > 0 ? [f.name, t, f.shape] : [f.name, t];
  });
}

/** v3DataTypeJson of the rare types that are objects in v3. */
function rareV3Json(dt: DateTimeDataType | Utf32DataType | FixedBytesDataType | StructuredDataType | OptionalDataType): Serialisable {
  switch (dt.kind) {
    case "datetime":
      return { name: dt.name, configuration: { unit: dt.unit, scale_factor: dt.scaleFactor } };
    case "utf32":
      return { name: "fixed_length_utf32", configuration: { length_bytes: dt.itemSize } };
    case "fixed_bytes":
      return { name: "null_terminated_bytes", configuration: { length_bytes: dt.itemSize } };
    case "structured":
      return structJson(dt);
    case "optional": {
      const inner = v3DataTypeJson(dt.inner);
      return { name: "optional", configuration: typeof inner === "string" ? { name: inner, configuration: {} } : inner };
    }
  }
}

// The v3 `struct` data type (zarr-extensions data-types/struct): named fields of fixed-size v3
// types packed without padding, in declaration order. Records are their raw bytes in memory, so
// a v3 struct's fields are little-endian (the `bytes` codec must say "little" for multi-byte
// fields); numpy sub-array fields have no v3 form.

function parseStruct(conf: Record<string, unknown>, where: string): StructuredDataType {
  const fields = conf.fields;
  if (!Array.isArray(fields) || fields.length === 0) throw new InvalidMetadataError(`${where}: struct needs a non-empty "fields" list`);
  const names = new Set<string>();
  // Objects `{ name, data_type }`, or the legacy "structured" tuples `[name, data_type]`.
  const tuples = fields.map((f, i) => {
    const [name, type] = Array.isArray(f) ? f : isJsonObject(f) ? [f.name, f.data_type] : [undefined, undefined];
    if (typeof name !== "string" || name === "" || type === undefined) {
      throw new InvalidMetadataError(`${where}: struct field ${i} must be { "name", "data_type" }, got ${JSON.stringify(f)}`);
    }
    if (names.has(name)) throw new InvalidMetadataError(`${where}: struct field name "${name}" is repeated`);
    names.add(name);
    const dt = parseDataType(type, `${where}: field "${name}"`);
    if (isObjectType(dt) || dt.kind === "optional") throw new InvalidMetadataError(`${where}: field "${name}" has a variable-length or optional type`);
    return [name, dt] as const;
  });
  let offset = 0;
  const out: StructuredField[] = tuples.map(([name, dt]) => {
    const field = { name, dtype: dt as FixedDataType, shape: [], offset };
    offset += dt.itemSize;
    return field;
  });
  return { kind: "structured", name: "structured", fields: out, itemSize: offset, endian: null };
}

/** Whether a record type can be a v3 struct: no sub-arrays, no big-endian fields. */
function structProblem(dt: StructuredDataType): string | null {
  for (const f of dt.fields) {
    if (f.shape.length > 0) return `field "${f.name}" is a sub-array of shape [${f.shape}]`;
    if (f.dtype.kind === "structured") {
      const inner = structProblem(f.dtype);
      if (inner) return `field "${f.name}": ${inner}`;
    } else if (f.dtype.endian === "big" && f.dtype.itemSize > 1) return `field "${f.name}" is big-endian`;
  }
  return null;
}

function structJson(dt: StructuredDataType): Serialisable {
  const problem = structProblem(dt);
  if (problem) throw new UnsupportedError(`this record type has no Zarr v3 struct form: ${problem}`);
  return { name: "struct", configuration: { fields: dt.fields.map((f) => ({ name: f.name, data_type: v3DataTypeJson(f.dtype) })) } };
}

// ---------------------------------------------------------------------------------------------
// Fill values of the rare types (fill-value.ts hands them here).

/**
 * One component of a narrow float's fill value: a number, a constant the format can hold, or
 * the hex of its stored code ("0x7c": one byte for the 8-bit-or-smaller floats, two otherwise).
 */
function parseNarrowComponent(v: unknown, dt: NarrowFloatDataType, where: string): number {
  const codec = componentCodec(dt.component);
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) {
    const code = Number.parseInt(v.slice(2), 16);
    if (v.length - 2 !== 2 * codec.bytes || code >= 2 ** codec.bits) {
      throw new InvalidMetadataError(`${where}: hex fill value ${v} is not a ${codec.bits}-bit code of ${dt.name}`);
    }
    return codec.table[code];
  }
  const x = parseFloatJson(v, dt, where, 64);
  const special = codec.format?.special ?? "ieee";
  // The specifications refuse the constants a format cannot represent.
  if (Number.isNaN(x) && special === "finite") throw new InvalidMetadataError(`${where}: ${dt.name} has no NaN`);
  if (Math.abs(x) === Infinity && special !== "ieee") throw new InvalidMetadataError(`${where}: ${dt.name} has no infinity`);
  return x;
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** parseFillValue of a rare type. */
function parseRareFill(v: unknown, dt: DataType, where: string): Scalar {
  switch (dt.kind) {
    case "narrow_float": {
      const one = (x: unknown) => parseNarrowComponent(typeof x === "bigint" ? Number(x) : x, dt, where);
      if (dt.components === 1) return one(v);
      if (Array.isArray(v) && v.length === 2) return [one(v[0]), one(v[1])];
      if (typeof v === "number") return [v, 0];
      break;
    }
    case "datetime": {
      if (v === "NaT") return NAT;
      const n = parseInteger(v);
      if (n === undefined || n < NAT || n >= 2n ** 63n) break;
      return n;
    }
    case "fixed_bytes":
    case "raw_bits":
    case "structured": {
      if (dt.kind === "structured" && isJsonObject(v) && !ArrayBuffer.isView(v)) return structFillFromJson(v, dt, where);
      const b = jsonBytesValue(v === 0 && dt.kind !== "fixed_bytes" ? [] : v, where, dt);
      if (b.length > dt.itemSize || (dt.kind !== "fixed_bytes" && b.length !== 0 && b.length !== dt.itemSize)) {
        throw new InvalidMetadataError(`${where}: fill value has ${b.length} bytes, ${dt.name} holds ${dt.itemSize}`);
      }
      return dt.kind === "fixed_bytes" ? stripNuls(b) : padBytes(b, dt.itemSize);
    }
    case "utf32": {
      // zarr-python 2 keeps a non-string fill value as numpy turns it into text (0 -> "0").
      const s = typeof v === "string" ? v : String(v);
      if (codePointLength(s) > dt.length) throw new InvalidMetadataError(`${where}: fill value ${JSON.stringify(s)} is longer than ${dt.length} characters`);
      return s;
    }
    case "optional": {
      // zarrs' JSON: null when missing, else [inner fill value] at every level ([[42]], [null]).
      if (!Array.isArray(v) || v.length !== 1 || (v[0] === null && dt.inner.kind !== "optional")) break;
      return wrapPresent(parseFillValue(v[0], dt.inner, where), dt);
    }
  }
  throw invalidFill(v, dt, where);
}

/** fillValueToJson of a rare type (never null). */
function rareFillToJson(v: Scalar, dt: DataType, zarrFormat: 2 | 3): Serialisable {
  switch (dt.kind) {
    case "narrow_float":
      if (dt.components === 2) return (v as [number, number]).map((x) => floatJson(x, zarrFormat === 3));
      return floatJson(v as number, false);
    case "datetime":
      return bigintJson(v as bigint);
    case "structured":
      // v3 (the zarr-extensions `struct` type): an object of field values; v2: base64 bytes.
      return zarrFormat === 3 ? structFillToJson(v as Uint8Array, dt) : bytesToBase64(v as Uint8Array);
    case "fixed_bytes":
      return bytesToBase64(v as Uint8Array);
    case "raw_bits":
      // v3 spells raw bits as a list of byte values; v2 (`|V`) as base64.
      return zarrFormat === 3 ? Array.from(v as Uint8Array) : bytesToBase64(v as Uint8Array);
    case "utf32":
      return v as string;
    case "optional":
      return [fillValueToJson(unwrapPresent(v, dt)!, dt.inner, zarrFormat)];
  }
  throw new InternalFault(`fill-value.ts handles ${dt.name}`);
}

// The v3 `struct` type's fill value: an object of field values (see dtype-names.ts).

/** A field's value inside a record's bytes, through an aligned copy of its bytes. */
function fieldScalar(record: Uint8Array, f: StructuredField): Scalar {
  const copy = new Uint8Array(f.dtype.itemSize);
  copy.set(record.subarray(f.offset, f.offset + f.dtype.itemSize));
  return storedToScalar(typedArrayOver(f.dtype, copy.buffer, 0, componentsPerElement(f.dtype)), 0, f.dtype);
}

function structFillToJson(record: Uint8Array, dt: StructuredDataType): Serialisable {
  const out: { [key: string]: Serialisable } = {};
  for (const f of dt.fields) out[f.name] = fillValueToJson(fieldScalar(record, f), f.dtype, 3);
  return out;
}

function structFillFromJson(v: Record<string, unknown>, dt: StructuredDataType, where: string): Uint8Array {
  const record = new Uint8Array(dt.itemSize);
  for (const f of dt.fields) {
    if (!(f.name in v)) throw new InvalidMetadataError(`${where}: the struct fill value has no field "${f.name}"`);
    if (f.shape.length > 0) throw new InvalidMetadataError(`${where}: field "${f.name}" is a sub-array; give the fill value as base64 bytes`);
    const scalar = parseFillValue(v[f.name], f.dtype, `${where}.${f.name}`);
    const one = allocTypedArray(f.dtype, 1);
    const comps = scalarToComponents(scalar, f.dtype);
    comps.forEach((c, k) => ((one as unknown as Component[])[k] = c));
    record.set(new Uint8Array(one.buffer, one.byteOffset, f.dtype.itemSize), f.offset);
  }
  return record;
}

// ---------------------------------------------------------------------------------------------
// Scalars of the rare types (scalars.ts hands them here).

/** scalarToComponents of a rare type. */
function rareComponents(v: Scalar, dt: DataType): Component[] {
  switch (dt.kind) {
    case "optional": {
      // Over a variable-length type memory holds the value itself, checked against the inner type.
      const values = isObjectType(dt);
      // A missing element is all zeros, its mask included (as zarrs leaves it).
      const missing = values ? [null as unknown as Component] : Array.from(allocTypedArray(dt, 1) as ArrayLike<Component>);
      if (v === null) return missing;
      const inner = unwrapPresent(v, dt);
      if (inner === undefined) throw new InvalidMetadataError(`a present value of a nested optional is written [value] (null, [null], [5]), got ${String(v)}`);
      const comps = scalarToComponents(inner, dt.inner);
      if (values) return [v as Component];
      comps.push(typeof missing[0] === "bigint" ? 1n : 1);
      return comps;
    }
    case "fixed_bytes":
    case "raw_bits":
    case "structured": {
      if (!(v instanceof Uint8Array)) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in ${dt.name} (use Uint8Array)`);
      if (v.length > dt.itemSize) throw new InvalidMetadataError(`a value of ${v.length} bytes does not fit ${dt.name} of ${dt.itemSize} bytes`);
      return Array.from(padBytes(v, dt.itemSize));
    }
    case "utf32": {
      if (typeof v !== "string") throw new InvalidMetadataError(`a ${typeof v} cannot be stored in a ${dt.name} array`);
      const out = new Array<number>(dt.length).fill(0);
      let i = 0;
      for (const ch of v) {
        if (i === dt.length) throw new InvalidMetadataError(`${JSON.stringify(v)} is longer than ${dt.length} characters`);
        out[i++] = ch.codePointAt(0)!;
      }
      return out;
    }
    case "datetime":
      if (typeof v === "bigint") return [v];
      if (typeof v === "number" && Number.isInteger(v)) return [BigInt(v)];
      throw new InvalidMetadataError(`a datetime is stored as an integer count (bigint), got ${String(v)}`);
    case "narrow_float": {
      // Memory holds the values the type can represent: round once, here.
      if (typeof v === "string" || v instanceof Uint8Array) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in ${dt.name}`);
      const parts = Array.isArray(v) ? (v as [number, number]) : [Number(v), 0];
      if (dt.components === 1 && Array.isArray(v)) throw new InvalidMetadataError(`a complex value cannot be stored in ${dt.name}`);
      return parts.slice(0, dt.components).map((x) => roundToComponent(dt.component, x));
    }
  }
  throw new InternalFault(`scalars.ts handles ${dt.name}`);
}

/** storedToScalar of a rare type. */
function rareStoredScalar(data: ElementArray, i: number, dt: DataType): Scalar {
  switch (dt.kind) {
    case "optional": {
      if (isObjectType(dt)) return (data as Scalar[])[i];
      const c = componentsPerElement(dt);
      const t = data as TypedArray;
      if (!t[i * c + c - 1]) return null;
      const v = storedToScalar(t.subarray(i * c, i * c + c - 1), 0, dt.inner);
      return wrapPresent(v, dt);
    }
    case "fixed_bytes":
      return stripNuls((data as Uint8Array).slice(i * dt.itemSize, (i + 1) * dt.itemSize));
    case "raw_bits":
    case "structured":
      return (data as Uint8Array).slice(i * dt.itemSize, (i + 1) * dt.itemSize);
    case "utf32":
      return codePointsToString(data as Uint32Array, i * dt.length, dt.length);
    case "narrow_float": {
      const t = data as Float32Array;
      return dt.components === 2 ? [t[2 * i], t[2 * i + 1]] : t[i];
    }
    case "datetime":
      return (data as BigInt64Array)[i];
  }
  throw new InternalFault(`scalars.ts handles ${dt.name}`);
}

/** What dtype-names.ts, fill-value.ts, scalars.ts, stored-form.ts, array-metadata.ts, indexing/ndarray.ts and indexing/values.ts call through rareTypes(). */
export const RARE_TYPES = {
  parseRareDataType, rareNumpyTypestr, structuredV2Json, rareV3Json, parseRareFill, rareFillToJson, rareComponents, rareStoredScalar, componentCodec, roundToComponent,
  vlenArrayType, bytesToNumbers, numbersToBytes, v2ObjectType, v2FilterCodecs, parseRectilinear,
};
installRareTypes(RARE_TYPES);
