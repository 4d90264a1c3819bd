/**
 * Turning a task's descriptor into a store.
 *
 * Each kind of descriptor has an opener. Memory and fetch stores work everywhere and are known
 * here; the Node platform (platform/node.ts) adds the file-system and zip stores, so that the
 * browser's graph holds none of Node's modules. S3, reference and OPFS stores add their kind in a
 * thread when the first of them is made there, and workers, which only have descriptors, add them
 * all as they start (platform/node.ts, workers/browser-worker.ts): a page that never makes one
 * never loads its class. Users add kinds of their own with a module URL (registerStoreKind), which
 * a worker imports when a task first needs it.
 */
import { InvalidArgumentError, StoreError, UnsupportedError } from "../errors.js";
import { platform } from "../platform/current.js";
import { FetchStore } from "./fetch.js";
import { getMemoryStore } from "./memory.js";
import type { Store, StoreDescriptor } from "./types.js";
import type { UserStore } from "./caller.js";
import { storeModules } from "./store-modules.js";

type DescriptorOf<K extends StoreDescriptor["kind"]> = Extract<StoreDescriptor, { kind: K }>;

export interface StoreKind<K extends StoreDescriptor["kind"]> {
  open(d: DescriptorOf<K>): Store;
  /** Whether a worker can open this store from its descriptor (else its tasks run inline). */
  workerCanOpen(d: DescriptorOf<K>): boolean;
}

const kinds = new Map<string, StoreKind<never>>();

/** Registers how descriptors of one built-in kind open; platform modules call it as they load. */
export function addStoreKind<K extends StoreDescriptor["kind"]>(kind: K, opener: StoreKind<K>): void {
  kinds.set(kind, opener as unknown as StoreKind<never>);
}

/** Every built-in kind, on any platform: users cannot register these names. */
const BUILT_IN: Record<StoreDescriptor["kind"], true> = { filesystem: true, fetch: true, s3: true, reference: true, memory: true, opfs: true, zip: true, archive: true, caller: true };

/** What a user's store module exports, as `openStore` or as its default: its descriptor to a store. */
export type OpenStore = (descriptor: { kind: string; [field: string]: unknown }) => Store | UserStore;

/** This thread's openers of users' kinds, once their module is imported (loadStoreKind). */
const openers = new Map<string, Promise<OpenStore>>();
/** Their openers made to answer stores: a user's object wrapped (CallerStore), once both modules loaded. */
const loaded = new Map<string, (descriptor: StoreDescriptor) => Store>();
// CallerStore's wrapper loads with lazy-features.ts, as for the entry points (stores/routes.ts):
// only a thread that opens a user's kind needs it. lazy-features.ts reaches this module (through
// ReferenceStore), so its loader comes through the platform, as S3Store's and ReferenceStore's do.
const wrapper = () => platform().lazyFeatures((m) => m.asStore)();

/**
 * Lets workers open a user's stores themselves: a store whose `descriptor()` answers
 * `{ kind, ...plain data }` is opened, in each worker that runs one of its tasks, by the function
 * the module at `moduleUrl` (absolute: workers resolve it) exports as `openStore` or as default.
 * Such a store then reads and writes on workers like a folder or a URL; unregistered, it is a
 * caller store (stores/caller.ts), whose bytes this thread moves.
 */
export function registerStoreKind(kind: string, moduleUrl: string | URL): void {
  if (typeof kind !== "string" || kind === "" || Object.hasOwn(BUILT_IN, kind)) {
    throw new InvalidArgumentError(`"${kind}" is not a store kind users can register: pick a name that is not built in`);
  }
  const url = String(moduleUrl);
  try {
    new URL(url);
  } catch {
    throw new InvalidArgumentError(`the module URL of store kind "${kind}" must be absolute (workers resolve it), got "${url}"`);
  }
  const known = storeModules.get(kind);
  if (known !== undefined && known !== url) throw new InvalidArgumentError(`store kind "${kind}" is already registered to ${known}`);
  storeModules.set(kind, url);
  kinds.set(kind, {
    open(d: StoreDescriptor) {
      const open = loaded.get(kind);
      if (!open) throw new StoreError(`the module of store kind "${kind}" is not loaded in this thread`);
      return open(d);
    },
    workerCanOpen: () => true,
  });
}

/** Imports the module of a user's kind (once per thread), so that its descriptors then open. */
export function loadStoreKind(kind: string, moduleUrl: string): Promise<OpenStore> {
  registerStoreKind(kind, moduleUrl);
  let opener = openers.get(kind);
  if (!opener) {
    const fail = (why: string): never => {
      throw new StoreError(`the module of store kind "${kind}" (${moduleUrl}) ${why}`);
    };
    opener = import(/* @vite-ignore */ /* webpackIgnore: true */ moduleUrl).then(
      (m: { openStore?: unknown; default?: unknown }) => m,
      (err: unknown) => fail(`did not load: ${err instanceof Error ? err.message : String(err)}`),
    ).then(async (m) => {
      const open = m.openStore ?? m.default;
      if (typeof open !== "function") return fail("exports no openStore function (nor a default one)");
      const asStore = await wrapper();
      loaded.set(kind, (d) => asStore((open as OpenStore)(d as never)));
      return open as OpenStore;
    });
    openers.set(kind, opener);
    // A failed load (the module, or lazy-features.ts for the wrapper) is not kept: the next call
    // tries again, as its error says. The caller gets the rejection; this branch only forgets it.
    const failed = opener;
    failed.catch(() => {
      if (openers.get(kind) === failed) openers.delete(kind);
    });
  }
  return opener;
}

function kindOf(d: StoreDescriptor): StoreKind<never> {
  const k = kinds.get(d.kind);
  if (!k) throw new UnsupportedError(`a "${d.kind}" store cannot be opened on this platform (${platform().name})`);
  return k;
}

addStoreKind("fetch", { open: (d) => new FetchStore(d.url, { headers: d.headers, http: d.http, allowRedirects: d.allowRedirects }), workerCanOpen: () => true });
addStoreKind("memory", {
  open(d) {
    const s = getMemoryStore(d.id);
    // A memory store lives in the thread that made it; tasks for it must run there.
    if (!s) throw new StoreError(`memory store ${d.id} is not reachable from this thread`);
    return s;
  },
  // Its tasks run inline (see parallel/execution/coordinator.ts for the measurement).
  workerCanOpen: () => false,
});

export function storeFromDescriptor(d: StoreDescriptor): Store {
  return kindOf(d).open(d as never);
}

/** Whether a worker thread can open this store from its descriptor. */
export function workerCanOpen(d: StoreDescriptor): boolean {
  const k = kinds.get(d.kind);
  return k !== undefined && k.workerCanOpen(d as never);
}

