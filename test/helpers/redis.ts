/**
 * A real redis-server (the Debian package) for the tests, started on a free loopback port with
 * nothing persisted. Without one the tests skip, and fail when PARZARR_REQUIRE_PEERS=1 (CI).
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";

export const REDIS_SERVER = process.env.PARZARR_REDIS_SERVER ?? "redis-server";

/** false when redis-server can be started; otherwise the reason to skip. Throws when peers are required. */
export function redisSkip(): false | string {
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
  close(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
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
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        async close() {
          child.kill("SIGTERM");
          await exited;
        },
      };
    }
    // Someone took the port between the probe and the start: try another.
    if (attempt >= 3) throw new Error(`redis-server did not start:\n${log}`);
  }
}
