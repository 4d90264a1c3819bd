/**
 * Inputs for the zstd decoder's tests, made the same way every time: the committed frames in
 * test/fixtures/zstd-cli were written from them by the zstd command (tools/make-zstd-fixtures.ts),
 * and the tests compare what they decode to with these bytes.
 */
import { bytesOf, randomWalkFloat32, seededRandom } from "../../bench/compare/data.js";

function text(lines: number, seed: number): Uint8Array {
  const r = seededRandom(seed);
  const words = ["chunk", "shard", "zarr", "array", "codec", "blosc", "store", "lock", "worker", "offset"];
  let s = "";
  for (let i = 0; i < lines; i++) {
    s += `${i % 113}: ${words[Math.floor(r() * 10)]} ${words[Math.floor(r() * 10)]} ${Math.floor(r() * 5000)} ${"=".repeat(Math.floor(r() * 9))}\n`;
  }
  return new TextEncoder().encode(s);
}

/** uint16 ramps with a little noise: short repeats at many offsets, sequence-heavy frames. */
function ramps(n: number, seed: number): Uint8Array {
  const r = seededRandom(seed);
  const a = new Uint16Array(n);
  for (let i = 0; i < n; i++) a[i] = (i % 701) * 3 + Math.floor(r() * 3);
  return bytesOf(a);
}

/** Runs of short patterns (periods 1-17) of random lengths between noise: matches at small offsets. */
function periods(seed: number): Uint8Array {
  const r = seededRandom(seed);
  const out: number[] = [];
  while (out.length < 120000) {
    const period = 1 + Math.floor(r() * 17);
    const pattern = Array.from({ length: period }, () => Math.floor(r() * 256));
    const len = 3 + Math.floor(r() * (r() < 0.2 ? 3000 : 60));
    for (let i = 0; i < len; i++) out.push(pattern[i % period]);
    for (let i = Math.floor(r() * 6); i > 0; i--) out.push(Math.floor(r() * 256));
  }
  return Uint8Array.from(out);
}

function noise(n: number, seed: number): Uint8Array {
  const r = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

/** Pieces of every kind one after another, with a long run of zeros (RLE blocks). */
function mixed(): Uint8Array {
  const parts = [text(2000, 3), noise(20000, 4), new Uint8Array(150000), ramps(20000, 5), text(500, 3)];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const ZSTD_INPUTS: Record<string, () => Uint8Array> = {
  text: () => text(3000, 1),
  walk: () => bytesOf(randomWalkFloat32(32, 256, 9)),
  ramps: () => ramps(40000, 2),
  noise: () => noise(20000, 6),
  periods: () => periods(8),
  mixed,
  empty: () => new Uint8Array(0),
  byte: () => Uint8Array.of(42),
};
