/**
 * What the comparison's parts share: timing, the "same data?" checksum, zarrita.js (loaded when
 * installed) and child processes that answer in JSON. Kept apart from compare.ts so etl.ts and
 * volume.ts do not import the module that imports them.
 */
import { spawn } from "node:child_process";
import type { JsonObject } from "../../src/metadata/json.js";

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const now = (): number => performance.now() / 1000;

/** The sum of every 97th row's every 89th value, in float64: a cheap "same data?" check. */
export function checksum(data: ArrayLike<number>, cols: number, rows: number): number {
  let s = 0;
  for (let r = 0; r < rows; r += 97) for (let c = 0; c < cols; c += 89) s += data[r * cols + c];
  return s;
}

export async function timeRuns(repeats: number, warmup: boolean, run: () => Promise<void>, before?: () => void): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < repeats + (warmup ? 1 : 0); i++) {
    before?.();
    const t = now();
    await run();
    const dt = now() - t;
    if (!warmup || i > 0) samples.push(dt);
  }
  return samples;
}

export interface ZarritaModule {
  open(loc: unknown, opts: { kind: "array" }): Promise<unknown>;
  root(store: unknown): { resolve(path: string): unknown };
  get(arr: unknown): Promise<{ data: ArrayLike<number>; shape: number[]; stride: number[] }>;
  set(arr: unknown, sel: null, value: { data: Float32Array; shape: number[]; stride: number[] }): Promise<void>;
  create(loc: unknown, opts: { shape: number[]; chunkShape: number[]; dtype: "float32"; codecs: JsonObject[]; fillValue: number }): Promise<unknown>;
}

export async function loadZarrita(): Promise<{ zarrita: ZarritaModule; Store: new (root: string) => unknown } | string> {
  try {
    // Dynamic and by variable name: zarrita is a devDependency, absent from installed packages.
    const zid = "zarrita";
    const sid = "@zarrita/storage/fs";
    const zarrita = (await import(zid)) as ZarritaModule;
    const storage = (await import(sid)) as { default: new (root: string) => unknown };
    return { zarrita, Store: storage.default };
  } catch (err) {
    return `zarrita.js is not installed (${err instanceof Error ? err.message.split("\n")[0] : String(err)}): skipped`;
  }
}

/** Runs a child process and parses the JSON on its last line of output; fails with its last stderr lines. */
export function runJsonChild<T>(what: string, command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: env ?? process.env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${what} failed (exit ${code}): ${err.trim().split("\n").slice(-3).join(" | ")}`));
      else resolvePromise(JSON.parse(out.trim().split("\n").pop()!) as T);
    });
  });
}
