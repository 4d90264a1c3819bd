/**
 * JSON types and the parser of metadata documents. Writing them (json-write.ts) is apart: a page
 * that only reads never loads it.
 */
import { InvalidArgumentError, InvalidMetadataError } from "../errors.js";

/** @inline */
export type JsonPrimitive = string | number | boolean | null;
/** Any JSON value. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: metadata documents, attributes, codec configurations. */
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The deepest nesting metadata may have. JSON.parse itself copes with any depth, but everything
 * that walks the result afterwards (validation, copies, serialising) recurses and would die with
 * a raw RangeError on a document nested thousands deep. Python's json refuses about 1000 deep.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Checks that `v` is a JSON value (null, boolean, number, string, array, plain object) nested at
 * most MAX_JSON_DEPTH deep: a cycle, a bigint or a class instance fails here, by its place,
 * before anything is written.
 */
export function checkJsonValue(v: unknown, where: string, depth = 0): void {
  if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "string") return;
  if (depth >= MAX_JSON_DEPTH) throw new InvalidArgumentError(`${where}: nested more than ${MAX_JSON_DEPTH} deep (or circular)`);
  const proto = typeof v === "object" ? Object.getPrototypeOf(v) : undefined;
  if (Array.isArray(v) || proto === Object.prototype || proto === null) {
    for (const x of Object.values(v as object)) checkJsonValue(x, where, depth + 1);
    if (!Array.isArray(v) || Object.keys(v).length === v.length) return;
  }
  const what = v instanceof Object ? v.constructor.name : typeof v;
  throw new InvalidArgumentError(`${where}: ${Array.isArray(v) ? "a sparse array" : `a ${what}`} is not a JSON value`);
}

/** The deepest array/object nesting in JSON text (brackets inside strings do not count). */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Parses metadata bytes; errors name the file so a user knows which document is broken. */
export function parseJsonBytes(bytes: Uint8Array, file: string): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch (cause) {
    throw new InvalidMetadataError(`${file}: not valid UTF-8`, { cause });
  }
  return parseJsonText(text, file);
}

const NON_FINITE: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** Some run of 16+ digits: the only texts that may hold an integer JSON.parse would round. */
const LONG_DIGITS = /\d{16}/;

/**
 * Metadata JSON as Python's `json` writes it: standard JSON plus the bare literals `NaN`,
 * `Infinity` and `-Infinity` (zarr-python writes them for non-finite attributes, and xarray's
 * `_FillValue`/`missing_value` attributes are often NaN). JSON.parse alone refuses them.
 *
 * Integers beyond 2^53 read as JSON.parse reads them (the document stays plain JSON), but an
 * array document's `fill_value` (int64/uint64 extremes) is also kept exact: see fillValueOf.
 */
export function parseJsonText(text: string, file: string): unknown {
  let doc: unknown;
  const longDigits = LONG_DIGITS.test(text);
  try {
    // The common case is one native parse: without a 16-digit run no integer can be rounded.
    doc = longDigits ? parseRewritten(text) : JSON.parse(text);
  } catch (cause) {
    try {
      if (longDigits) throw cause;
      doc = parseRewritten(text);
    } catch {
      // Broken in some other way: report the error of the text as it was.
      let original = cause;
      try {
        JSON.parse(text);
      } catch (err) {
        original = err;
      }
      throw new InvalidMetadataError(`${file}: not valid JSON (${(original as Error).message})`, { cause: original });
    }
  }
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) throw new InvalidMetadataError(`${file}: nested ${depth} deep, more than the ${MAX_JSON_DEPTH} levels metadata may have`);
  return doc;
}

/** The exact `fill_value` of node documents whose fill is an integer beyond 2^53. */
const exactFills = new WeakMap<object, bigint>();

/**
 * A node document's `fill_value`, exact: JSON.parse would round int64's 9223372036854775807 up
 * out of its range, so parseJsonText keeps such a fill beside the document, as a bigint.
 */
export function fillValueOf(doc: JsonObject): unknown {
  return exactFills.get(doc) ?? doc.fill_value;
}

