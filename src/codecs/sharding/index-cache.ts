/**
 * Shard indexes read by partial reads, kept per thread so that reading a few inner chunks of the
 * same shard again costs no index request. A scope is one shard (store + key); nested shards are
 * entries under their outer shard's scope, so a write to the shard forgets them all at once.
 *
 * Writes call `forgetShardIndexes`: at once in this thread, and through a BroadcastChannel in the
 * other threads of the process (delivered when their event loop next turns, so best effort). A
 * partial read that fails with a cached index retries once with a fresh one (see codec.ts). A
 * shard rewritten by another process without a layout change that breaks decoding can still be
 * read through a stale index until the entry is evicted or `clearShardIndexCache()` is called.
 */
import type { ShardIndex } from "./shard-index.js";

const MAX_SCOPES = 1024;
const scopes = new Map<string, Map<string, ShardIndex>>();

/** A cache key is `scope` or `scope` + "\0" + the inner path of a nested shard. */
function split(cacheKey: string): [string, string] {
  const at = cacheKey.indexOf("\0");
  return at === -1 ? [cacheKey, ""] : [cacheKey.slice(0, at), cacheKey.slice(at + 1)];
}

export function cachedShardIndex(cacheKey: string): ShardIndex | undefined {
  const [scope, sub] = split(cacheKey);
  return scopes.get(scope)?.get(sub);
}

export function rememberShardIndex(cacheKey: string, index: ShardIndex): void {
  const [scope, sub] = split(cacheKey);
  let entries = scopes.get(scope);
  if (!entries) {
    // Oldest first out: a Map iterates in insertion order.
    if (scopes.size >= MAX_SCOPES) scopes.delete(scopes.keys().next().value as string);
    entries = new Map();
    scopes.set(scope, entries);
  }
  entries.set(sub, index);
}

let channel: BroadcastChannel | null | undefined;

/**
 * The channel to the other threads (Node and browsers both have a global BroadcastChannel),
 * opened on first use; in Node it must not keep the process alive.
 */
function threads(): BroadcastChannel | null {
  if (channel === undefined) {
    channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("parzarr:shard-index") : null;
    if (channel) {
      channel.onmessage = (event: { data: unknown }) => {
        if (typeof event.data === "string") scopes.delete(event.data);
      };
      (channel as unknown as { unref?: () => void }).unref?.();
    }
  }
  return channel;
}

/** Forgets the index of a shard (and of shards nested in it) after it was written or deleted. */
export function forgetShardIndexes(scope: string): void {
  scopes.delete(scope);
  threads()?.postMessage(scope);
}

/** The cache scope of a chunk key in a store, from the store's serialisable descriptor. */
export function shardScope(storeId: string, key: string): string {
  return `${storeId}\u0001${key}`;
}

export function clearShardIndexCache(): void {
  scopes.clear();
}
