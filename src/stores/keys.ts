/** Store keys: validated so that no key can escape the store or name something ambiguous. */
import { InvalidKeyError } from "../errors.js";

/**
 * A key is a relative `/`-separated path of non-empty segments. Refused: empty keys, absolute
 * paths, backslashes, drive letters, NUL bytes, empty segments and `.`/`..` segments.
 */
export function validateKey(key: string): string {
  const why = keyProblem(key);
  if (why) throw new InvalidKeyError(`invalid store key ${JSON.stringify(key)}: ${why}`);
  return key;
}

function keyProblem(key: string): string | null {
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
  if (!prefix.endsWith("/")) throw new InvalidKeyError(`invalid prefix ${JSON.stringify(prefix)}: a folder prefix ends with "/"`);
  validateKey(prefix.slice(0, -1));
  return prefix;
}

export function joinKey(...parts: string[]): string {
  return parts.filter((p) => p !== "").join("/");
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
