/**
 * An HTTP server on 127.0.0.1 that answers each path from a script of faults: the n-th request to
 * a path gets the n-th step, and the last step repeats (so a loop of requests is bounded by the
 * test's own retry limit, never by the server). Every request is recorded with its time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FaultStep =
  /** A full answer. */
  | { status: number; body?: string | Uint8Array; headers?: Record<string, string> }
  /** Headers promising `length` bytes, a few of them, then the socket is destroyed. */
  | { drop: "mid-body"; length: number }
  /** The socket is destroyed before any answer. */
  | { drop: "before-headers" }
  /** No answer at all, until the client gives up. */
  | { hang: true };

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  at: number;
}

export interface FaultServer {
  base: string;
  requests: Recorded[];
  /** Sets the script of a path (replacing what it had) and forgets its request count. */
  script(path: string, steps: FaultStep[]): void;
  /** Requests made to a path so far. */
  count(path: string): number;
  close(): Promise<void>;
}

export async function startFaultServer(): Promise<FaultServer> {
  const scripts = new Map<string, FaultStep[]>();
  const seen = new Map<string, number>();
  const requests: Recorded[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, at: performance.now() });
    const n = seen.get(path) ?? 0;
    seen.set(path, n + 1);
    const steps = scripts.get(path);
    const step = steps?.[Math.min(n, steps.length - 1)] ?? { status: 404 };
    if ("hang" in step) {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    if ("drop" in step) {
      if (step.drop === "before-headers") {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "Content-Length": String(step.length) });
      res.write(new Uint8Array(Math.min(3, step.length - 1)));
      setTimeout(() => req.socket.destroy(), 5);
      return;
    }
    const body = typeof step.body === "string" ? Buffer.from(step.body) : Buffer.from(step.body ?? new Uint8Array(0));
    res.writeHead(step.status, { "Content-Length": String(body.length), ...step.headers });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    script(path, steps) {
      scripts.set(path, steps);
      seen.delete(path);
    },
    count: (path) => seen.get(path) ?? 0,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
