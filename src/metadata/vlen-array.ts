/**
 * numcodecs' `vlen-array` element type (see VlenArrayDataType): an element's stored bytes, held in
 * memory as they are stored, to and from the typed array of numbers users see.
 */
import { InvalidMetadataError, UnsupportedError } from "../errors.js";
import { componentsPerElement, type Component, type DataType, type Scalar, type TypedArray, type VlenArrayDataType } from "./dtype.js";
import { LITTLE_ENDIAN_HOST, allocTypedArray, swapBytes, typedArrayOver } from "./elements.js";

/** The type of `|O` arrays whose vlen-array filter has `dtype`: numbers held in memory as stored. */
export function vlenArrayType(element: DataType, where: string): VlenArrayDataType {
  // float16 is held as float32 where the runtime has no Float16Array: not its stored bytes.
  if (element.kind !== "numeric" || element.name === "float16") {
    throw new UnsupportedError(`${where}: vlen-array of ${element.name} is not supported (numbers other than float16 only)`);
  }
  return { kind: "vlen_array", name: "vlen_array", element, itemSize: 0, endian: null };
}

/** The component width to byte-swap by between the stored order and memory's; 0 when they agree. */
function swapped(dt: VlenArrayDataType): number {
  const width = dt.element.itemSize / componentsPerElement(dt.element);
  return width > 1 && (dt.element.endian === "big") === LITTLE_ENDIAN_HOST ? width : 0;
}

/** A stored element (bytes in the element type's order, whole values: decoding checks) as the typed array users see. */
export function bytesToNumbers(bytes: Uint8Array, dt: VlenArrayDataType): TypedArray {
  const size = dt.element.itemSize;
  const width = swapped(dt);
  const copy = width ? swapBytes(bytes, width) : bytes.slice();
  return typedArrayOver(dt.element, copy.buffer, 0, (bytes.length / size) * componentsPerElement(dt.element));
}

/** A user's value (a typed array, or a list of numbers; complex as re, im pairs) as the element's stored bytes. */
export function numbersToBytes(v: unknown, dt: VlenArrayDataType): Uint8Array {
  const el = dt.element;
  const c = componentsPerElement(el);
  const list = ArrayBuffer.isView(v) || Array.isArray(v) ? (v as ArrayLike<Scalar>) : null;
  if (!list || list.length % c !== 0) throw new InvalidMetadataError(`a vlen-array element is a typed array or a list of ${el.name} values, got ${String(v)}`);
  const out = allocTypedArray(el, list.length / c);
  const o = out as unknown as { [i: number]: Component };
  const big = typeof out[0] === "bigint" || out instanceof BigInt64Array || out instanceof BigUint64Array;
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (typeof x !== "number" && typeof x !== "bigint" && typeof x !== "boolean") throw new InvalidMetadataError(`a vlen-array of ${el.name} holds numbers, got ${String(x)}`);
    if (big && typeof x === "number" && !Number.isInteger(x)) throw new InvalidMetadataError(`${x} is not an integer for ${el.name}`);
    o[i] = big ? BigInt(x) : Number(x);
  }
  const bytes = new Uint8Array(out.buffer);
  const width = swapped(dt);
  return width ? swapBytes(bytes, width) : bytes;
}
