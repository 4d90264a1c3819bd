/**
 * Lock-free partial-chunk writes by compare-and-swap, for stores whose server checks conditional
 * writes (S3's If-Match / If-None-Match on PUT), as TensorStore writes to such stores: read the
 * chunk with its version, merge, and write it only if that version is still current; when
 * another writer got there first, read again and merge again, a bounded number of times with
 * exponential backoff and jitter, then give up with a WriteConflictError naming the key.
 *
 * Nothing is locked, so no lock server is needed and a writer that dies holds nothing up. The
 * policy is plain data: write tasks carry it to worker threads (`WriteTask.conditional`).
 *
 * A chunk whose merged value is all fill value is written, not deleted: a delete would have to
 * be conditional too, which S3-compatible servers do not all offer (chunk-io/chunk-writes.ts).
 *
 * Whether a server honours the conditions cannot be told from its type: s3rver, for one, takes the
 * headers and writes anyway. So opening with `conditionalWrites` probes it once per store
 * (`requireConditionalWrites`, conditional-probe.ts), under the node's own path, and refuses one
 * that does not. Here: the option's types and default policy. The option's check and the probe
 * load with the first node opened with `conditionalWrites` (conditional-probe.ts), the
 * compare-and-swap loop (chunk-io/chunk-writes.ts) with a thread's first write task (both through
 * lazy-features.ts).
 */

/** `conditionalWrites` as openArray/createArray/openGroup take it: true, or the retry policy. */
export type ConditionalWritesOption = boolean | Partial<ConditionalWritePolicy>;

/** How a conditional write retries when another writer changed the chunk first. */
export interface ConditionalWritePolicy {
  /** Read-merge-write attempts per chunk before a WriteConflictError (default 20). */
  maxAttempts: number;
  /** The backoff before the second attempt is a random wait up to this, doubling after (default 10 ms). */
  backoffMs: number;
  /** The longest backoff (default 2000 ms). */
  maxBackoffMs: number;
}

/** The policy `conditionalWrites: true` means. */
export const DEFAULT_CONDITIONAL_WRITES: Readonly<ConditionalWritePolicy> = { maxAttempts: 20, backoffMs: 10, maxBackoffMs: 2000 };
