/**
 * Every error parzarr throws on purpose is a ZarrError with a stable `code`, so callers can branch
 * on `err.code` instead of parsing messages. Messages name the array path and the key involved.
 */
export type ZarrErrorCode =
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "NODE_TYPE_MISMATCH"
  | "INVALID_METADATA"
  | "UNKNOWN_CODEC"
  | "UNSUPPORTED"
  | "CORRUPT_CHUNK"
  | "BAD_SELECTION"
  | "SHAPE_MISMATCH"
  | "READ_ONLY"
  | "INVALID_KEY"
  | "STORE_ERROR"
  | "ABORTED"
  | "LOCK_TIMEOUT"
  | "WRITE_CONFLICT"
  | "POOL_CLOSED"
  | "INVALID_ARGUMENT"
  | "TOO_LARGE"
  | "ACCESS_DENIED"
  | "WORKER_EXITED"
  | "MISSING_CHUNK"
  | "METADATA_MISMATCH"
  | "SOURCE_FILE"
  | "MISSING_DEPENDENCY"
  | "CONFLICT"
  | "INTERNAL";

/** The base of every error parzarr throws on purpose: branch on `code`, not on the message. */
export class ZarrError extends Error {
  // Each class names itself in a string: minifiers rename classes, so `new.target.name` would
  // give "fg" in a minified bundle, and the worker protocol tells some classes apart by name.
  /** The class name, kept as a string so that it survives minification and the worker boundary. */
  override name = "ZarrError";
  /** Stable across versions: what a caller branches on. */
  readonly code: ZarrErrorCode;
  constructor(code: ZarrErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A key, array or group that should exist does not. */
export class NotFoundError extends ZarrError {
  override name = "NotFoundError";
  constructor(message: string) {
    super("NOT_FOUND", message);
  }
}

/** Mode `w-` (or create without overwrite) found a node already there. */
export class AlreadyExistsError extends ZarrError {
  override name = "AlreadyExistsError";
  constructor(message: string) {
    super("ALREADY_EXISTS", message);
  }
}

/** An array was found where a group was expected, or the other way round. */
export class NodeTypeError extends ZarrError {
  override name = "NodeTypeError";
  constructor(message: string) {
    super("NODE_TYPE_MISMATCH", message);
  }
}

/** Metadata that is not valid JSON or breaks the spec; the message names the file and field. */
export class InvalidMetadataError extends ZarrError {
  override name = "InvalidMetadataError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("INVALID_METADATA", message, options);
  }
}

/** A codec (v3 name or v2 numcodecs id) that parzarr does not know. */
export class UnknownCodecError extends ZarrError {
  override name = "UnknownCodecError";
  constructor(message: string) {
    super("UNKNOWN_CODEC", message);
  }
}

/** A feature parzarr recognises but cannot handle (a data type or codec option). */
export class UnsupportedError extends ZarrError {
  override name = "UnsupportedError";
  constructor(message: string) {
    super("UNSUPPORTED", message);
  }
}

/** Chunk bytes that do not decode: truncated, corrupted or failing a checksum. */
export class CorruptChunkError extends ZarrError {
  override name = "CorruptChunkError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("CORRUPT_CHUNK", message, options);
  }
}

/** A selection that is malformed or out of bounds. */
export class BadSelectionError extends ZarrError {
  override name = "BadSelectionError";
  constructor(message: string) {
    super("BAD_SELECTION", message);
  }
}

/** A value whose shape does not match the selection it is written to. */
export class ShapeMismatchError extends ZarrError {
  override name = "ShapeMismatchError";
  constructor(message: string) {
    super("SHAPE_MISMATCH", message);
  }
}

/** A write to a store or node opened read-only. */
export class ReadOnlyError extends ZarrError {
  override name = "ReadOnlyError";
  constructor(message: string) {
    super("READ_ONLY", message);
  }
}

/** A store key that is empty, absolute, or tries to escape the store with `..`. */
export class InvalidKeyError extends ZarrError {
  override name = "InvalidKeyError";
  constructor(message: string) {
    super("INVALID_KEY", message);
  }
}

