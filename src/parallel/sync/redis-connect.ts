/**
 * Connecting to Redis (chunk leases, the copy queue) with failures that say why. ioredis reports
 * a refused password or an untrusted certificate only as an "error" event and then retries for
 * ever; its connect() promise says no more than "Connection is closed". `connectRedis` makes
 * the first connection, and fails with the server's own reason instead of waiting on it.
 *
 * Redis URLs may carry a password (`redis://:secret@host:6379`, `rediss://user:secret@host`);
 * messages end up in logs and bug reports, so they name the server with the password masked.
 */
import type { Redis, RedisOptions } from "ioredis";
import { StoreError } from "../../errors.js";
import { loadOptional } from "../../optional-deps.js";

export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password === "") return url;
    u.password = "***";
    return u.toString();
  } catch {
    // Not a URL at all: keep nothing before an "@" that could be a password.
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
}

/**
 * A connected client for `url` (redis:// or rediss://, with a password if it carries one), or a
 * StoreError naming the server and the reason. `purpose` ends the message ("for chunk locks").
 * The client's later errors are left to its retry strategy and the commands that fail.
 */
export async function connectRedis(url: string, options: RedisOptions, purpose: string): Promise<Redis> {
  // Loaded on first use (an optional peer dependency): processes that never talk to Redis never load a client.
  const { Redis } = await loadOptional(["ioredis"], `Redis ${purpose}`, () => import("ioredis"));
  const client = new Redis(url, { ...options, lazyConnect: true });
  let lastError: unknown;
  client.on("error", (err: unknown) => {
    // Without a listener ioredis prints every retry.
    lastError = err;
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    const why = lastError ?? err;
    throw new StoreError(`cannot reach Redis at ${redactRedisUrl(url)} ${purpose}: ${why instanceof Error ? why.message : String(why)}`, { cause: why });
  }
  return client;
}
