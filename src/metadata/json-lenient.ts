/**
 * The rest of JSON as Python's `json` writes it, beyond what JSON.parse reads (json.ts): the bare
 * literals NaN, Infinity and -Infinity, and integers beyond 2^53 kept exact where they are a node
 * document's `fill_value`. A page imports it on the first document that needs it
 * (metadata-json.ts); the synchronous readers that are never on the read page (reference
 * documents, consolidating, the json2 codec) import it directly.
 */
import { InvalidMetadataError } from "../errors.js";
import { checkJsonDepth, isJsonObject, jsonTextOf, keepExactFill, parsePlainJson } from "./json.js";

/** Parses metadata bytes; errors name the file so a user knows which document is broken. */
export function parseJsonBytes(bytes: Uint8Array, file: string): unknown {
  return parseJsonText(jsonTextOf(bytes, file), file);
}

const NON_FINITE: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/**
 * Metadata JSON as Python's `json` writes it: standard JSON plus the bare literals `NaN`,
 * `Infinity` and `-Infinity` (zarr-python writes them for non-finite attributes, and xarray's
 * `_FillValue`/`missing_value` attributes are often NaN). JSON.parse alone refuses them.
 *
 * Integers beyond 2^53 read as JSON.parse reads them (the document stays plain JSON), but an
 * array document's `fill_value` (int64/uint64 extremes) is also kept exact: see fillValueOf.
 */
export function parseJsonText(text: string, file: string): unknown {
  // The common case is one native parse: without a 16-digit run no integer can be rounded.
  const plain = parsePlainJson(text, file);
  if (plain !== undefined) return plain.doc;
  let doc: unknown;
  try {
    doc = parseRewritten(text);
  } catch (cause) {
    // Broken in some other way: report the error of the text as it was.
    let original = cause;
    try {
      JSON.parse(text);
    } catch (err) {
      original = err;
    }
    throw new InvalidMetadataError(`${file}: not valid JSON (${(original as Error).message})`, { cause: original });
  }
  checkJsonDepth(text, file);
  return doc;
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
    if (key === "fill_value" && parent !== undefined && isJsonObject(parent) && "zarr_format" in parent) keepExactFill(parent, BigInt(literal));
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
