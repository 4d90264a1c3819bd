/**
 * A small static HTTP server for the browser side of parzarr: the viewer (`parzarr view`), the
 * browser tests and the browser benchmark. Serves folders under URL prefixes with byte ranges
 * (FetchStore reads shard indexes and inner chunks by range), HEAD, and, where asked, the
 * cross-origin isolation headers (COOP/COEP) that give a page SharedArrayBuffer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { open, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import type { AddressInfo } from "node:net";

export interface StaticServerOptions {
  /** URL prefix (ending in "/") to folder. The longest matching prefix wins. */
  mounts: Record<string, string>;
  /** Whether responses under this URL path carry COOP/COEP (cross-origin isolation). */
  isolated?: (urlPath: string) => boolean;
  /** 127.0.0.1 unless given. */
  host?: string;
  /** 0 (any free port) unless given. */
  port?: number;
  /** Generated documents (a hierarchy listing, say), by exact URL path; looked at before the mounts. */
  documents?: Record<string, { type: string; body: string | Uint8Array }>;
  /** Called for every request, for tests and benchmarks that count them. */
  onRequest?: (urlPath: string, range: string | undefined) => void;
}

export interface StaticServer {
  server: Server;
  /** http://host:port, no trailing slash. */
  origin: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** The isolation headers: with both, `crossOriginIsolated` is true and SharedArrayBuffer exists. */
export const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
} as const;

/** One byte range of a file of `size` bytes, from a Range header; null when unsatisfiable. */
export function parseRange(header: string, size: number): { start: number; end: number } | null | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined; // not one simple range: send it all
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0) return null;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

function resolveMount(mounts: Record<string, string>, urlPath: string): string | undefined {
  const prefix = Object.keys(mounts)
    .filter((p) => urlPath.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix === undefined) return undefined;
  const root = normalize(mounts[prefix]);
  const file = normalize(join(root, urlPath.slice(prefix.length)));
  // Nothing outside the mounted folder, whatever `..` the URL holds.
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  return file;
}

async function handle(options: StaticServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  let urlPath: string;
  try {
    urlPath = decodeURIComponent(url.pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  const range = req.headers.range;
  options.onRequest?.(urlPath, range);
  const headers: Record<string, string> = { "Accept-Ranges": "bytes", "Cache-Control": "no-store" };
  if (options.isolated?.(urlPath)) Object.assign(headers, ISOLATION_HEADERS);
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, headers).end();
    return;
  }
  const doc = options.documents?.[urlPath];
  if (doc !== undefined) {
    const body = typeof doc.body === "string" ? Buffer.from(doc.body) : doc.body;
    res.writeHead(200, { ...headers, "Content-Type": doc.type, "Content-Length": String(body.length) });
    res.end(req.method === "HEAD" ? undefined : body);
    return;
  }
  let file = resolveMount(options.mounts, urlPath);
  let size = -1;
  if (file !== undefined) {
    let st = await stat(file).catch(() => undefined);
    if (st?.isDirectory()) {
      file = join(file, "index.html");
      st = await stat(file).catch(() => undefined);
    }
    if (st?.isFile()) size = st.size;
  }
  if (file === undefined || size < 0) {
    res.writeHead(404, headers).end();
    return;
  }
  headers["Content-Type"] = TYPES[extname(file)] ?? "application/octet-stream";
  let start = 0;
  let end = size - 1;
  let status = 200;
  if (range !== undefined) {
    const r = parseRange(range, size);
    if (r === null) {
      res.writeHead(416, { ...headers, "Content-Range": `bytes */${size}` }).end();
      return;
    }
    if (r !== undefined) {
      ({ start, end } = r);
      status = 206;
      headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
    }
  }
  const length = Math.max(0, end - start + 1);
  headers["Content-Length"] = String(length);
  if (req.method === "HEAD" || length === 0) {
    res.writeHead(status, headers).end();
    return;
  }
  const fh = await open(file, "r");
  try {
    const body = Buffer.allocUnsafe(length);
    await fh.read(body, 0, length, start);
    res.writeHead(status, headers).end(body);
  } finally {
    await fh.close();
  }
}

export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const server = createServer((req, res) => {
    handle(options, req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  // Browsers keep connections open; closing must not wait for them.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    server,
    origin: `http://${addr.address}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
