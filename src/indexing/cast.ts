/**
 * The one rule for values written with `set`, scalars and arrays alike, after numpy's casting:
 *
 * - into an integer type, a number is truncated toward zero (1.9 -> 1, -1.9 -> -1, as numpy's
 *   float -> int cast); NaN and ±Infinity, and any value outside the type's range once truncated
 *   (300 into uint8, -1e12 into int32), are refused with INVALID_ARGUMENT instead of wrapping;
 *   true and false are 1 and 0;
 * - into a float type, numbers are rounded to the type (float32 overflows to ±Infinity as in
 *   numpy), bigints and booleans become numbers;
 * - into bool, any non-zero number (NaN included) is true, as numpy's `bool(x)`;
 * - into complex, a number is its real part;
 * - strings, bytes, datetimes and records take their own values (a string into a string array);
 *   anything else is INVALID_ARGUMENT.
 *
 * A typed array of the array's own class is written as it is, without a check: it already holds
 * the type's values.
 */
import { InvalidArgumentError, InvalidMetadataError } from "../errors.js";
import { integerRange, typeFamily, unwrapPresent, wrapPresent, type DataType, type Scalar } from "../metadata/dtype.js";
import { parseFillValue } from "../metadata/fill-value.js";

function show(v: unknown): string {
  return typeof v === "bigint" ? `${v}` : typeof v === "number" ? String(v) : JSON.stringify(v) ?? String(v);
}

/** A number, bigint or boolean as an integer of the range, truncated, or a clear refusal. */
export function castInteger(v: unknown, dt: DataType, range: [bigint, bigint], where: string): bigint {
  let n: bigint;
  if (typeof v === "bigint") n = v;
  else if (typeof v === "boolean") n = v ? 1n : 0n;
  else if (typeof v === "number") {
    if (!Number.isFinite(v)) {
      throw new InvalidArgumentError(`${where}: cannot store ${v} in ${dt.name}: an integer type has no NaN or infinity`);
    }
    n = BigInt(Math.trunc(v));
  } else {
    throw new InvalidArgumentError(`${where}: cannot store ${show(v)} (a ${typeof v}) in ${dt.name}`);
  }
  if (n < range[0] || n > range[1]) {
    throw new InvalidArgumentError(`${where}: ${show(v)} is out of range for ${dt.name} (${range[0]} to ${range[1]})`);
  }
  return n;
}

/**
 * One element of a list or typed array of another type, as the typed array of `dt` stores it.
 * Only integer types need this: the typed array's own assignment is numpy's cast for floats.
 */
export function integerElement(v: number | bigint | boolean, dt: DataType, range: [bigint, bigint], index: number): number | bigint {
  // The common case without BigInt: an in-range integral number.
  if (typeof v === "number" && Number.isInteger(v) && v >= Number(range[0]) && v <= Number(range[1])) {
    return dt.itemSize === 8 ? BigInt(v) : v;
  }
  const n = castInteger(v, dt, range, `element ${index} of the value`);
  return dt.itemSize === 8 ? n : Number(n);
}

/** A scalar for `set`, cast to the array's type by the rule above. */
export function castScalar(v: Scalar, dt: DataType): Scalar {
  if (dt.kind === "optional" && v !== null) {
    const inner = unwrapPresent(v, dt);
    if (inner === undefined) throw new InvalidArgumentError(`a present value of a nested optional is [value], got ${show(v)}`);
    return wrapPresent(castScalar(inner, dt.inner), dt);
  }
  // Under an optional, a string or byte string is taken as it is: the fill-value parser below would
  // read anything else as metadata does ("" for zarr-python 2's 0, the bytes of a JSON string).
  if (dt.kind === "string" || dt.kind === "bytes") {
    if (dt.kind === "string" ? typeof v === "string" : v instanceof Uint8Array) return v;
    throw new InvalidArgumentError(`cannot store ${show(v)} in ${dt.name}: ${dt.kind === "string" ? "not a string" : "not a Uint8Array"}`);
  }
  const family = typeFamily(dt);
  const range = integerRange(dt);
  if (range) {
    const n = castInteger(v, dt, range, "value");
    return dt.itemSize === 8 ? n : Number(n);
  }
  if (family === "float" && (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean")) {
    return parseFillValue(Number(v), dt, "value");
  }
  if (family === "bool" && (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean")) {
    // numpy: bool(NaN) is True; only zero is False.
    return typeof v === "number" ? v !== 0 : typeof v === "bigint" ? v !== 0n : v;
  }
  if (family === "complex" && (typeof v === "bigint" || typeof v === "boolean")) return [Number(v), 0];
  try {
    return parseFillValue(v, dt, "value");
  } catch (err) {
    // The fill-value parser speaks of metadata; a value a caller passes is an argument.
    if (err instanceof InvalidMetadataError) {
      throw new InvalidArgumentError(`cannot store ${show(v)} in ${dt.name}: ${err.message.replace(/^value: (invalid )?fill value /, "")}`);
    }
    throw err;
  }
}