/** JSON with bare NaN/Infinity and exact big fill values (see rewriteLiterals). */
function parseRewritten(text: string): unknown {
  const rewritten = rewriteLiterals(text);
  if (rewritten === undefined) return JSON.parse(text);
  // A walk after the parse, not a reviver: V8 (Node 22+) keeps each value's source text for a
  // reviver, which took a 20 MiB document of NaNs from 150 MB of heap to over 400.
  return revive(JSON.parse(rewritten.text), rewritten.marker);
}

/** Turns the marked strings of rewriteLiterals back into values, in place (`key` names `v` in `parent`). */
function revive(v: unknown, marker: string, key?: string, parent?: object): unknown {
  if (typeof v === "string") {
    if (!v.startsWith(marker)) return v;
    const literal = v.slice(marker.length);
    const nonFinite = NON_FINITE[literal];
    if (nonFinite !== undefined) return nonFinite;
    // A big integer; the fill value of a node document (it has `zarr_format`) is kept exact too.
    if (key === "fill_value" && parent !== undefined && isJsonObject(parent) && "zarr_format" in parent) exactFills.set(parent, BigInt(literal));
    return Number(literal);
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const r = revive(v[i], marker);
      if (r !== v[i]) v[i] = r;
    }
  } else if (typeof v === "object" && v !== null) {
    // Assigned only where a value changes: a key such as "__proto__" stays the data property JSON made.
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const r = revive(o[k], marker, k, o);
      if (r !== o[k]) Object.defineProperty(o, k, { value: r, writable: true, enumerable: true, configurable: true });
    }
  }
  return v;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** Letters, digits, `_` and `.`: what may not touch a bare NaN/Infinity. */
const isWordChar = (c: number) => isDigit(c) || c === 0x5f || c === 0x2e || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);

/**
 * Replaces, outside strings, each bare NaN/Infinity/-Infinity and each integer beyond 2^53 by a
 * string that starts with a random marker absent from the text, so the reviver cannot take a
 * user's string for one. Undefined when there is none. One pass that copies the text between
 * replacements as slices, so time and memory stay linear in the text's size.
 */
function rewriteLiterals(text: string): { text: string; marker: string } | undefined {
  // 64 random bits: short, since a document of NaNs holds one per value, and unguessable.
  let marker: string;
  do marker = `~${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}:`;
  while (text.includes(marker));
  // Pieces are joined a few thousand at a time, so they never outnumber the output's bytes.
  const joined: string[] = [];
  const parts: string[] = [];
  let copied = 0; // text before this index is in `joined` and `parts`
  const replace = (from: number, to: number) => {
    parts.push(text.slice(copied, from), `"${marker}${text.slice(from, to)}"`);
    copied = to;
    if (parts.length >= 8192) joined.push(parts.splice(0).join(""));
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      i++;
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    const minus = c === 0x2d ? 1 : 0;
    const start = i + minus;
    if (isDigit(text.charCodeAt(start))) {
      // A whole number token, so that a fraction's or exponent's digits are not taken for one.
      const digits = (from: number) => {
        while (from < n && isDigit(text.charCodeAt(from))) from++;
        return from;
      };
      const intEnd = digits(start);
      let j = intEnd;
      if (text.charCodeAt(j) === 0x2e) j = digits(j + 1);
      if ((text.charCodeAt(j) | 0x20) === 0x65) j = digits(j + (text.charCodeAt(j + 1) === 0x2b || text.charCodeAt(j + 1) === 0x2d ? 2 : 1));
      // Only a plain integer of 16+ digits can lose digits.
      if (j === intEnd && j - start >= 16 && !Number.isSafeInteger(Number(text.slice(i, j)))) replace(i, j);
      i = j;
      continue;
    }
    // NaN has no signed form; -Infinity has.
    const word = !minus && text.startsWith("NaN", i) ? 3 : text.startsWith("Infinity", start) ? 8 : 0;
    if (word > 0 && !(i > 0 && isWordChar(text.charCodeAt(i - 1))) && !isWordChar(text.charCodeAt(start + word))) {
      replace(i, start + word);
      i = start + word;
      continue;
    }
    i++;
  }
  if (copied === 0) return undefined;
  joined.push(parts.join(""), text.slice(copied));
  return { text: joined.join(""), marker };
}
