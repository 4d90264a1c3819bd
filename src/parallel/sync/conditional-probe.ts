/**
 * The `conditionalWrites` option checked, and whether a store's server honours conditional writes
 * (conditional-writes.ts), asked once per store when a node is opened for writing with them.
 * Loaded with the first node opened with the option (lazy-features.ts).
 */
import { InvalidArgumentError, UnsupportedError } from "../../errors.js";
import { checkOptionNames } from "../execution/options.js";
import { DEFAULT_CONDITIONAL_WRITES, type ConditionalWritePolicy } from "./conditional-writes.js";
import { nodeKey } from "../../metadata/chunk-key.js";
import { isWritable, type Store, type WritableStore } from "../../stores/types.js";

const POLICY_KEYS: Record<keyof ConditionalWritePolicy, true> = { maxAttempts: true, backoffMs: true, maxBackoffMs: true };

/** The option checked and completed; undefined when conditional writes are off. */
export function conditionalWritePolicy(option: unknown): ConditionalWritePolicy | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return { ...DEFAULT_CONDITIONAL_WRITES };
  if (typeof option !== "object" || option === null || Array.isArray(option)) {
    throw new InvalidArgumentError(`conditionalWrites must be true, false or { maxAttempts, backoffMs, maxBackoffMs }, got ${JSON.stringify(option)}`);
  }
  checkOptionNames(option, Object.keys(POLICY_KEYS), "conditionalWrites");
  const policy = { ...DEFAULT_CONDITIONAL_WRITES, ...(option as Partial<ConditionalWritePolicy>) };
  if (!Number.isSafeInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new InvalidArgumentError(`conditionalWrites.maxAttempts must be an integer of at least 1, got ${String(policy.maxAttempts)}`);
  }
  for (const name of ["backoffMs", "maxBackoffMs"] as const) {
    const v = policy[name];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new InvalidArgumentError(`conditionalWrites.${name} must be a number of milliseconds, 0 or more, got ${String(v)}`);
    }
  }
  return policy;
}

/** Probes already made, by store (the same server and bucket answer the same). */
const probes = new Map<string, Promise<void>>();

/**
 * Refuses a store that cannot take conditional writes: one without `setIf` (a folder, memory,
 * HTTP), or one whose server ignores the conditions (found by a probe: a PUT with
 * If-None-Match: * over an existing object, and one with If-Match and a stale ETag, must both be
 * refused). The probe writes one small object under `path` and deletes it; it runs once per store.
 */
export async function requireConditionalWrites(store: Store, path: string): Promise<void> {
  const d = store.descriptor();
  const where = d.kind === "s3" ? `s3://${d.bucket}/${d.prefix}` : `a ${d.kind} store`;
  if (!isWritable(store) || typeof store.setIf !== "function") {
    throw new UnsupportedError(`conditionalWrites: ${where} offers no conditional writes (only S3 stores whose server checks If-Match and If-None-Match do)`);
  }
  // The server, bucket and prefix: where the answer could differ. Not the credentials.
  const cacheKey = d.kind === "s3" ? JSON.stringify([d.endpoint ?? null, d.region, d.bucket, d.prefix]) : null;
  const cached = cacheKey === null ? undefined : probes.get(cacheKey);
  if (cached) return cached;
  const probe = probeConditions(store, path, where);
  if (cacheKey !== null) {
    probes.set(cacheKey, probe);
    // A probe that failed on the way (a network error) is not an answer: the next open asks again.
    probe.catch(() => probes.delete(cacheKey));
  }
  return probe;
}

async function probeConditions(store: WritableStore, path: string, where: string): Promise<void> {
  const setIf = store.setIf!.bind(store);
  const key = nodeKey(path, `.parzarr-conditional-probe-${Math.random().toString(36).slice(2, 12)}`);
  const bytes = (s: string) => new TextEncoder().encode(s);
  const refuse = (what: string) =>
    new UnsupportedError(
      `conditionalWrites: the server of ${where} does not honour conditional writes (${what}); open without conditionalWrites, or take locks with a synchronizer`,
    );
  try {
    const first = await setIf(key, bytes("1"), { ifNoneMatch: "*" });
    if (!first.ok) throw refuse(`a PUT with If-None-Match: * of a new key "${key}" was refused`);
    if ((await setIf(key, bytes("2"), { ifNoneMatch: "*" })).ok) throw refuse("a PUT with If-None-Match: * over an existing object was written");
    const second = await setIf(key, bytes("3"), { ifMatch: first.version });
    if (!second.ok) throw refuse("a PUT with If-Match and the current ETag was refused");
    if ((await setIf(key, bytes("4"), { ifMatch: first.version })).ok) throw refuse("a PUT with If-Match and a stale ETag was written");
  } finally {
    await store.delete(key);
  }
}
