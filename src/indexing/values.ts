/**
 * The user-facing forms of non-numeric elements and their memory forms. Memory holds fixed
 * strings and records as typed-array components (see metadata/dtype.ts); users see
 *   - strings (`string[]`) for `string` and `fixed_length_utf32` / `<U`,
 *   - byte strings (`Uint8Array[]`) for `variable_length_bytes`, `|S`, raw bits and records,
 *   - JSON values (`JsonValue[]`) for v2 object arrays with the `json2` codec,
 *   - one JS value each for optional types (null when missing) and typed arrays for v2 vlen-array,
 * one JS value per element, so `data[i]` is element i whatever the type.
 */
import { InvalidArgumentError, InvalidMetadataError, ShapeMismatchError } from "../errors.js";
import { componentsPerElement, type DataType, type ElementArray, type Scalar, type TypedArray } from "../metadata/dtype.js";
import { allocElements } from "../metadata/elements.js";
import { rareTypes } from "../metadata/dtype-names.js";
import { codePointsToString, scalarToComponents, storedToScalar, stripNuls } from "../metadata/scalars.js";
import { checkJsonValue, type JsonValue } from "../metadata/json.js";

/**
 * How `get` returns and `set` takes a type's elements ("values": one JS value each: optional
 * types, null when missing; vlen-array typed arrays. "json": JSON values, checked as such).
 */
export type UserForm = "typed" | "strings" | "bytes" | "json" | "values";

export function userForm(dt: DataType): UserForm {
  switch (dt.kind) {
    case "string":
    case "utf32":
      return "strings";
    case "bytes":
    case "fixed_bytes":
    case "raw_bits":
    case "structured":
      return "bytes";
    case "json":
      return "json";
    case "optional":
    case "vlen_array":
      return "values";
    default:
      return "typed";
  }
}

/** Memory (count elements) to what `get` returns. Variable-length memory already is that form. */
export function toUserData(dt: DataType, data: ElementArray, count: number): ElementArray {
  switch (dt.kind) {
    case "utf32": {
      const out = new Array<string>(count);
      for (let i = 0; i < count; i++) out[i] = codePointsToString(data as Uint32Array, i * dt.length, dt.length);
      return out;
    }
    case "fixed_bytes":
    case "raw_bits":
    case "structured": {
      const bytes = data as Uint8Array;
      const out = new Array<Uint8Array>(count);
      for (let i = 0; i < count; i++) {
        // A copy per element: the user may keep one without pinning the whole buffer.
        const el = bytes.slice(i * dt.itemSize, (i + 1) * dt.itemSize);
        out[i] = dt.kind === "fixed_bytes" ? stripNuls(el) : el;
      }
      return out;
    }
    case "optional":
      return Array.from({ length: count }, (_, i) => storedToScalar(data, i, dt));
    case "vlen_array":
      return (data as Uint8Array[]).slice(0, count).map((b) => rareTypes().bytesToNumbers(b, dt));
    default:
      return data;
  }
}

/** Elements in the user form, in C order, to memory (for `set`). */
export function fromUserItems(dt: DataType, items: readonly Scalar[]): ElementArray {
  const form = userForm(dt);
  if (form === "json") {
    items.forEach((v, i) => checkJsonValue(v, `value[${i}]`));
    return [...items] as JsonValue[];
  }
  items.forEach((v, i) => {
    if (form === "values") return; // scalarToComponents checks each against the type
    const ok = form === "strings" ? typeof v === "string" : v instanceof Uint8Array;
    if (!ok) throw new ShapeMismatchError(`value[${i}] must be a ${form === "strings" ? "string" : "Uint8Array"} for ${dt.name}, got ${typeof v}`);
  });
  if (dt.kind === "string" || dt.kind === "bytes") return [...items] as string[] | Uint8Array[];
  if (dt.kind === "vlen_array") return items.map((v) => rareTypes().numbersToBytes(v, dt));
  const out = allocElements(dt, items.length) as TypedArray;
  const c = componentsPerElement(dt);
  const o = out as unknown as { [i: number]: number };
  items.forEach((v, i) => {
    const comps = userComponents(v, dt, i) as number[];
    for (let k = 0; k < c; k++) o[i * c + k] = comps[k];
  });
  return out;
}

/**
 * A user's value as memory's components. scalarToComponents also reads fill values, whose faults
 * are the metadata's (INVALID_METADATA); a value `set` was given that the type cannot hold is the
 * caller's argument instead.
 */
function userComponents(v: Scalar, dt: DataType, i: number): ReturnType<typeof scalarToComponents> {
  try {
    return scalarToComponents(v, dt);
  } catch (e) {
    if (e instanceof InvalidMetadataError) throw new InvalidArgumentError(`value[${i}]: ${e.message}`);
    throw e;
  }
}
