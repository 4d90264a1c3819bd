/**
 * Rounds of the race workload (race-workload.ts) run by W writer processes (race-writer.ts in
 * `--serve` mode) on one S3 array: each round every writer writes all its regions at once, then
 * the array is read back here and the elements that do not hold the round's values are counted.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { openArray, S3Store, ZarrError, type NDArray } from "../../src/index.js";
import { countLost, type RaceWorkload } from "./race-workload.js";
import type { TestS3 } from "./s3.js";

const WRITER = new URL("./race-writer.ts", import.meta.url).pathname;

export interface RoundResult {
  /** Elements that do not hold what the round wrote; -1 when the array could not be read back. */
  lost: number;
  /** What the writers' rounds failed with ("CODE: message"). */
  errors: string[];
}

export interface RaceRun {
  s3: TestS3;
  /** The array's s3:// URL. */
  root: string;
  /** A lock folder, a redis:// URL, or "-" for none. */
  lock: string;
  rounds: number;
  workload: RaceWorkload;
  /** Worker threads of writer i (0: inline). */
  threadsOf?: (writer: number) => number;
  /** More race-writer flags (`--conditional`). */
  flags?: string[];
  /** Environment for the writers, on top of the server's. */
  env?: Record<string, string>;
}

export async function raceRounds(run: RaceRun): Promise<RoundResult[]> {
  const { s3, root, lock, rounds, workload: w } = run;
  const threadsOf = run.threadsOf ?? (() => 0);
  const kids = Array.from({ length: w.writers }, (_, i) =>
    spawn(process.execPath, ["--import", "tsx", WRITER, root, lock, String(i), "0", String(threadsOf(i)), JSON.stringify(w), "--serve", ...(run.flags ?? [])], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, ...s3.env, ...run.env },
    }),
  );
  const answers = kids.map((k) => createInterface({ input: k.stdout })[Symbol.asyncIterator]());
  const out: RoundResult[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      kids.forEach((k) => k.stdin.write(`${round}\n`));
      const errors: string[] = [];
      for (const a of answers) {
        const next = await a.next();
        assert.ok(!next.done, "a writer died");
        const answer = JSON.parse(next.value) as { round: number; error?: string };
        assert.equal(answer.round, round);
        if (answer.error) errors.push(answer.error);
      }
      try {
        const got = (await (await openArray(new S3Store(root, s3.options), { mode: "r" })).get()) as NDArray;
        out.push({ lost: countLost(w, round, got.data as Int32Array), errors });
      } catch (err) {
        if (!(err instanceof ZarrError && err.code === "CORRUPT_CHUNK")) throw err;
        out.push({ lost: -1, errors: [...errors, `CORRUPT_CHUNK when read back: ${err.message}`] });
      }
    }
  } finally {
    kids.forEach((k) => k.stdin.end());
    await Promise.all(kids.map((k) => new Promise((r) => (k.exitCode !== null ? r(null) : k.on("exit", r)))));
  }
  return out;
}
