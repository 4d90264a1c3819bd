/**
 * RedisSynchronizer against a real redis-server started by the test on a loopback port: leases
 * exclude each other, time out with a typed error, are renewed while held, expire when their
 * holder is gone, and are released only by their holder; a password in the URL is used, and a
 * wrong one is a typed error. Then 4 processes write unaligned, overlapping regions of one array
 * on S3 (s3rver), their leases in a Redis reached over TLS with a password: nothing is lost with
 * the synchronizer, and the same run without it loses elements (so the test can fail).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import {
  createArray,
  InvalidArgumentError,
  LockTimeoutError,
  MemoryStore,
  RedisSynchronizer,
  S3Store,
  slice,
  ZarrError,
  type NDArray,
} from "../src/index.js";
import { raceShape, SMALL_RACE, type RaceWorkload } from "./helpers/race-workload.js";
import { raceRounds } from "./helpers/race-rounds.js";
import { redisSkip, startRedis, type TestRedis } from "./helpers/redis.js";
import { startS3, type TestS3 } from "./helpers/s3.js";

const skip = redisSkip();

/** A promise with its resolver, to hold a lock exactly as long as a test wants. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe("RedisSynchronizer", { skip }, () => {
  let redis: TestRedis;
  let raw: Redis;
  const syncs: RedisSynchronizer[] = [];
  const sync = (options: ConstructorParameters<typeof RedisSynchronizer>[1] = {}) => {
    const s = new RedisSynchronizer(redis.url, options);
    syncs.push(s);
    return s;
  };
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  after(async () => {
    await Promise.all(syncs.map((s) => s.close()));
    raw.disconnect();
    await redis.close();
  });

  test("one holder at a time; a waiter past timeoutMs gets a LockTimeoutError naming the key", async () => {
    const a = sync();
    const held = gate();
    const entered = gate();
    const holding = a.withLock("s3:b/p", "c/0/0", async () => {
      entered.open();
      await held.promise;
      return "first";
    });
    await entered.promise;
    const err = await sync({ timeoutMs: 300 }).withLock("s3:b/p", "c/0/0", async () => "never").catch((e: unknown) => e);
    assert.ok(err instanceof LockTimeoutError, String(err));
    assert.equal(err.key, "c/0/0");
    // Another key, or the same key of another store, is not blocked.
    assert.equal(await sync({ timeoutMs: 300 }).withLock("s3:b/p", "c/0/1", async () => "free"), "free");
    assert.equal(await sync({ timeoutMs: 300 }).withLock("s3:b/q", "c/0/0", async () => "free"), "free");
    held.open();
    assert.equal(await holding, "first");
    assert.equal(await sync({ timeoutMs: 300 }).withLock("s3:b/p", "c/0/0", async () => "second"), "second");
    assert.deepEqual(await raw.keys("parzarr:lock:*"), [], "every lease released");
  });

  test("a lease is renewed while held, so a long write keeps others out", async () => {
    const a = sync({ leaseMs: 150 });
    const order: string[] = [];
    const entered = gate();
    const first = a.withLock("scope", "k", async () => {
      entered.open();
      // Several leases long: without renewal the waiter would get in.
      await new Promise((r) => setTimeout(r, 700));
      order.push("first done");
    });
    await entered.promise;
    const second = sync({ leaseMs: 150, timeoutMs: 10_000 }).withLock("scope", "k", async () => void order.push("second in"));
    await Promise.all([first, second]);
    assert.deepEqual(order, ["first done", "second in"]);
  });

  test("a dead holder's lease runs out, and the next writer goes on", async () => {
    const s = sync({ timeoutMs: 10_000 });
    // What a holder leaves when it dies: a lease with its token, which nobody renews.
    await raw.set(s.lockKey("scope", "dead"), "token-of-a-dead-process", "PX", 300);
    const seen = await s.withLock("scope", "dead", async () => raw.get(s.lockKey("scope", "dead")));
    assert.notEqual(seen, "token-of-a-dead-process");
    assert.match(String(seen), /^[0-9a-f]{32}$/);
  });

  test("only the holder releases: a lease taken over meanwhile is left alone, and the write reports it", async () => {
    const s = sync();
    const key = s.lockKey("scope", "stolen");
    const err = await s
      .withLock("scope", "stolen", async () => {
        await raw.set(key, "someone-else");
      })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ZarrError && err.code === "STORE_ERROR", String(err));
    assert.match(err.message, /lock on chunk "stolen" was lost/);
    assert.equal(await raw.get(key), "someone-else");
    await raw.del(key);
  });

  test("bad URLs and options are typed errors; an unreachable Redis is a StoreError", async () => {
    assert.throws(() => new RedisSynchronizer("http://x"), InvalidArgumentError);
    assert.throws(() => new RedisSynchronizer(redis.url, { leaseMs: -1 }), InvalidArgumentError);
    const dead = new RedisSynchronizer("redis://127.0.0.1:1");
    await assert.rejects(dead.withLock("s", "k", async () => 1), (e: unknown) => e instanceof ZarrError && e.code === "STORE_ERROR" && /cannot reach Redis/.test(e.message));
    await dead.close();
  });

  test("partial-chunk writes of an array take the leases, inline and on worker threads", async () => {
    const s = sync();
    const a = await createArray(new MemoryStore(), { shape: [10], chunks: [4], dtype: "uint8", synchronizer: s });
    await a.set([slice(1, 3)], 7);
    await a.set([slice(5, 6)], 9, { threads: 0 });
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Uint8Array), [0, 7, 7, 0, 0, 9, 0, 0, 0, 0]);
    assert.deepEqual(await raw.keys("parzarr:lock:*"), []);
  });
});

describe("RedisSynchronizer with a password", { skip }, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis({ password: "s3cret pass" });
  });
  after(async () => {
    await redis.close();
  });

  test("takes leases with the password in the URL; a wrong or missing one is a StoreError with the server's reason, the password masked", async () => {
    assert.match(redis.url, /^redis:\/\/:s3cret%20pass@127\.0\.0\.1:\d+$/);
    const s = new RedisSynchronizer(redis.url);
    assert.equal(await s.withLock("scope", "k", async () => "in"), "in");
    await s.close();
    for (const [url, reason] of [
      [redis.url.replace("s3cret%20pass", "wrong"), /WRONGPASS/],
      [redis.url.replace(":s3cret%20pass@", ""), /NOAUTH/],
    ] as const) {
      const bad = new RedisSynchronizer(url, { timeoutMs: 1000 });
      const err = await bad.withLock("scope", "k", async () => "never").catch((e: unknown) => e);
      await bad.close();
      assert.ok(err instanceof ZarrError && err.code === "STORE_ERROR", String(err));
      assert.match(err.message, /cannot reach Redis at redis:\/\/(:\*\*\*@)?127\.0\.0\.1:\d+ for chunk locks/);
      assert.match(err.message, reason);
      assert.doesNotMatch(err.message, /wrong|s3cret/);
    }
  });
});

describe("4 processes writing one S3 array", { skip }, () => {
  let redis: TestRedis;
  let s3: TestS3;
  before(async () => {
    // TLS and a password at once, the way a managed Redis is reached (the tests above use plain
    // redis://). The writers trust the test's own CA through NODE_EXTRA_CA_CERTS, as a deployment
    // with a private CA would.
    [redis, s3] = await Promise.all([startRedis({ tls: true, password: "pw" }), startS3()]);
  });
  after(async () => {
    await Promise.all([redis.close(), s3.close()]);
  });
  // Smaller than SMALL_RACE (s3rver serves one request at a time): 12 stripes of 5 columns over
  // 2 chunks of 32, so every chunk is read, merged and written by all 4 processes each round.
  const w: RaceWorkload = { ...SMALL_RACE, perWriter: 3, rows: 8 };
  // One writer plans its writes on 2 worker threads, which take the same leases.
  const threadsOf = (i: number): number => (i === 1 ? 2 : 0);
  const create = (root: string) =>
    createArray(new S3Store(root, s3.options), { shape: raceShape(w), chunks: w.chunks, dtype: "int32", fillValue: 0, zarrFormat: 3 });

  test("with a RedisSynchronizer over TLS (rediss://) and a password: 0 elements lost in every round", async () => {
    assert.match(redis.url, /^rediss:\/\/:pw@/);
    const root = `s3://${s3.bucket}/race-locked`;
    await create(root);
    const rounds = await raceRounds({ s3, root, lock: redis.url, rounds: 2, workload: w, threadsOf, env: redis.env });
    assert.deepEqual(rounds, [{ lost: 0, errors: [] }, { lost: 0, errors: [] }]);
    const raw = new Redis(redis.url, redis.clientOptions);
    assert.deepEqual(await raw.keys("parzarr:lock:*"), [], "no lease left behind");
    raw.disconnect();
  });

  test("without one, the same writers lose elements", async () => {
    const root = `s3://${s3.bucket}/race-unlocked`;
    await create(root);
    const rounds = await raceRounds({ s3, root, lock: "-", rounds: 2, workload: w, threadsOf });
    // Lost elements, or a writer that read a chunk while another was writing it (s3rver's PUT is
    // not atomic; S3's is): either way, unsynchronised read-modify-writes are not safe.
    const harmed = rounds.filter((r) => r.lost !== 0 || r.errors.some((e) => e.startsWith("CORRUPT_CHUNK")));
    assert.ok(harmed.length > 0, `no round lost anything (${JSON.stringify(rounds)}): the locked run proves nothing`);
  });
});
