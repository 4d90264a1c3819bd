/**
 * Turning what a user passes (a path, a URL, a store) into a store; stores/kinds.ts turns a task's
 * descriptor into one.
 */
import { UnsupportedError } from "../errors.js";
import { platform } from "../platform/current.js";
import { FetchStore } from "./fetch.js";
import { S3Store } from "./s3.js";
import { ReferenceStore } from "./reference.js";
import type { Store } from "./types.js";
import { asStore, type UserStore } from "./caller.js";

/**
 * A path or URL ending in `.json` gives a (read-only) ReferenceStore over that kerchunk reference
 * document. Otherwise a string or URL with http(s) gives a (read-only) FetchStore; `s3://bucket/prefix` an S3Store
 * configured from the environment (see stores/s3.ts); on Node a path ending in `.zip`
 * gives a ZipStore (mode "r" when read-only, else "a": call `close()` to finish it), and file:
 * URLs and other strings a FileSystemStore, relative paths against the current folder; a store is
 * returned as it is, and any other object with `get` wrapped as a user's store (stores/caller.ts).
 */
export function resolveStore(input: string | URL | Store | UserStore, options: { readOnly?: boolean } = {}): Store {
  if (typeof input !== "string" && !(input instanceof URL)) return asStore(input);
  const text = String(input);
  // A kerchunk reference document (read on first use; targets reached through the environment).
  if (/\.json$/i.test(text.replace(/[?#].*$/, ""))) return ReferenceStore.at(text);
  if (/^https?:\/\//i.test(text)) return new FetchStore(text);
  // Endpoint, region and credentials come from the environment (AWS_ENDPOINT_URL and the rest).
  if (/^s3:\/\//i.test(text)) return new S3Store(text, { readOnly: options.readOnly });
  const local = platform().localStore;
  if (!local) {
    throw new UnsupportedError(`"${text}" is not an http(s) URL, and there are no local paths in a browser: pass a store (FetchStore, OPFSStore, MemoryStore)`);
  }
  return local(text, options);
}
