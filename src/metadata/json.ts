/**
 * JSON types and the plain parse of metadata documents: one JSON.parse, which is all a standard
 * document needs. The rest of JSON as Python writes it (bare NaN/Infinity, integers beyond 2^53)
 * is json-lenient.ts, and writing (json-write.ts) is apart too: a page that only reads plain
 * documents loads neither (metadata-json.ts imports the lenient parser on first need).
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

/** Metadata bytes as text; errors name the file so a user knows which document is broken. */
export function jsonTextOf(bytes: Uint8Array, file: string): string {
  try {
    return decoder.decode(bytes);
  } catch (cause) {
    throw new InvalidMetadataError(`${file}: not valid UTF-8`, { cause });
  }
}

/** Some run of 16+ digits: the only texts that may hold an integer JSON.parse would round. */
const LONG_DIGITS = /\d{16}/;

/**
 * The document in `text` when JSON.parse alone reads it exactly: undefined when it refuses the
 * text (broken, or with Python's NaN/Infinity) or when a run of 16+ digits may be an integer it
 * would round; json-lenient.ts's parseJsonText then reads it (and reports what is broken).
 */
export function parsePlainJson(text: string, file: string): { doc: unknown } | undefined {
  if (LONG_DIGITS.test(text)) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  checkJsonDepth(text, file);
  return { doc };
}

/** Refuses a parsed document nested deeper than MAX_JSON_DEPTH (see there). */
export function checkJsonDepth(text: string, file: string): void {
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) throw new InvalidMetadataError(`${file}: nested ${depth} deep, more than the ${MAX_JSON_DEPTH} levels metadata may have`);
}

/** The exact `fill_value` of node documents whose fill is an integer beyond 2^53 (json-lenient.ts keeps it). */
const exactFills = new WeakMap<object, bigint>();

/**
 * A node document's `fill_value`, exact: JSON.parse would round int64's 9223372036854775807 up
 * out of its range, so json-lenient.ts keeps such a fill beside the document, as a bigint.
 */
export function fillValueOf(doc: JsonObject): unknown {
  return exactFills.get(doc) ?? doc.fill_value;
}

/** Keeps `fill` as the exact `fill_value` of the node document `doc` (for fillValueOf). */
export function keepExactFill(doc: object, fill: bigint): void {
  exactFills.set(doc, fill);
}
