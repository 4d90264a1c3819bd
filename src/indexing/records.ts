/**
 * Per-field access to structured (record) arrays. `get` returns records as raw bytes (one
 * Uint8Array per record, in the byte order the metadata declares per field); `fieldView` turns
 * one field into an ordinary NDArray of its own type, with a sub-array field's shape appended.
 */
import { BadSelectionError } from "../errors.js";
import { componentsPerElement, type ElementArray, type FixedDataType, type StructuredDataType } from "../metadata/dtype.js";
import { typedArrayOver } from "../metadata/elements.js";
import { storedConversion } from "../metadata/stored-form.js";
import type { NDArray } from "./ndarray.js";
import { contiguousStrides, product } from "./strided.js";
import { toUserData } from "./values.js";

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** `count` elements of a fixed-size type from their stored bytes into memory. */
function decodeElements(bytes: Uint8Array, dt: FixedDataType, count: number): ElementArray {
  const comps = componentsPerElement(dt);
  const compSize = dt.itemSize / comps;
  const raw = bytes.slice();
  if (compSize > 1 && dt.endian !== null && (dt.endian === "little") !== LITTLE_ENDIAN_HOST) {
    for (let i = 0; i < raw.length; i += compSize) raw.subarray(i, i + compSize).reverse();
  }
  const conversion = storedConversion(dt);
  if (conversion) return conversion.decode(raw, count * comps);
  return typedArrayOver(dt, raw.buffer, 0, count * comps);
}

/**
 * One field of records as an NDArray of the field's type (strings for `U` fields, Uint8Arrays for
 * `S` fields, typed arrays for numbers). `records` is what `get` returned for a record array.
 */
export function fieldView(records: NDArray<Uint8Array[]> | NDArray<Uint8Array>, dtype: StructuredDataType, name: string): NDArray {
  const field = dtype.fields.find((f) => f.name === name);
  if (!field) {
    throw new BadSelectionError(`no field "${name}" in the record type (fields: ${dtype.fields.map((f) => f.name).join(", ")})`);
  }
  const n = product(records.shape);
  const per = product(field.shape);
  const size = field.dtype.itemSize * per;
  const bytes = new Uint8Array(n * size);
  const src = records.data;
  for (let i = 0; i < n; i++) {
    const record = Array.isArray(src) ? src[i] : (src as Uint8Array).subarray(i * dtype.itemSize, (i + 1) * dtype.itemSize);
    bytes.set(record.subarray(field.offset, field.offset + size), i * size);
  }
  const memory = decodeElements(bytes, field.dtype, n * per);
  const shape = [...records.shape, ...field.shape];
  return { data: toUserData(field.dtype, memory, n * per), shape, stride: contiguousStrides(shape) };
}
