/**
 * What a string or URL given in place of a store opens: the one rule behind both resolutions.
 * `resolveStore` (stores/open.ts) holds every store class and answers at once; the entry points
 * (openArray, openGroup, createArray, open, consolidateMetadata, fromZarr, toZarr) resolve with
 * `resolveStoreOnDemand`, which imports the S3 and kerchunk-reference stores only when a string
 * names one, so that a page reading over HTTP never loads their classes, their URL parser or the
 * reference document's parser (test/store-routes.test.ts), and wraps a user's store object in
 * CallerStore (stores/caller.ts) likewise only when one is passed (test/read-page-lazy.test.ts).
 */
import { UnsupportedError } from "../errors.js";
import { lazyFeatures } from "../lazy-features-loader.js";
import { platform } from "../platform/current.js";
import { FetchStore } from "./fetch.js";
import type { Store } from "./types.js";
import type { UserStore } from "./caller.js";
import { storeAsIs } from "./store-modules.js";

/** A string naming a store whose class the caller supplies: an S3 URL, or a kerchunk reference document. */
export interface RemoteRoute {
  kind: "s3" | "reference";
  url: string;
  readOnly: boolean | undefined;
}

/**
 * A path or URL ending in `.json` names a (read-only) ReferenceStore over that kerchunk reference
 * document. Otherwise a string or URL with http(s) gives a (read-only) FetchStore; `s3://bucket/prefix` an S3Store
 * configured from the environment (see stores/s3.ts); on Node a path ending in `.zip`
 * gives a ZipStore (mode "r" when read-only, else "a": call `close()` to finish it), and file:
 * URLs and other strings a FileSystemStore, relative paths against the current folder; a store is
 * returned as it is, and any other object with `get` is `wrap`'s to make a user's store
 * (stores/caller.ts's asStore). The S3 and reference stores are `remote`'s to open, so that each
 * resolution chooses how their classes, and CallerStore's, load.
 */
export function routeStore<R>(
  input: string | URL | Store | UserStore,
  options: { readOnly?: boolean },
  remote: (route: RemoteRoute) => R,
  wrap: (input: UserStore) => R,
): Store | R {
  if (typeof input !== "string" && !(input instanceof URL)) return storeAsIs(input) ?? wrap(input as UserStore);
  const text = String(input);
  // A kerchunk reference document (read on first use; targets reached through the environment).
  if (/\.json$/i.test(text.replace(/[?#].*$/, ""))) return remote({ kind: "reference", url: text, readOnly: options.readOnly });
  if (/^https?:\/\//i.test(text)) return new FetchStore(text);
  // Endpoint, region and credentials come from the environment (AWS_ENDPOINT_URL and the rest).
  if (/^s3:\/\//i.test(text)) return remote({ kind: "s3", url: text, readOnly: options.readOnly });
  const local = platform().localStore;
  if (!local) {
    throw new UnsupportedError(`"${text}" is not an http(s) URL, and there are no local paths in a browser: pass a store (FetchStore, OPFSStore, MemoryStore)`);
  }
  return local(text, options);
}

// The S3 and reference stores' classes are in lazy-features.ts: one module loaded on first use
// rather than two more, each of which would make esbuild's splitting cut the code they share with
// the page into more chunk files (docs/ARCHITECTURE.md).
const openS3 = lazyFeatures((m, url: string, readOnly: boolean | undefined) => new m.S3Store(url, { readOnly }));
const openReferences = lazyFeatures((m, url: string) => m.ReferenceStore.at(url));
const wrapUserStore = lazyFeatures((m, input: UserStore) => m.asStore(input));

/**
 * `resolveStore`'s answer, with the S3 or reference store's module imported when the input names
 * one: what the entry points use, on every platform.
 */
export async function resolveStoreOnDemand(input: string | URL | Store | UserStore, options: { readOnly?: boolean } = {}): Promise<Store> {
  return routeStore(input, options, async (route): Promise<Store> => {
    if (route.kind === "s3") {
      return openS3(route.url, route.readOnly);
    }
    return openReferences(route.url);
  }, async (user) => wrapUserStore(user));
}