/** The store itself failed (an HTTP status other than 404, an I/O error). */
export class StoreError extends ZarrError {
  override name = "StoreError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("STORE_ERROR", message, options);
  }
}

/**
 * The server refused the credentials (HTTP 401 or 403), or parzarr refused to go where it was
 * sent: a redirect to another origin, a reference target outside what its document may reach. Not
 * a missing key: reading it as one would silently give fill values.
 */
export class AccessDeniedError extends ZarrError {
  override name = "AccessDeniedError";
  /** The store key asked for ("" for a listing). */
  readonly key: string;
  /**
   * The HTTP status: 401 or 403; a redirect's 3xx status when parzarr refused to follow it to
   * another origin; 0 when parzarr refused a reference target outside what the document may reach.
   */
  readonly status: number;
  constructor(message: string, key: string, status: number) {
    super("ACCESS_DENIED", message);
    this.key = key;
    this.status = status;
  }
}

/** The operation was cancelled through its AbortSignal. */
export class AbortError extends ZarrError {
  override name = "AbortError";
  constructor(message = "the operation was aborted") {
    super("ABORTED", message);
  }
}

/**
 * What a failure of a store read means once cancellation is involved: a `DOMException` named
 * "AbortError" or "TimeoutError" (what fetch, and custom stores passing on `signal.reason`, reject
 * with), or the reason of a `signal` that fired, is an AbortError; anything else is returned as it is.
 */
export function asAbort(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ZarrError) return err;
  const name = err instanceof Error ? err.name : "";
  if (name === "AbortError" || name === "TimeoutError" || (signal?.aborted && err === signal.reason)) {
    return new AbortError(`the operation was aborted${err instanceof Error && err.message ? ` (${err.message})` : ""}`);
  }
  return err;
}

/** Work handed to a WorkerPool after `close()`. */
export class PoolClosedError extends ZarrError {
  override name = "PoolClosedError";
  constructor(message: string) {
    super("POOL_CLOSED", message);
  }
}

/** An option out of its range (a negative thread count, say). */
export class InvalidArgumentError extends ZarrError {
  override name = "InvalidArgumentError";
  constructor(message: string) {
    super("INVALID_ARGUMENT", message);
  }
}

/** A chunk lock (a ProcessSynchronizer lock file) was not had within its timeout. */
export class LockTimeoutError extends ZarrError {
  override name = "LockTimeoutError";
  /** The store key of the chunk (or shard) whose lock was awaited. */
  readonly key: string;
  constructor(message: string, key: string) {
    super("LOCK_TIMEOUT", message);
    this.key = key;
  }
}

/**
 * A conditional (compare-and-swap) chunk write that kept losing to other writers: each of its
 * `attempts` read the chunk, merged and found at the conditional PUT that the chunk had changed
 * since. The chunk holds another writer's value, not this one's; the write may be repeated.
 */
export class WriteConflictError extends ZarrError {
  override name = "WriteConflictError";
  /** The store key of the chunk (or shard) that kept changing. */
  readonly key: string;
  /** How many read-merge-write attempts were made. */
  readonly attempts: number;
  constructor(message: string, key: string, attempts: number) {
    super("WRITE_CONFLICT", message);
    this.key = key;
    this.attempts = attempts;
  }
}

/**
 * Metadata or a request that would need more memory than the process allows: a chunk larger than
 * `getMaxChunkBytes()` (raise it with `setMaxChunkBytes`), or a result larger than any buffer.
 */
export class TooLargeError extends ZarrError {
  override name = "TooLargeError";
  constructor(message: string) {
    super("TOO_LARGE", message);
  }
}

/**
 * A worker thread died (crashed, ran out of memory, was terminated) while running chunks. The
 * operation fails with this error; chunk locks the worker held are released, so later writers of
 * those chunks go on. Each chunk it was writing holds its old value or its new one.
 */
export class WorkerExitError extends ZarrError {
  override name = "WorkerExitError";
  /** The store keys of the chunks of the task the worker was running. */
  readonly keys: string[];
  constructor(message: string, keys: string[], options?: { cause?: unknown }) {
    super("WORKER_EXITED", message, options);
    this.keys = keys;
  }
}

