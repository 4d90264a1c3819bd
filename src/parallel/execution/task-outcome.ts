/**
 * What crosses the thread boundary besides the task itself: the message a worker receives and the
 * outcome it sends back. Errors travel as plain data (code, message) because structured clone
 * keeps neither an error's class nor its `code`; the main thread rebuilds the typed ZarrError.
 */
import {
  AbortError,
  AccessDeniedError,
  AlreadyExistsError,
  BadSelectionError,
  CorruptChunkError,
  InvalidArgumentError,
  InvalidKeyError,
  InvalidMetadataError,
  InvalidReferenceError,
  LockTimeoutError,
  MetadataMismatchError,
  SourceFileError,
  MissingChunkError,
  MissingDependencyError,
  InternalFault,
  NodeTypeError,
  NotFoundError,
  PoolClosedError,
  ReadOnlyError,
  ReferenceTargetError,
  ShapeMismatchError,
  StoreError,
  WriteConflictError,
  ConflictError,
  TooLargeError,
  UnknownCodecError,
  UnsupportedError,
  WorkerExitError,
  ZarrError,
  type ZarrErrorCode,
} from "../../errors.js";
import type { ChunkTask, ChunkVersion } from "../chunk-io/chunk-task.js";
import type { ReturnedChunk } from "./returned-chunks.js";
import type { FetchedChunks, StoredChunks } from "./fetched-chunks.js";

/** One message to a worker: the task, sent verbatim, and the operation's cancel flag. */
export interface TaskMessage {
  task: ChunkTask;
  /**
   * An Int32Array(1) over a SharedArrayBuffer, shared by every task of one operation. The
   * coordinator stores 1 on abort or on the first failure; workers check it between chunks, so a
   * batch stops early without the worker being terminated. Without shared memory it is a plain
   * copy that never changes: such a task then stops only between tasks.
   */
  cancel: Int32Array;
  /**
   * A read without shared memory: the task carries an empty output, and the worker sends each
   * chunk's region back in the outcome (returned-chunks.ts).
   */
  returnChunks?: boolean;
  /**
   * A read whose chunks the caller fetched (fetched-chunks.ts): per item, its stored bytes (null:
   * not stored), transferred with the message; a write to a user's store: its partial chunks' old bytes.
   */
  fetched?: FetchedChunks;
  /** The module that opens the task's store, where its kind is a user's (registerStoreKind). */
  storeModule?: string;
}

export interface SerialisedError {
  code: ZarrErrorCode | null;
  name: string;
  message: string;
  /** The chunk key of a LockTimeoutError, a WriteConflictError, an AccessDeniedError, a MissingChunkError, a reference error. */
  key?: string;
  /** A ReferenceTargetError's target and reason. */
  target?: { url: string; reason: "missing" | "short" };
  /** The HTTP status of an AccessDeniedError. */
  status?: number;
  /** The chunk keys of a WorkerExitError. */
  keys?: string[];
  /** The field of a MetadataMismatchError. */
  field?: string;
  /** The attempts of a WriteConflictError. */
  attempts?: number;
  /** The packages of a MissingDependencyError. */
  packages?: string[];
}

export type TaskOutcome = (
  | { status: "done"; chunks: number }
  | { status: "cancelled"; chunks: number }
  | { status: "failed"; chunks: number; error: SerialisedError }
) & {
  /** With `returnChunks`: the chunks read, whatever the status (those done are kept). */
  returned?: ReturnedChunk[];
  /** A cache fill's versions, as [item index, version] for the chunks read. */
  versions?: [number, ChunkVersion][];
  /** A write to a user's store: what the caller is to store (fetched-chunks.ts, writeOnCaller). */
  stored?: StoredChunks;
};

/** The buffers of an outcome's returned chunks, for a worker to transfer rather than copy. */
export function outcomeTransferables(outcome: TaskOutcome): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const r of outcome.returned ?? []) if (r.data.buffer instanceof ArrayBuffer) buffers.add(r.data.buffer);
  for (const [, b] of outcome.stored ?? []) if (b?.buffer instanceof ArrayBuffer) buffers.add(b.buffer);
  return [...buffers];
}

