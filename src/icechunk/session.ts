/**
 * Icechunk sessions as parzarr stores, and commits with typed conflicts. Nothing here imports
 * @earthmover/icechunk: the user hands in their Repository or Session, whose shapes are described
 * structurally below, so an app that never opens a repository never loads the package.
 *
 * A session's store lives on the calling thread, so parzarr treats it as a caller store
 * (stores/caller.ts): this thread moves the bytes, workers decode and encode. Its writes need no
 * serialising: the session takes concurrent `set`s (one change set behind a lock in Rust).
 */
import { ConflictError, InvalidArgumentError, InvalidKeyError, NotFoundError, ReadOnlyError, StoreError, UnsupportedError, ZarrError } from "../errors.js";
import type { UserStore } from "../stores/caller.js";

/** What parzarr uses of an Icechunk `Store` (@earthmover/icechunk's index.d.ts). */
export interface IcechunkStoreLike {
  /** The value, or null when missing. */
  get(key: string): Promise<Uint8Array | null>;
  /** A byte range of the value, or null when missing. */
  getRange(key: string, range: { offset?: number; length?: number; suffixLength?: number }): Promise<Uint8Array | null>;
  /** Stores a value in the session's change set. */
  set(key: string, value: Uint8Array): Promise<void>;
  /** Deletes a key in the session's change set. */
  delete(key: string): Promise<void>;
  /** Every key. */
  list(): Promise<string[]>;
  /** Every key under a prefix. */
  listPrefix(prefix: string): Promise<string[]>;
}

/** What parzarr uses of an Icechunk `Session`. */
export interface IcechunkSession {
  /** False for a writable session on a branch. */
  readonly readOnly: boolean;
  /** The snapshot the session started from. */
  readonly snapshotId: string;
  /** The branch of a writable session (null when read-only). */
  readonly branch: string | null;
  /** The session's zarrita-compatible store. */
  readonly store: IcechunkStoreLike;
  /** Commits the change set; the new snapshot's id. */
  commit(message: string): Promise<string>;
  /** Moves the change set onto the branch's tip. */
  rebase(): Promise<void>;
}

/** What parzarr uses of an Icechunk `Repository`. */
export interface IcechunkRepository {
  /** A read-only session at a branch, tag or snapshot. */
  readonlySession(options?: { branch?: string; tag?: string; snapshotId?: string }): Promise<IcechunkSession>;
  /** A writable session on a branch. */
  writableSession(branch: string): Promise<IcechunkSession>;
}

/** Which version to open: one of branch, tag or snapshot (default: branch "main"). */
export interface IcechunkRef {
  /** A branch's tip. */
  branch?: string;
  /** A tag's snapshot. */
  tag?: string;
  /** A snapshot by id. */
  snapshot?: string;
  /** A writable session on `branch`: parzarr's writes go into it until `commit`. */
  writable?: boolean;
}

/** A session's store as parzarr (and zarrita) take it, with the session for `commit`. */
export interface IcechunkStore extends UserStore {
  /** The session the store belongs to (commit it with `commit`). */
  readonly session: IcechunkSession;
}

/** Icechunk's errors are plain Errors whose message starts with what went wrong. */
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split("\n")[0]!;

/** A store error with Icechunk's message, keeping parzarr's own errors as they are. */
function storeFault(op: string, key: string, err: unknown): ZarrError {
  if (err instanceof ZarrError) return err;
  const m = messageOf(err);
  if (m.startsWith("cannot write to read-only store")) return new ReadOnlyError(`Icechunk ${op} "${key}": the session is read-only (committed, or opened read-only)`);
  if (m.includes("Icechunk cannot set Zarr V2 metadata keys")) return new UnsupportedError(`Icechunk ${op} "${key}": Icechunk holds Zarr v3 only (create the array with zarrFormat 3)`);
  if (m.startsWith("invalid zarr key")) return new InvalidKeyError(`Icechunk ${op} "${key}": ${m}`);
  return new StoreError(`Icechunk ${op} "${key}" failed: ${m}`, { cause: err });
}

/**
 * Reads of keys Icechunk cannot hold are missing, not faults: a key under no node ("node not
 * found") or not of Zarr v3's shapes ("invalid zarr key", e.g. "a/.zarray" probes answer null
 * already). Anything else is a StoreError.
 */
async function read(op: string, key: string, run: () => Promise<Uint8Array | null>): Promise<Uint8Array | undefined> {
  try {
    return (await run()) ?? undefined;
  } catch (err) {
    const m = messageOf(err);
    if (m.startsWith("node not found at") || m.startsWith("invalid zarr key format")) return undefined;
    throw storeFault(op, key, err);
  }
}

async function write(op: string, key: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    // Deleting under a node that does not exist deletes nothing, as for any store.
    if (op === "delete" && messageOf(err).startsWith("node not found at")) return;
    throw storeFault(op, key, err);
  }
}

