/**
 * The volume rows of issue 12: whole reads of a v3 uint16 cube (512³ by default, 256 MiB) with
 * zstd (level 0, libzstd's default), stored plain (chunks a quarter of the edge, 128³) and sharded
 * (shards 128³ of inner chunks 32³), by parzarr (default threads) and zarrita.js. The cubes are
 * written once under the benchmark folder and reused; every timing is warm, the median of
 * `repeats`, and both readers must see the same values (a strided checksum).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createArray, openArray } from "../../src/hierarchy/open.js";
import type { NDArray } from "../../src/indexing/ndarray.js";
import type { JsonObject } from "../../src/metadata/json.js";
import type { CodecConfig } from "../../src/metadata/array-metadata.js";
import { loadZarrita, median, timeRuns } from "./measure.js";

export type VolumeLayout = "plain" | "sharded";

export interface VolumeResult {
  edge: number;
  layout: VolumeLayout;
  parzarr: number[];
  zarrita: number[] | null;
  /** Why zarrita.js was not timed, or its values differed. */
  note?: string;
}

const VOLUME_VERSION = 1;

/** A smooth ramp with seeded noise: compresses the way a scanned volume does, not to nothing. */
function fillSlab(out: Uint16Array, edge: number, z0: number, depth: number): void {
  let s = 0x9e3779b9 ^ z0;
  for (let z = 0; z < depth; z++) {
    for (let y = 0; y < edge; y++) {
      const base = (z * edge + y) * edge;
      for (let x = 0; x < edge; x++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        out[base + x] = (((z0 + z) * 37 + y * 11 + x * 3) & 0x3fff) + (s >>> 28);
      }
    }
  }
}

/** Strided sum of a C-order cube: a cheap "same values?" check. */
function cubeSum(data: ArrayLike<number>, edge: number): number {
  let sum = 0;
  const n = edge * edge * edge;
  for (let i = 0; i < n; i += 4099) sum += data[i];
  return sum;
}

async function ensureVolume(dir: string, edge: number, layout: VolumeLayout, log: (s: string) => void): Promise<string> {
  const chunk = Math.max(1, edge >> 2);
  const inner = Math.max(1, chunk >> 2);
  const path = join(dir, `volume-v${VOLUME_VERSION}-${edge}-${layout}.zarr`);
  const done = `${path}.done`;
  if (existsSync(done)) return path;
  log(`generating ${path} ...`);
  rmSync(path, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const zstd: JsonObject = { name: "zstd", configuration: { level: 0, checksum: false } };
  const bytes: JsonObject = { name: "bytes", configuration: { endian: "little" } };
  const codecs =
    layout === "plain"
      ? [bytes, zstd]
      : [{ name: "sharding_indexed" as const, configuration: { chunk_shape: [inner, inner, inner], codecs: [bytes, zstd], index_codecs: [bytes, { name: "crc32c" }], index_location: "end" } }];
  const a = await createArray(path, { shape: [edge, edge, edge], chunks: [chunk, chunk, chunk], dtype: "uint16", fillValue: 0, zarrFormat: 3, codecs: codecs as CodecConfig[] });
  // One slab of whole chunks (or shards) at a time, so generating needs little memory.
  const slab = new Uint16Array(chunk * edge * edge);
  for (let z = 0; z < edge; z += chunk) {
    fillSlab(slab, edge, z, chunk);
    await a.set(`${z}:${z + chunk}, :, :`, { data: slab, shape: [chunk, edge, edge] });
  }
  writeFileSync(done, new Date().toISOString() + "\n");
  return path;
}

export async function runVolumes(opts: { dir: string; edge: number; repeats: number; log: (s: string) => void }): Promise<VolumeResult[]> {
  const { dir, edge, repeats, log } = opts;
  const z = await loadZarrita();
  const results: VolumeResult[] = [];
  for (const layout of ["plain", "sharded"] as VolumeLayout[]) {
    const path = await ensureVolume(dir, edge, layout, log);
    const arr = await openArray(path, { mode: "r" });
    let ours = 0;
    const parzarr = await timeRuns(repeats, true, async () => {
      ours = cubeSum(((await arr.get(null)) as NDArray).data as Uint16Array, edge);
    });
    const result: VolumeResult = { edge, layout, parzarr, zarrita: null };
    if (typeof z === "string") result.note = z;
    else {
      const za = await z.zarrita.open(z.zarrita.root(new z.Store(path)), { kind: "array" });
      let theirs = 0;
      result.zarrita = await timeRuns(repeats, true, async () => {
        theirs = cubeSum((await z.zarrita.get(za)).data, edge);
      });
      if (theirs !== ours) result.note = `zarrita.js read other values (checksum ${theirs} vs ${ours})`;
    }
    const fmt = (xs: number[] | null) => (xs === null ? "-" : `${median(xs).toFixed(3)} s`);
    log(`  volume ${edge}^3 uint16 zstd ${layout}: parzarr ${fmt(result.parzarr)}, zarrita.js ${fmt(result.zarrita)}${result.note ? ` (${result.note})` : ""}`);
    results.push(result);
  }
  return results;
}
