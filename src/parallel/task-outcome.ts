/**
 * What crosses the thread boundary besides the task itself: the message a worker receives and the
 * outcome it sends back. Errors travel as plain data (code, message) because structured clone
 * keeps neither an error's class nor its `code`; the main thread rebuilds the typed ZarrError.
 */
import {
  AbortError,
  AlreadyExistsError,
  BadSelectionError,
  CorruptChunkError,
  InvalidArgumentError,
  InvalidKeyError,
  InvalidMetadataError,
  NodeTypeError,
  NotFoundError,
  PoolClosedError,
  ReadOnlyError,
  ShapeMismatchError,
  StoreError,
  UnknownCodecError,
  UnsupportedError,
  ZarrError,
  type ZarrErrorCode,
} from "../errors.js";
import type { ChunkTask } from "./chunk-task.js";
import type { ReturnedChunk } from "./returned-chunks.js";

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
}

export interface SerialisedError {
  code: ZarrErrorCode | null;
  name: string;
  message: string;
}

export type TaskOutcome = (
  | { status: "done"; chunks: number }
  | { status: "cancelled"; chunks: number }
  | { status: "failed"; chunks: number; error: SerialisedError }
) & {
  /** With `returnChunks`: the chunks read, whatever the status (those done are kept). */
  returned?: ReturnedChunk[];
};

/** The buffers of an outcome's returned chunks, for a worker to transfer rather than copy. */
export function outcomeTransferables(outcome: TaskOutcome): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const r of outcome.returned ?? []) if (r.data.buffer instanceof ArrayBuffer) buffers.add(r.data.buffer);
  return [...buffers];
}

export function serialiseError(err: unknown): SerialisedError {
  if (err instanceof ZarrError) return { code: err.code, name: err.name, message: err.message };
  if (err instanceof Error) return { code: null, name: err.name, message: err.message };
  return { code: null, name: "Error", message: String(err) };
}

/** Rebuilds the error a worker threw, with its class, so callers can use `instanceof` and `code`. */
export function reviveError(e: SerialisedError): Error {
  const m = e.message;
  switch (e.code) {
    case "NOT_FOUND": return new NotFoundError(m);
    case "ALREADY_EXISTS": return new AlreadyExistsError(m);
    case "NODE_TYPE_MISMATCH": return new NodeTypeError(m);
    case "INVALID_METADATA": return new InvalidMetadataError(m);
    case "UNKNOWN_CODEC": return new UnknownCodecError(m);
    case "UNSUPPORTED": return new UnsupportedError(m);
    case "CORRUPT_CHUNK": return new CorruptChunkError(m);
    case "BAD_SELECTION": return new BadSelectionError(m);
    case "SHAPE_MISMATCH": return new ShapeMismatchError(m);
    case "READ_ONLY": return new ReadOnlyError(m);
    case "INVALID_KEY": return new InvalidKeyError(m);
    case "STORE_ERROR": return new StoreError(m);
    case "ABORTED": return new AbortError(m);
    case "POOL_CLOSED": return new PoolClosedError(m);
    case "INVALID_ARGUMENT": return new InvalidArgumentError(m);
    case null: {
      const err = new Error(m);
      err.name = e.name;
      return err;
    }
    default: return new ZarrError(e.code, m);
  }
}
