// Runs inside Chromium (test/browser.test.ts). Plain JavaScript on purpose: it is served as it is.

/** SHA-256 of a typed array's bytes, hex (copied first: digest refuses shared memory). */
async function sha256(data) {
  const bytes = new Uint8Array(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

const isShared = (data) => typeof SharedArrayBuffer === "function" && data.buffer instanceof SharedArrayBuffer;

/** Reads every array whole, inline and on a pool of Web Workers (explicit and default). */
export async function readArrays({ lib, workerUrl, arrays }) {
  const pz = await import(lib);
  const pool = new pz.WorkerPool({ threads: 2, workerUrl });
  const results = [];
  for (const url of arrays) {
    const a = await pz.openArray(url, { mode: "r" });
    for (const mode of ["inline", "workers", "default pool"]) {
      let peak = 0;
      const watch = (p) => () => void (peak = Math.max(peak, p.busy));
      const options =
        mode === "inline" ? { threads: 0 } : mode === "workers" ? { pool, threads: 2, onProgress: watch(pool) } : { threads: 2 };
      const r = await a.get(null, options);
      results.push({ url, mode, shape: r.shape, sha256: await sha256(r.data), shared: isShared(r.data), peak });
    }
  }
  const poolShared = pool.sharedMemory;
  await pool.close();
  return { isolated: self.crossOriginIsolated, sharedArrayBuffer: typeof SharedArrayBuffer, poolShared, results };
}

/** Writes that must work without SharedArrayBuffer: partial chunks on a MemoryStore, inline. */
export async function writeInMemory({ lib }) {
  const pz = await import(lib);
  const a = await pz.createArray(new pz.MemoryStore(), { shape: [10, 10], chunks: [4, 4], dtype: "int32", fillValue: -1 });
  await a.set([pz.slice(1, 7), pz.slice(2, 9)], 5);
  await Promise.all([a.set([3, null], 9), a.set([null, 3], 8)]);
  const r = await a.get(null);
  return Array.from(r.data);
}

/** Errors a user meets, by code. */
export async function failures({ lib, workerUrl, arrayUrl }) {
  const pz = await import(lib);
  const out = {};
  try {
    await pz.openArray("/not/a/url/path", { mode: "r" });
  } catch (e) {
    out.path = e.code;
  }
  try {
    new pz.WorkerPool({ threads: 1, executor: "piscina" });
  } catch (e) {
    out.piscina = e.code;
  }
  // A worker URL that does not load fails the read (no hang), and the pool still closes.
  const pool = new pz.WorkerPool({ threads: 1, workerUrl: workerUrl + ".missing.js" });
  const a = await pz.openArray(arrayUrl, { mode: "r" });
  out.badWorker = await a.get(null, { pool, threads: 1 }).then(() => "read", (e) => e.message);
  await pool.close();
  out.closed = pool.closed;
  return out;
}

/**
 * An array written on Web Workers where memory is shared, else inline: a whole write, then two
 * concurrent unaligned writes that share chunks. Read back inline, on workers and through a
 * second store; the stored objects' digests come back too. `openStore()` gives a fresh store
 * object on the same data each call.
 */
async function storeRoundTrip(pz, { workerUrl, plan }, openStore) {
  const store = openStore();
  const a = await pz.createArray(store, plan.create);
  const pool = new pz.WorkerPool({ threads: 2, workerUrl });
  let peak = 0;
  const onProgress = () => void (peak = Math.max(peak, pool.busy));
  const n = plan.create.shape.reduce((x, y) => x * y, 1);
  const data = Float32Array.from({ length: n }, (_, i) => Math.round(Math.cos(i / 11) * 1000) / 8);
  await a.set(null, { data, shape: plan.create.shape }, { pool, threads: 2, onProgress });
  const sel = (s) => s.map(([start, stop]) => pz.slice(start, stop));
  await Promise.all(plan.writes.map(([s, v]) => a.set(sel(s), v, { pool, threads: 2, onProgress })));
  const inline = await a.get(null, { threads: 0 });
  const onWorkers = await a.get(null, { pool, threads: 2 });
  const reopened = await (await pz.openArray(openStore(), { mode: "r" })).get(null, { threads: 0 });
  const objects = {};
  for (const key of await store.list("")) objects[key] = await sha256(await store.get(key));
  await pool.close();
  return {
    isolated: self.crossOriginIsolated,
    writePeak: peak,
    inline: await sha256(inline.data),
    workers: await sha256(onWorkers.data),
    reopened: await sha256(reopened.data),
    objects,
  };
}

/** The round trip on the Origin Private File System (workers use sync access handles). */
export async function opfsRoundTrip({ lib, workerUrl, root, plan }) {
  const pz = await import(lib);
  await new pz.OPFSStore(root).deletePrefix("");
  return storeRoundTrip(pz, { workerUrl, plan }, () => new pz.OPFSStore(root));
}

/**
 * The round trip on S3 (`url` with `options`: endpoint, credentials), then an array Node wrote
 * there (`nodeUrl`) read whole, inline and on Web Workers, which open the store themselves. The
 * page takes S3Store from parzarr-stores.js (`parzarr/stores`) beside the library, as a page
 * without a bundler does: the browser entry leaves it out.
 */
export async function s3RoundTrip({ lib, workerUrl, url, nodeUrl, options, plan }) {
  const pz = await import(lib);
  const { S3Store } = await import(lib.replace(/parzarr\.js$/, "parzarr-stores.js"));
  if (pz.S3Store !== undefined) throw new Error("the browser entry exports S3Store");
  const written = await storeRoundTrip(pz, { workerUrl, plan }, () => new S3Store(url, options));
  const a = await pz.openArray(new S3Store(nodeUrl, options), { mode: "r" });
  const pool = new pz.WorkerPool({ threads: 2, workerUrl });
  let peak = 0;
  const inline = await a.get(null, { threads: 0 });
  const onWorkers = await a.get(null, { pool, threads: 2, onProgress: () => void (peak = Math.max(peak, pool.busy)) });
  await pool.close();
  return { written, read: { inline: await sha256(inline.data), workers: await sha256(onWorkers.data), peak } };
}

/**
 * A Web Worker that dies while it holds a chunk lock. The pool's workers come from
 * `createWorker`, wrapped so that the page can end one the way a crash does: the worker stops
 * (terminate) and its "error" listeners hear of it. The page waits until a slot of the lock
 * table is taken by the worker's partial write of one large chunk, kills the worker, and writes
 * the same chunk again inline: that write must finish (before the fix it waited for ever).
 */
export async function deadWorkerLock({ lib, workerUrl, root }) {
  const pz = await import(lib);
  const killers = [];
  const createWorker = () => {
    const w = new Worker(workerUrl, { type: "module" });
    const errorListeners = [];
    killers.push(() => {
      w.terminate();
      for (const l of errorListeners) l(new ErrorEvent("error", { message: "the worker crashed (killed by the test)" }));
    });
    return {
      postMessage: (m, t) => w.postMessage(m, t),
      addEventListener: (type, l) => (type === "error" ? errorListeners.push(l) : w.addEventListener(type, l)),
      removeEventListener: (type, l) => w.removeEventListener(type, l),
      terminate: () => w.terminate(),
    };
  };
  const store = new pz.OPFSStore(root);
  await store.deletePrefix("");
  // One 16 MiB chunk: its read-modify-write on the worker takes long enough to be caught.
  const n = 2048;
  const a = await pz.createArray(store, { shape: [n, n], chunks: [n, n], dtype: "float32", fillValue: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 5, checksum: false } }] });
  await a.set(null, { data: Float32Array.from({ length: n * n }, (_, i) => i % 1000), shape: [n, n] }, { threads: 0 });
  const pool = new pz.WorkerPool({ threads: 1, createWorker });
  const slots = new Int32Array(globalThis[Symbol.for("parzarr.lockTable.v1")] ?? new ArrayBuffer(4));
  const first = a.set([pz.slice(0, 10), pz.slice(0, 10)], 1, { pool, threads: 1 }).then(() => "written", (e) => `failed: ${e.code ?? ""} ${e.message}`);
  const deadline = Date.now() + 30_000;
  const taken = () => slots.some((v) => v !== 0);
  while (!taken() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
  const caught = taken();
  killers.forEach((kill) => kill());
  const firstOutcome = await first;
  const freed = !taken();
  const second = await Promise.race([
    a.set([pz.slice(5, 15), pz.slice(5, 15)], 2, { threads: 0 }).then(() => "written", (e) => `failed: ${e.message}`),
    new Promise((r) => setTimeout(() => r("stuck"), 20_000)),
  ]);
  const probe = second === "written" ? Array.from((await a.get([pz.slice(0, 16), 7], { threads: 0 })).data) : [];
  await pool.close();
  await store.deletePrefix("");
  return { caught, firstOutcome, freed, second, probe };
}