/** The store parzarr reads and writes a session through (keys as zarrita gives them, "/a/zarr.json"). */
export function icechunkStore(session: IcechunkSession): IcechunkStore {
  const s = session.store;
  return {
    session,
    readOnly: session.readOnly,
    get: (key) => read("get", key, () => s.get(key)),
    getRange: (key, range) => read("getRange", key, () => s.getRange(key, range)),
    set: (key, value) => write("set", key, () => s.set(key, value)),
    delete: (key) => write("delete", key, () => s.delete(key)),
    // Icechunk lists only under a node's prefix ("a/"), not a chunk folder ("a/c/"): the whole
    // listing, filtered by the caller store, answers those.
    list: async (prefix) => {
      try {
        return await s.listPrefix(prefix.replace(/^\/+/, ""));
      } catch (err) {
        if (!messageOf(err).startsWith("bad key prefix")) throw storeFault("list", prefix, err);
        return s.list();
      }
    },
  };
}

/**
 * Opens a session of `repo` as a store for openGroup, openArray, createArray...: read-only at a
 * branch's tip, a tag or a snapshot id, or writable on a branch. The user commits
 * (`commit(store.session, message)` or `store.session.commit(message)`).
 */
export async function openIcechunk(repo: IcechunkRepository, ref: IcechunkRef = {}): Promise<IcechunkStore> {
  const given = (["branch", "tag", "snapshot"] as const).filter((k) => ref[k] !== undefined);
  if (given.length > 1) throw new InvalidArgumentError(`open an Icechunk session by one of branch, tag or snapshot, not ${given.join(" and ")}`);
  if (ref.writable && given[0] !== undefined && given[0] !== "branch") {
    throw new InvalidArgumentError(`a writable Icechunk session is on a branch, not a ${given[0]}: tags and snapshots cannot change`);
  }
  const branch = ref.branch ?? (given.length === 0 ? "main" : undefined);
  const what = branch !== undefined ? `branch "${branch}"` : ref.tag !== undefined ? `tag "${ref.tag}"` : `snapshot ${ref.snapshot}`;
  try {
    const session = ref.writable ? await repo.writableSession(branch!) : await repo.readonlySession({ branch, tag: ref.tag, snapshotId: ref.snapshot });
    return icechunkStore(session);
  } catch (err) {
    const m = messageOf(err);
    if (/^ref not found|snapshot not found|object not found|invalid snapshot id/i.test(m)) throw new NotFoundError(`no Icechunk ${what} in this repository (${m})`);
    if (/read-only/.test(m)) throw new ReadOnlyError(`cannot open a writable session at Icechunk ${what}: ${m}`);
    throw new StoreError(`cannot open a session at Icechunk ${what}: ${m}`, { cause: err });
  }
}

/** Icechunk's "branch update conflict: `(Some(A)) != (Some(B))`": A the session's base, B the tip. */
const CONFLICT = /^branch update conflict: `\((?:Some\((\w+)\)|None)\) != \((?:Some\((\w+)\)|None)\)`/;
/** Retries of commit-after-rebase while other writers keep winning the race. */
const REBASE_ATTEMPTS = 10;

/**
 * Commits a writable session and returns the new snapshot id. When another writer committed to
 * the branch since the session began, a ConflictError names the branch, the session's base and
 * the branch's tip; with `rebase`, the session's changes are first rebased onto the tip, which
 * Icechunk does unless both changed the same chunk or metadata (then ConflictError too).
 */
export async function commit(session: IcechunkSession, message: string, options: { rebase?: boolean } = {}): Promise<string> {
  const branch = session.branch ?? "";
  for (let attempt = 1; ; attempt++) {
    const expected = session.snapshotId;
    let conflict: ConflictError;
    try {
      return await session.commit(message);
    } catch (err) {
      const m = messageOf(err);
      const c = CONFLICT.exec(m);
      if (!c) throw m.startsWith("cannot write to read-only") || m.includes("read-only session") ? new ReadOnlyError(`cannot commit: ${m}`) : storeFault("commit on branch", branch, err);
      const actual = c[2] ?? "";
      conflict = new ConflictError(`commit to Icechunk branch "${branch}" conflicts: the session began at snapshot ${c[1] ?? expected}, the branch is now at ${actual}`, branch, c[1] ?? expected, actual, { cause: err });
    }
    if (!options.rebase || attempt >= REBASE_ATTEMPTS) throw conflict;
    try {
      await session.rebase();
    } catch (err) {
      // Only Icechunk's own refusal is a conflict; a store fault during the rebase is that fault.
      if (!messageOf(err).startsWith("cannot rebase")) throw storeFault("rebase on branch", branch, err);
      const how = `${conflict.message}, and the rebase could not resolve it (${messageOf(err)}): both changed the same chunks or metadata`;
      throw new ConflictError(how, branch, conflict.expected, conflict.actual, { cause: err });
    }
  }
}
