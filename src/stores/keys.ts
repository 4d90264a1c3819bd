/**
 * Store keys and byte ranges: validated here, once, so that no key can escape a store or name
 * something ambiguous, and every store answers the same range the same way.
 */
import { BadSelectionError, InvalidKeyError } from "../errors.js";
import type { RangeRequest } from "./types.js";

/**
 * A key is a relative `/`-separated path of non-empty segments. Refused: empty keys, absolute
 * paths, backslashes, drive letters, NUL bytes, empty segments and `.`/`..` segments.
 */
export function validateKey(key: string): string {
  const why = keyProblem(key);
  if (why) throw new InvalidKeyError(`invalid store key ${JSON.stringify(key)}: ${why}`);
  return key;
}

/** Whether a name is a valid key (for names from files, such as zip members, that are skipped if not). */
export function isValidKey(key: unknown): boolean {
  return keyProblem(key) === null;
}

function keyProblem(key: unknown): string | null {
  // Keys can come from JSON (consolidated metadata, task messages), so the type is not a given.
  if (typeof key !== "string") return "keys are strings";
  if (key === "") return "a key cannot be empty";
  if (key.startsWith("/")) return "a key cannot be an absolute path";
  if (key.includes("\\")) return "a key cannot contain a backslash";
  if (key.includes("\0")) return "a key cannot contain a NUL byte";
  if (/^[a-zA-Z]:/.test(key)) return "a key cannot start with a drive letter";
  for (const segment of key.split("/")) {
    if (segment === "") return "a key cannot have empty segments";
    if (segment === "." || segment === "..") return `a key cannot contain a "${segment}" segment`;
  }
  return null;
}

/** A list prefix: "" (everything) or a valid key followed by `/`. */
export function validatePrefix(prefix: string): string {
  if (prefix === "") return prefix;
  if (typeof prefix !== "string" || !prefix.endsWith("/")) {
    throw new InvalidKeyError(`invalid prefix ${JSON.stringify(prefix)}: a folder prefix is "" or ends with "/"`);
  }
  const why = keyProblem(prefix.slice(0, -1));
  if (why) throw new InvalidKeyError(`invalid prefix ${JSON.stringify(prefix)}: ${why}`);
  return prefix;
}

/**
 * Joins path parts with `/`. Slashes at the ends of a part are dropped so that `("a/", "b")`
 * cannot make an empty segment; empty parts (the root path) vanish. The result is not validated.
 */
export function joinKey(...parts: string[]): string {
  return parts
    .map((p) => p.replace(/^\/+|\/+$/g, ""))
    .filter((p) => p !== "")
    .join("/");
}

/** The immediate children of `prefix` among `keys`: direct keys and sub-folder names. */
export function childrenOf(keys: Iterable<string>, prefix: string): { keys: string[]; prefixes: string[] } {
  const direct = new Set<string>();
  const folders = new Set<string>();
  for (const k of keys) {
    if (!k.startsWith(prefix)) continue;
    const rest = k.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash === -1) direct.add(rest);
    else folders.add(rest.slice(0, slash));
  }
  return { keys: [...direct].sort(), prefixes: [...folders].sort() };
}

/** Refuses ranges that no store could answer sensibly (fractions, negative lengths, NaN). */
export function validateRange(range: RangeRequest): RangeRequest {
  const { offset, length } = range;
  if (!Number.isSafeInteger(offset)) throw new BadSelectionError(`invalid byte range: offset ${offset} is not an integer`);
  if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) {
    throw new BadSelectionError(`invalid byte range: length ${length} is not a non-negative integer`);
  }
  return range;
}

/**
 * Where a range falls in a value of `size` bytes, clamped to the value: a range past the end is
 * empty and a suffix longer than the value is the whole value, as HTTP servers answer them.
 */
export function rangeBounds(size: number, range: RangeRequest): { start: number; end: number } {
  const start = range.offset < 0 ? Math.max(0, size + range.offset) : Math.min(range.offset, size);
  const end = range.length === undefined ? size : Math.min(size, start + range.length);
  return { start, end };
}

/** The bytes of `range` within `bytes`, as a view (callers copy when they must). */
export function sliceRange(bytes: Uint8Array, range: RangeRequest): Uint8Array {
  const { start, end } = rangeBounds(bytes.length, range);
  return bytes.subarray(start, end);
}