export function serialiseError(err: unknown): SerialisedError {
  if (err instanceof ZarrError) {
    const out: SerialisedError = { code: err.code, name: err.name, message: err.message };
    if (err instanceof LockTimeoutError || err instanceof MissingChunkError) out.key = err.key;
    if (err instanceof MetadataMismatchError) out.field = err.field;
    if (err instanceof WriteConflictError) {
      out.key = err.key;
      out.attempts = err.attempts;
    }
    if (err instanceof AccessDeniedError) {
      out.key = err.key;
      out.status = err.status;
    }
    if (err instanceof WorkerExitError) out.keys = [...err.keys];
    if (err instanceof MissingDependencyError) out.packages = [...err.packages];
    // Subclasses that share their code with a plainer class travel by name.
    if (err instanceof InvalidReferenceError) out.key = err.key;
    if (err instanceof ReferenceTargetError) {
      out.key = err.key;
      out.target = { url: err.url, reason: err.reason };
    }
    return out;
  }
  if (err instanceof Error) return { code: null, name: err.name, message: err.message };
  return { code: null, name: "Error", message: String(err) };
}

/**
 * One constructor per code. The mapped type makes the compiler insist on an entry for every
 * code, so a ZarrError subclass added later cannot lose its class on the way back from a worker.
 */
const REVIVERS: { [C in ZarrErrorCode]: (m: string, e: SerialisedError) => ZarrError } = {
  NOT_FOUND: (m) => new NotFoundError(m),
  ALREADY_EXISTS: (m) => new AlreadyExistsError(m),
  NODE_TYPE_MISMATCH: (m) => new NodeTypeError(m),
  INVALID_METADATA: (m, e) => (e.name === "InvalidReferenceError" ? new InvalidReferenceError(m, e.key ?? "") : new InvalidMetadataError(m)),
  UNKNOWN_CODEC: (m) => new UnknownCodecError(m),
  UNSUPPORTED: (m) => new UnsupportedError(m),
  CORRUPT_CHUNK: (m) => new CorruptChunkError(m),
  BAD_SELECTION: (m) => new BadSelectionError(m),
  SHAPE_MISMATCH: (m) => new ShapeMismatchError(m),
  READ_ONLY: (m) => new ReadOnlyError(m),
  INVALID_KEY: (m) => new InvalidKeyError(m),
  STORE_ERROR: (m, e) => (e.target ? new ReferenceTargetError(m, e.key ?? "", e.target.url, e.target.reason) : new StoreError(m)),
  ABORTED: (m) => new AbortError(m),
  LOCK_TIMEOUT: (m, e) => new LockTimeoutError(m, e.key ?? ""),
  WRITE_CONFLICT: (m, e) => new WriteConflictError(m, e.key ?? "", e.attempts ?? 0),
  POOL_CLOSED: (m) => new PoolClosedError(m),
  INVALID_ARGUMENT: (m) => new InvalidArgumentError(m),
  TOO_LARGE: (m) => new TooLargeError(m),
  WORKER_EXITED: (m, e) => new WorkerExitError(m, e.keys ?? []),
  ACCESS_DENIED: (m, e) => new AccessDeniedError(m, e.key ?? "", e.status ?? 403),
  MISSING_CHUNK: (m, e) => new MissingChunkError(m, e.key ?? ""),
  METADATA_MISMATCH: (m, e) => new MetadataMismatchError(m, e.field ?? ""),
  SOURCE_FILE: (m) => new SourceFileError(m),
  MISSING_DEPENDENCY: (m, e) => new MissingDependencyError(m, e.packages ?? []),
  // Commits run on the calling thread: no worker throws it, so its snapshots need not travel.
  CONFLICT: (m) => new ConflictError(m, "", "", ""),
  INTERNAL: (m) => new InternalFault(m),
};

/** Rebuilds the error a worker threw, with its class, so callers can use `instanceof` and `code`. */
export function reviveError(e: SerialisedError): Error {
  if (e.code !== null) {
    const revive = REVIVERS[e.code] as ((m: string, e: SerialisedError) => ZarrError) | undefined;
    // A code this thread does not know (a newer worker bundle): keep the code at least.
    return revive ? revive(e.message, e) : new ZarrError(e.code, e.message);
  }
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
