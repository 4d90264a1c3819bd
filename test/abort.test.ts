/**
 * Abort reaches running work: a read over HTTP from a server that never answers a chunk request
 * rejects with ABORTED once the signal fires, inline and on both pool executors, and the pending
 * request is closed (the fetch itself was aborted, not just forgotten).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse, type Server } from "node:http";
import { join } from "node:path";
import { WorkerPool, createArray, openArray, ZarrError } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const pools = {
  piscina: new WorkerPool({ threads: 1, executor: "piscina" }),
  comlink: new WorkerPool({ threads: 1, executor: "comlink" }),
};

/** A server over a folder whose chunk requests hang until the test ends (or the client leaves). */
interface HangingServer {
  base: string;
  /** Resolves on the next chunk request that arrives. */
  nextChunkRequest(): Promise<{ closed: Promise<void> }>;
}

let server: Server;
const held: ServerResponse[] = [];
let hanging: HangingServer;
let root: string;

before(async () => {
  root = scratchDir();
  const a = await createArray(root, { shape: [4, 4], chunks: [2, 2], dtype: "int32", fillValue: 0 });
  await a.set(null, 7);
  let waiters: ((r: { closed: Promise<void> }) => void)[] = [];
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (path.endsWith("zarr.json")) {
      res.writeHead(200).end(readFileSync(join(root, path)));
      return;
    }
    // A chunk: hold it. The promise settles when the client closes the connection (its abort).
    held.push(res);
    const closed = new Promise<void>((resolve) => res.on("close", () => resolve()));
    const wake = waiters;
    waiters = [];
    for (const w of wake) w({ closed });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  hanging = {
    base: `http://127.0.0.1:${port}`,
    nextChunkRequest: () => new Promise((resolve) => waiters.push(resolve)),
  };
});

after(async () => {
  for (const res of held) res.destroy();
  await Promise.all(Object.values(pools).map((p) => p.close()));
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

for (const where of ["inline", "piscina", "comlink"] as const) {
  test(`abort during a hanging chunk fetch rejects with ABORTED and closes the request (${where})`, async () => {
    const a = await openArray(hanging.base, { mode: "r" });
    const controller = new AbortController();
    const arrived = hanging.nextChunkRequest();
    const options = where === "inline" ? { threads: 0 } : { threads: 1, pool: pools[where] };
    const read = a.get(null, { ...options, signal: controller.signal });
    const outcome = read.then(
      () => "resolved",
      (err: unknown) => err,
    );
    const { closed } = await arrived;
    controller.abort();
    const err = await outcome;
    assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
    assert.equal(err.code, "ABORTED");
    // The server never answered: the read could only end because the request was aborted.
    await closed;
  });
}
