/**
 * A serialiser that writes metadata the way zarr-python does (Python's float repr, exact big
 * integers, its indent and separators). Apart from json.ts's parser so that a page that only reads
 * never loads it: every writer reaches it through a module loaded on first use
 * (lazy-features.ts, rare-types.ts, the codecs' lazy modules) or is not on such a page.
 */
import type { JsonPrimitive, JsonValue } from "./json.js";

/**
 * A number that Python would print as a float (`0.0`, `1e-05`). zarr-python writes float fill
 * values this way; wrapping them keeps our metadata byte-identical to its output.
 */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A JSON integer beyond 2^53, kept exact (int64/uint64 fill values). */
export class BigJsonInt {
  constructor(readonly value: bigint) {}
}

/** A serialisable value as plain JSON data: Python floats as numbers, big integers as strings. */
export function plainJson(v: Serialisable): JsonValue {
  if (v instanceof PyFloat) return v.value;
  if (v instanceof BigJsonInt) return v.value.toString();
  if (Array.isArray(v)) return v.map(plainJson);
  return typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x!)])) : v;
}

export type Serialisable =
  | JsonPrimitive
  | PyFloat
  | BigJsonInt
  | Serialisable[]
  | { [key: string]: Serialisable | undefined };

/** Formats a float as Python's `repr` does (shortest round-trip digits, `.0`, `e-05`). */
export function pythonFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expStr] = x.toExponential().split("e");
  const exp = Number(expStr);
  if (exp >= -5 + 1 && exp < 16) {
    const s = String(x);
    // JS switches to exponent form only beyond 1e21; below 1e16 String(x) is positional here.
    return s.includes(".") || s.includes("e") ? s : `${s}.0`;
  }
  const sign = exp < 0 ? "-" : "+";
  const digits = String(Math.abs(exp)).padStart(2, "0");
  return `${mant}e${sign}${digits}`;
}

function escapeString(s: string, asciiOnly: boolean): string {
  const j = JSON.stringify(s);
  if (!asciiOnly) return j;
  return j.replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

export interface SerialiseOptions {
  /** Spaces per level; null: all on one line, with `separators` (Python's indent=None). */
  indent: number | null;
  /** With indent null: between items and between a key and its value (Python's default ", ", ": "). */
  separators?: readonly [string, string];
  sortKeys: boolean;
  /** Python's ensure_ascii: non-ASCII characters written as \uXXXX escapes. */
  asciiOnly: boolean;
}

/** JSON text in the layout of Python's `json.dumps(indent=N, separators=(",", ": "))`, or of indent=None. */
export function serialiseJson(value: Serialisable, options: SerialiseOptions): string {
  const { indent } = options;
  const [item, key] = indent === null ? (options.separators ?? [", ", ": "]) : [",\n", ": "];
  const nl = indent === null ? "" : "\n";
  const pad = (depth: number) => (indent === null ? "" : " ".repeat(indent * depth));
  const write = (v: Serialisable, depth: number): string => {
    if (v === null) return "null";
    if (v instanceof PyFloat) return pythonFloat(v.value);
    if (v instanceof BigJsonInt) return v.value.toString();
    if (typeof v === "number") return Number.isFinite(v) ? String(v) : pythonFloat(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "string") return escapeString(v, options.asciiOnly);
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      const items = v.map((x) => pad(depth + 1) + write(x, depth + 1));
      return `[${nl}${items.join(item)}${nl}${pad(depth)}]`;
    }
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (options.sortKeys) keys.sort();
    if (keys.length === 0) return "{}";
    const items = keys.map(
      (k) => `${pad(depth + 1)}${escapeString(k, options.asciiOnly)}${key}${write(v[k] as Serialisable, depth + 1)}`,
    );
    return `{${nl}${items.join(item)}${nl}${pad(depth)}}`;
  };
  return write(value, 0);
}

const encoder = new TextEncoder();

export function jsonBytes(value: Serialisable, options: SerialiseOptions): Uint8Array {
  return encoder.encode(serialiseJson(value, options));
}