/**
 * A plain object store (a Map with only get and set), written and read on 2 Web Workers: the
 * page moves its bytes, the workers encode and decode. What the pool ran comes back per message.
 */
export async function plainStoreOnWorkers({ lib, workerUrl, plan }) {
  const pz = await import(lib);
  const files = new Map();
  const store = { get: async (key) => files.get(key), set: async (key, value) => void files.set(key, new Uint8Array(value)) };
  const pool = new pz.WorkerPool({ threads: 2, workerUrl });
  const messages = [];
  const run = pool.run.bind(pool);
  pool.run = async (m) => {
    const o = await run(m);
    messages.push({ kind: m.task.kind, store: m.task.store.kind, items: m.task.items.length, fetched: m.fetched?.length ?? 0, status: o.status, chunks: o.chunks, stored: o.stored?.length ?? 0 });
    return o;
  };
  const settings = { pool, threads: 2 };
  const a = await pz.createArray(store, plan.create);
  const n = plan.create.shape.reduce((x, y) => x * y, 1);
  await a.set(null, { data: Float32Array.from({ length: n }, (_, i) => i / 4), shape: plan.create.shape }, settings);
  await a.set(plan.region.map(([start, stop, step]) => pz.slice(start, stop, step)), plan.value, settings);
  const writes = messages.splice(0);
  const workers = await a.get(null, settings);
  const reads = messages.splice(0);
  const inline = await a.get(null, { threads: 0 });
  const poolShared = pool.sharedMemory;
  await pool.close();
  const objects = {};
  for (const [key, bytes] of files) objects[key] = await sha256(bytes);
  return { isolated: self.crossOriginIsolated, poolShared, writes, reads, workers: await sha256(workers.data), inline: await sha256(inline.data), objects };
}

/**
 * A user's store class of a registered kind (http-kind.js) read on 2 Web Workers, which import
 * the module and open the store themselves: no chunk bytes come with the tasks, and the page's
 * store object reads no chunk.
 */
export async function registeredStoreOnWorkers({ lib, workerUrl, moduleUrl, arrayUrl }) {
  const pz = await import(lib);
  const { HttpStore } = await import(moduleUrl);
  pz.registerStoreKind("test-http", moduleUrl);
  const store = new HttpStore(arrayUrl);
  const pool = new pz.WorkerPool({ threads: 2, workerUrl });
  const messages = [];
  const run = pool.run.bind(pool);
  pool.run = async (m) => {
    const o = await run(m);
    messages.push({ store: m.task.store.kind, module: m.storeModule, items: m.task.items.length, fetched: m.fetched?.length ?? 0, status: o.status, chunks: o.chunks });
    return o;
  };
  const a = await pz.openArray(store, { mode: "r" });
  const workers = await a.get(null, { pool, threads: 2 });
  await pool.close();
  const pageGets = [...store.gets];
  const inline = await a.get(null, { threads: 0 });
  return { messages, pageGets, workers: await sha256(workers.data), inline: await sha256(inline.data) };
}
