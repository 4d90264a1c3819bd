/**
 * A static HTTP server for cache tests and benchmarks: serves a folder on 127.0.0.1 with an ETag
 * from each file's size, mtime and inode, answers a matching If-None-Match with 304, and counts
 * requests by status, chunks apart from metadata documents.
 */
import { createServer, type Server } from "node:http";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";

export interface EtagServer {
  /** http://127.0.0.1:port (no trailing slash). */
  base: string;
  /** Chunk requests by status since the last reset. */
  chunks: Record<number, number>;
  /** Metadata document requests (.zarray, .zattrs, .zgroup, .zmetadata, zarr.json) by status. */
  metadata: Record<number, number>;
  reset(): void;
  close(): Promise<void>;
}

const METADATA = /(\.z(array|attrs|group|metadata)|zarr\.json)$/;

export async function startEtagServer(root: string): Promise<EtagServer> {
  const counts = { chunks: {} as Record<number, number>, metadata: {} as Record<number, number> };
  const server: Server = createServer((req, res) => {
    const path = join(root, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    let status = 200;
    let body: Buffer | undefined;
    let etag = "";
    try {
      const info = statSync(path);
      etag = `"${info.size}-${info.mtimeMs}-${info.ino}"`;
      if (req.headers["if-none-match"] === etag) status = 304;
      else body = readFileSync(path);
    } catch {
      status = 404;
    }
    const bucket = METADATA.test(path) ? counts.metadata : counts.chunks;
    bucket[status] = (bucket[status] ?? 0) + 1;
    res.writeHead(status, etag ? { ETag: etag } : {});
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get chunks() {
      return counts.chunks;
    },
    get metadata() {
      return counts.metadata;
    },
    reset() {
      counts.chunks = {};
      counts.metadata = {};
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
