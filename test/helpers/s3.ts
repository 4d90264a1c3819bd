/**
 * A real S3-speaking server for the tests: s3rver (a devDependency) on 127.0.0.1, in a child
 * process (see s3rver-main.ts) with a fresh folder and bucket, and the options (or environment)
 * an S3Store needs to reach it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { S3StoreOptions } from "../../src/stores/s3.js";

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Store options that reach this server, nothing read from the environment. */
  options: S3StoreOptions;
  /** The AWS_* variables a child process (or the CLI) uses to reach it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** s3rver's own default credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

const MAIN = new URL("./s3rver-main.ts", import.meta.url).pathname;

/** `cors`: the bucket answers browser pages of any origin (s3rver-main.ts). */
export async function startS3(bucket = "parzarr", options: { cors?: boolean } = {}): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), "parzarr-s3rver-"));
  const child = spawn(process.execPath, ["--openssl-legacy-provider", "--import", "tsx", MAIN, dir, bucket, ...(options.cors ? ["--cors"] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    options: { endpoint, region: "us-east-1", credentials: S3RVER_CREDENTIALS, useEnvironment: false },
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    async close() {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
