/**
 * A real redis-server (the Debian package) for the tests, started on a free loopback port with
 * nothing persisted. Without one the tests skip, and fail when PARZARR_REQUIRE_PEERS=1 (CI).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { noPeersSkip } from "./peers.js";

export const REDIS_SERVER = process.env.PARZARR_REDIS_SERVER ?? "redis-server";

/** false when redis-server can be started; otherwise the reason to skip. Throws when peers are required. */
export function redisSkip(): false | string {
  if (noPeersSkip()) return noPeersSkip();
  if (spawnSync(REDIS_SERVER, ["--version"], { encoding: "utf8" }).status === 0) return false;
  const why = `${REDIS_SERVER} is not installed (apt-get install -y redis-server)`;
  if (process.env.PARZARR_REQUIRE_PEERS === "1") throw new Error(`PARZARR_REQUIRE_PEERS=1 but ${why}`);
  return why;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

export interface TestRedis {
  url: string;
  port: number;
  /**
   * What a child process needs in its environment to reach this server: with TLS, the test CA
   * in NODE_EXTRA_CA_CERTS (read by Node at start-up, so only child processes can be given it).
   */
  env: Record<string, string>;
  /** ioredis options for a client in the test process itself (the CA to trust, with TLS). */
  clientOptions: { tls?: { ca: string } };
  close(): Promise<void>;
}

export interface StartRedisOptions {
  /** Serve TLS only (`rediss://`), with a certificate for 127.0.0.1 signed by a CA made here. */
  tls?: boolean;
  /** Require this password (`--requirepass`); the URL carries it as `redis://:password@host:port`. */
  password?: string;
}

/** A CA and a server certificate for 127.0.0.1 made by openssl, in a fresh folder. */
function makeCertificates(): { dir: string; ca: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "parzarr-redis-tls-"));
  const f = (name: string) => join(dir, name);
  const openssl = (args: string[]) => {
    const r = spawnSync("openssl", args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  writeFileSync(f("ext.cnf"), "subjectAltName=IP:127.0.0.1\n");
  openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=parzarr test CA", "-keyout", f("ca.key"), "-out", f("ca.pem")]);
  openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", f("server.key"), "-out", f("server.csr")]);
  openssl(["x509", "-req", "-in", f("server.csr"), "-CA", f("ca.pem"), "-CAkey", f("ca.key"), "-CAcreateserial", "-days", "1", "-extfile", f("ext.cnf"), "-out", f("server.pem")]);
  return { dir, ca: f("ca.pem"), cert: f("server.pem"), key: f("server.key") };
}

export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  const certs = options.tls ? makeCertificates() : undefined;
  const removeCerts = () => certs && rmSync(certs.dir, { recursive: true, force: true });
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const listen = certs
      ? ["--port", "0", "--tls-port", String(port), "--tls-cert-file", certs.cert, "--tls-key-file", certs.key, "--tls-ca-cert-file", certs.ca, "--tls-auth-clients", "no"]
      : ["--port", String(port)];
    const auth = options.password === undefined ? [] : ["--requirepass", options.password];
    const child = spawn(REDIS_SERVER, [...listen, ...auth, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let log = "";
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout!.on("data", (b: Buffer) => {
        log += b.toString();
        if (log.includes("Ready to accept connections")) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (ready) {
      const userinfo = options.password === undefined ? "" : `:${encodeURIComponent(options.password)}@`;
      return {
        url: `${certs ? "rediss" : "redis"}://${userinfo}127.0.0.1:${port}`,
        port,
        env: certs ? { NODE_EXTRA_CA_CERTS: certs.ca } : {},
        clientOptions: certs ? { tls: { ca: readFileSync(certs.ca, "utf8") } } : {},
        async close() {
          child.kill("SIGTERM");
          await exited;
          removeCerts();
        },
      };
    }
    // Someone took the port between the probe and the start: try another.
    if (attempt >= 3) {
      removeCerts();
      throw new Error(`redis-server did not start:\n${log}`);
    }
  }
}
