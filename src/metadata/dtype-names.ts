/** Data type names: parsing v3 names/objects and numpy type strings into the model, and back. */
import { UnsupportedError, InvalidMetadataError } from "../errors.js";
import { type Serialisable, isJsonObject } from "./json.js";
import { componentCodec, type NarrowFloatComponent } from "./narrow-float.js";
import { isMiniFloatName } from "./minifloat.js";
import {
  DATETIME_UNITS, NUMERIC_TYPES, componentsPerElement, isObjectType, type DataType, type DateTimeDataType, type DateTimeUnit, type Endian,
  type FixedBytesDataType, type FixedDataType, type JsonDataType, type NarrowFloatDataType, type NumericDataType, type NumericTypeName,
  type OptionalDataType, type RawBitsDataType, type StructuredDataType, type StructuredField, type Utf32DataType,
  type VlenBytesDataType, type VlenStringDataType,
} from "./dtype.js";

const NUMPY_TO_NAME = new Map<string, NumericTypeName>(
  Object.entries(NUMERIC_TYPES).flatMap(([name, info]) => (info.numpy === null ? [] : [[info.numpy, name as NumericTypeName] as const])),
);

function numericType(name: NumericTypeName, endian: Endian | null): NumericDataType {
  const size = NUMERIC_TYPES[name].size;
  return { kind: "numeric", name, itemSize: size, endian: size === 1 ? null : endian };
}

const STRING_TYPE: VlenStringDataType = { kind: "string", name: "string", itemSize: 0, endian: null };
const BYTES_TYPE: VlenBytesDataType = { kind: "bytes", name: "variable_length_bytes", itemSize: 0, endian: null };
const JSON_TYPE: JsonDataType = { kind: "json", name: "json", itemSize: 0, endian: null };

export function vlenStringType(): VlenStringDataType {
  return STRING_TYPE;
}
export function vlenBytesType(): VlenBytesDataType {
  return BYTES_TYPE;
}
/** The element type of a v2 `|O` array whose object codec is `json2`. */
export function jsonType(): JsonDataType {
  return JSON_TYPE;
}

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
  const m = /^([<>|=]?)([a-zA-Z])(\d*)(?:\[(\d*)([a-zA-Zμ]+)\])?$/.exec(input);
  if (!m) return null;
  const [, order, kind, sizeStr, scaleStr, unit] = m;
  const endian: Endian = order === ">" ? "big" : "little";
  const size = sizeStr === "" ? NaN : Number(sizeStr);
  const name = NUMPY_TO_NAME.get(`${kind}${sizeStr}`);
  if (name && unit === undefined) return numericType(name, endian);
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
    case "O":
      // The object type: its element kind comes from the v2 filters (see array-metadata.ts).
      return STRING_TYPE;
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

/**
 * Parses a dtype option or metadata value: a v3 name (`"int32"`, `"string"`, `"r16"`), a v3
 * object (`{ name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 10 } }`), a
 * numpy type string (`"<i4"`, `"|S7"`, `"<U5"`, `"<M8[10ms]"`, `"|O"`) or a numpy structured
 * description (`[["a", "<i4"], ["b", "<f8", [2]]]`).
 */
export function parseDataType(input: unknown, where = "dtype"): DataType {
  if (Array.isArray(input)) return parseStructured(input, where);
  if (isJsonObject(input)) return parseV3Object(input, where);
  if (typeof input !== "string") {
    throw new InvalidMetadataError(`${where}: expected a data type name, got ${JSON.stringify(input)}`);
  }
  if (input in NUMERIC_TYPES) return numericType(input as NumericTypeName, "little");
  const narrow = narrowFloatType(input);
  if (narrow) return narrow;
  switch (input) {
    case "string":
    case "str":
      return STRING_TYPE;
    case "bytes":
    case "variable_length_bytes":
      return BYTES_TYPE;
  }
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

function byteOrder(dt: { endian: Endian | null }): string {
  return dt.endian === null ? "|" : dt.endian === "big" ? ">" : "<";
}

/** The type as info and tree print it: its name, and for an optional its inner type's (`optional(int16)`). */
export function dataTypeLabel(dt: DataType): string {
  return dt.kind === "optional" ? `optional(${dataTypeLabel(dt.inner)})` : dt.name;
}

/** Whether numpy (and so Zarr v2) has this type: not bfloat16, float8_*, int4 and the other v3-only ones. */
export function hasNumpyForm(dt: DataType): boolean {
  return dt.kind === "narrow_float" || dt.kind === "optional" ? false : dt.kind === "numeric" ? NUMERIC_TYPES[dt.name].numpy !== null : true;
}

/** The numpy type string of a type (`<f8`, `|S7`, `<U5`, `<M8[10ms]`, `|O`); records have none. */
export function toNumpyTypestr(dt: DataType): string {
  switch (dt.kind) {
    case "numeric": {
      const numpy = NUMERIC_TYPES[dt.name].numpy;
      if (numpy === null) throw new UnsupportedError(`${dt.name} has no numpy type string: it exists only in Zarr v3`);
      return byteOrder(dt) + numpy;
    }
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
    case "string":
    case "bytes":
    case "json":
    case "vlen_array":
      return "|O";
    case "narrow_float":
    case "optional":
      throw new UnsupportedError(`${dt.name} has no numpy type string: it exists only in Zarr v3`);
    case "structured":
      throw new UnsupportedError("a structured type has no single numpy type string; use v2DtypeJson");
  }
}

/** The `dtype` of a v2 `.zarray`: a type string, or a field list for records. */
export function v2DtypeJson(dt: DataType): Serialisable {
  if (dt.kind !== "structured") return toNumpyTypestr(dt);
  return dt.fields.map((f) => {
    const t = f.dtype.kind === "structured" ? v2DtypeJson(f.dtype) : toNumpyTypestr(f.dtype);
    return f.shape.length > 0 ? [f.name, t, f.shape] : [f.name, t];
  });
}

/** The `data_type` of a v3 `zarr.json`. */
export function v3DataTypeJson(dt: DataType): Serialisable {
  switch (dt.kind) {
    case "datetime":
      return { name: dt.name, configuration: { unit: dt.unit, scale_factor: dt.scaleFactor } };
    case "utf32":
      return { name: "fixed_length_utf32", configuration: { length_bytes: dt.itemSize } };
    case "fixed_bytes":
      return { name: "null_terminated_bytes", configuration: { length_bytes: dt.itemSize } };
    case "structured":
      return structJson(dt);
    case "json":
      throw new UnsupportedError("an object array of JSON values (numcodecs json2) exists only in Zarr v2");
    case "optional": {
      const inner = v3DataTypeJson(dt.inner);
      return { name: "optional", configuration: typeof inner === "string" ? { name: inner, configuration: {} } : inner };
    }
    default:
      return dt.name;
  }
}

// ---------------------------------------------------------------------------------------------
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
