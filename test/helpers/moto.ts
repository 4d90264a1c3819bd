/**
 * moto's S3 server for the conditional-write tests: unlike s3rver it checks If-Match and
 * If-None-Match on PUT, as AWS S3 does. Started from test/peers/moto_server.py with the first
 * python3 that imports moto (PARZARR_MOTO_PYTHON, else python3 on PATH, else /usr/bin/python3),
 * on a free loopback port, with a bucket made for the test. Without moto the tests skip, and
 * fail when PARZARR_REQUIRE_PEERS=1 (CI, whose .ci/run installs it).
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { AwsClient } from "aws4fetch";
import type { S3StoreOptions } from "../../src/stores/s3.js";
import type { TestS3 } from "./s3.js";
import { noPeersSkip } from "./peers.js";

const MAIN = new URL("../peers/moto_server.py", import.meta.url).pathname;

/** Any credentials do: moto does not check signatures unless told to. */
export const MOTO_CREDENTIALS = { accessKeyId: "parzarr-test", secretAccessKey: "parzarr-test-secret" };

let found: string | null | undefined;

/** The python3 that has moto's server, or null. */
export function motoPython(): string | null {
  if (found !== undefined) return found;
  const candidates = [process.env.PARZARR_MOTO_PYTHON, "python3", "/usr/bin/python3"].filter((p): p is string => !!p);
  found = candidates.find((p) => spawnSync(p, ["-c", "import moto, moto.server, werkzeug, flask"], { encoding: "utf8" }).status === 0) ?? null;
  return found;
}

/** false when moto can be started; otherwise the reason to skip. Throws when peers are required. */
export function motoSkip(): false | string {
  if (noPeersSkip()) return noPeersSkip();
  if (motoPython() !== null) return false;
  const why = "no python3 here imports moto's server (pip install 'moto[server]==5.*' boto3, or set PARZARR_MOTO_PYTHON)";
  if (process.env.PARZARR_REQUIRE_PEERS === "1") throw new Error(`PARZARR_REQUIRE_PEERS=1 but ${why}`);
  return why;
}

/** Starts moto, waits until it answers S3 requests, and makes `bucket`. */
export async function startMoto(bucket = "parzarr"): Promise<TestS3> {
  const python = motoPython();
  if (python === null) throw new Error(String(motoSkip()));
  const child = spawn(python, [MAIN], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (b: Buffer) => {
    // Werkzeug logs every request here: keep only the tail, for a failure's message.
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`moto's server exited (${code}) before listening: ${stderr}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new AwsClient({ ...MOTO_CREDENTIALS, service: "s3", region: "us-east-1", retries: 0 });
  // Listening is not yet answering: ask until the bucket is made.
  let last = "";
  for (let i = 0; ; i++) {
    try {
      const reply = await client.fetch(`${endpoint}/${bucket}`, { method: "PUT" });
      if (reply.ok) break;
      last = `${reply.status} ${await reply.text()}`;
    } catch (err) {
      last = String(err);
    }
    if (i >= 100) {
      child.kill("SIGTERM");
      throw new Error(`moto at ${endpoint} did not make bucket ${bucket}: ${last}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const options: S3StoreOptions = { endpoint, region: "us-east-1", credentials: MOTO_CREDENTIALS, useEnvironment: false };
  return {
    endpoint,
    bucket,
    options,
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
    },
    async close() {
      child.kill("SIGTERM");
      child.stdin!.end();
      await exited;
    },
  };
}
