/** Typed arrays over SharedArrayBuffers: what workers can read and write in place. */
import type { TypedArray } from "../../metadata/dtype.js";

export function isShared(data: TypedArray): boolean {
  return typeof SharedArrayBuffer !== "undefined" && data.buffer instanceof SharedArrayBuffer;
}

/** The same numbers on a SharedArrayBuffer: the array itself when it already is shared. */
export function toShared<T extends TypedArray>(data: T): T {
  if (isShared(data)) return data;
  const Ctor = data.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Ctor(new SharedArrayBuffer(data.byteLength));
  copy.set(data as never);
  return copy;
}