/**
 * A read of a chunk that is not stored, by an array opened with `fillMissingDataReads: false`
 * (TensorStore's `fill_missing_data_reads`): the chunk would otherwise read as the fill value.
 */
export class MissingChunkError extends ZarrError {
  override name = "MissingChunkError";
  /** The store key of the missing chunk (the shard's key, for a sharded array). */
  readonly key: string;
  constructor(message: string, key: string) {
    super("MISSING_CHUNK", message);
    this.key = key;
  }
}

/**
 * Stored metadata that disagrees with what the caller stated: an `expect` constraint at open, or
 * the metadata a handle opened with `assumeCachedMetadata` assumed. `field` names the field.
 */
export class MetadataMismatchError extends ZarrError {
  override name = "MetadataMismatchError";
  /** The metadata field that differs: "shape", "dtype", "chunks", "codecs", ... */
  readonly field: string;
  constructor(message: string, field: string) {
    super("METADATA_MISMATCH", message);
    this.field = field;
  }
}

/**
 * A file given as an archival source (NetCDF, HDF5) that cannot be read as one: not the format its
 * name says, truncated or corrupt. The message names the file and what was wrong.
 */
export class SourceFileError extends ZarrError {
  override name = "SourceFileError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("SOURCE_FILE", message, options);
  }
}

/**
 * A feature that needs an optional package (zod, bullmq, ioredis, h5wasm, @napi-rs/lzma) that is
 * not installed. parzarr installs without them; the message names the `npm install` command.
 */
export class MissingDependencyError extends ZarrError {
  override name = "MissingDependencyError";
  /** The packages the install command names. */
  readonly packages: string[];
  constructor(message: string, packages: string[], options?: { cause?: unknown }) {
    super("MISSING_DEPENDENCY", message, options);
    this.packages = packages;
  }
}

/**
 * A commit to an Icechunk branch that moved since the session began: another writer committed
 * first (`expected`, the session's base snapshot, is not `actual`, the branch's tip), and no
 * rebase was asked for or the rebase could not resolve it (both wrote the same chunk). Nothing of
 * the session was committed; it still holds its changes.
 */
export class ConflictError extends ZarrError {
  override name = "ConflictError";
  /** The branch both writers committed to. */
  readonly branch: string;
  /** The snapshot the losing session started from. */
  readonly expected: string;
  /** The branch's tip, which another writer moved. */
  readonly actual: string;
  constructor(message: string, branch: string, expected: string, actual: string, options?: { cause?: unknown }) {
    super("CONFLICT", message, options);
    this.branch = branch;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * A kerchunk reference document (stores/reference.ts) that breaks the spec: not JSON, a bad
 * version, a value of the wrong type, bad base64, a template that does not render. Its code is
 * INVALID_METADATA, as for any broken metadata; `key` names the reference ("" for the document).
 */
export class InvalidReferenceError extends InvalidMetadataError {
  override name = "InvalidReferenceError";
  /** The reference key at fault, or "" when the document as a whole is. */
  readonly key: string;
  constructor(message: string, key: string, options?: { cause?: unknown }) {
    super(message, options);
    this.key = key;
  }
}

/**
 * A reference whose bytes cannot be had as the document says: its target file is missing
 * (`reason: "missing"`), or its range runs past the target's end (`"short"`). Never read as a
 * missing chunk: that would silently give fill values. `key` names the reference, `url` the target.
 */
export class ReferenceTargetError extends StoreError {
  override name = "ReferenceTargetError";
  /** The reference key whose bytes could not be had. */
  readonly key: string;
  /** The target file or URL the reference points at. */
  readonly url: string;
  /** `"missing"`: no such target; `"short"`: the range runs past its end. */
  readonly reason: "missing" | "short";
  constructor(message: string, key: string, url: string, reason: "missing" | "short") {
    super(message);
    this.key = key;
    this.url = url;
    this.reason = reason;
  }
}

/**
 * A fault of parzarr's own (a chunk's place planned wrongly, a key the calling thread did not send a
 * worker): never CORRUPT_CHUNK, which only a chunk's bytes can earn. A bug to report.
 */
export class InternalFault extends ZarrError {
  override name = "InternalFault";
  constructor(message: string) {
    super("INTERNAL", message);
  }
}
