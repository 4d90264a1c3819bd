/** Shared by the pool benchmarks: scratch folders, random-walk data, medians. */
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";

export function scratchFolder(name: string): string {
  const base = new URL("../.bench-data/", import.meta.url).pathname;
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, `${name}-`));
}

/** Random walks along rows, the compressible data of the benchmark. */
export function randomWalk(shape: number[], seed = 1): Float32Array {
  const n = shape.reduce((a, b) => a * b, 1);
  const row = shape[shape.length - 1];
  const out = new Float32Array(n);
  let s = seed >>> 0;
  let v = 0;
  for (let i = 0; i < n; i++) {
    if (i % row === 0) v = 0;
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v += s / 2 ** 32 - 0.5;
    out[i] = v;
  }
  return out;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
