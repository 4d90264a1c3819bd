/**
 * A read-only Zarr v2 store over a NetCDF or HDF5 file: `.zgroup`/`.zattrs`/`.zarray` documents
 * made from the archive model, and each chunk key answered by reading that box from the file
 * (HDF5 decompresses it) as uncompressed chunk bytes. Every Zarr reader then reads the file: the
 * copy engine behind `parzarr cp` and `copy`, with its slabs, memory budget and progress, needs
 * nothing of its own for archives. Workers reopen the file from the descriptor and read their
 * chunks themselves, so HDF5's decompression runs on every core.
 */
import { statSync } from "node:fs";
import { vlenFrame } from "../codecs/vlen.js";
import { copyStrided, contiguousStrides } from "../indexing/strided.js";
import type { JsonObject } from "../metadata/json.js";
import { jsonBytes } from "../metadata/json-write.js";
import { childrenOf, sliceRange } from "../stores/keys.js";
import type { RangeRequest, ReadableStore, StoreDescriptor } from "../stores/types.js";
import type { ArchiveModel, ArchiveVariable } from "./model.js";
import { openArchiveModel } from "./open-model.js";

const JSON_OPTIONS = { indent: 4, sortKeys: true, asciiOnly: true };

/** The `.zarray` document for a variable, uncompressed (the store hands out raw values). */
export function zarrayOf(v: ArchiveVariable, codecs: { compressor: JsonObject | null; filters: JsonObject[] | null } = { compressor: null, filters: null }): JsonObject {
  const vlen = v.dtype.kind === "vlen-string";
  return {
    zarr_format: 2,
    shape: v.shape,
    chunks: v.shape.length === 0 ? [] : v.chunks,
    dtype: v.dtype.kind === "vlen-string" ? "|O" : v.dtype.v2,
    fill_value: v.fillValue,
    order: "C",
    compressor: codecs.compressor,
    filters: vlen ? [{ id: "vlen-utf8" }, ...(codecs.filters ?? [])] : codecs.filters,
    dimension_separator: ".",
  };
}

/** Chunk keys of a variable in C order ("0" for a 0-d variable). */
export function chunkKeysOf(v: ArchiveVariable): { key: string; index: number[] }[] {
  if (v.shape.length === 0) return [{ key: "0", index: [] }];
  const grid = v.shape.map((n, d) => Math.ceil(n / v.chunks[d]));
  if (grid.some((g) => g === 0)) return [];
  const out: { key: string; index: number[] }[] = [];
  const idx = grid.map(() => 0);
  for (;;) {
    out.push({ key: idx.join("."), index: [...idx] });
    let d = grid.length - 1;
    while (d >= 0 && ++idx[d] === grid[d]) idx[d--] = 0;
    if (d < 0) return out;
  }
}

/** Parses "i.j.k" against the variable's grid; null when it names no chunk. */
function chunkIndex(v: ArchiveVariable, key: string): number[] | null {
  if (v.shape.length === 0) return key === "0" ? [] : null;
  const parts = key.split(".");
  if (parts.length !== v.shape.length || !parts.every((p) => /^\d+$/.test(p))) return null;
  const idx = parts.map(Number);
  return idx.every((i, d) => i * v.chunks[d] < v.shape[d]) ? idx : null;
}

/**
 * The chunk's values padded to the whole chunk shape (Zarr v2 stores edge chunks whole): numbers
 * and fixed strings as bytes, strings in the vlen-utf8 layout.
 */
async function chunkBytes(v: ArchiveVariable, idx: number[]): Promise<Uint8Array> {
  const start = idx.map((i, d) => i * v.chunks[d]);
  const stop = start.map((s, d) => Math.min(v.shape[d], s + v.chunks[d]));
  const box = start.map((s, d) => stop[d] - s);
  const full = v.shape.length === 0 ? [] : v.chunks;
  const edge = box.some((n, d) => n !== full[d]);
  const data = await v.read(start, stop);
  if (Array.isArray(data)) {
    const strings = data as string[];
    let items = strings;
    if (edge) {
      items = new Array<string>(full.reduce((a, b) => a * b, 1)).fill("");
      copyStrided(items, { offset: 0, strides: contiguousStrides(full) }, strings, { offset: 0, strides: contiguousStrides(box) }, box);
    }
    const enc = new TextEncoder();
    return vlenFrame(items.map((s) => enc.encode(s)));
  }
  const bytes = data as Uint8Array;
  if (!edge) return bytes;
  const item = v.dtype.kind === "vlen-string" ? 1 : v.dtype.itemSize;
  const out = new Uint8Array(full.reduce((a, b) => a * b, item));
  copyStrided(out, { offset: 0, strides: contiguousStrides([...full, item]) }, bytes, { offset: 0, strides: contiguousStrides([...box, item]) }, [...box, item]);
  return out;
}

/** A read-only Zarr v2 view of a NetCDF or HDF5 file: metadata made from the file, each chunk read from it; workers reopen the file. */
export class ArchiveStore implements ReadableStore {
  readonly readOnly = true;
  private model: Promise<ArchiveModel> | undefined;
  private docs: Promise<Map<string, Uint8Array>> | undefined;
  private readonly instance: string;

  /** Nothing is read until the first request. @param path The NetCDF or HDF5 file. */
  constructor(readonly path: string, instance?: string) {
    // Size and mtime: a worker's store cache never serves a file that was replaced since.
    this.instance = instance ?? (() => {
      try {
        const st = statSync(path);
        return `${st.size}:${st.mtimeMs}`;
      } catch {
        return "";
      }
    })();
  }

  /** The archive model, opened on first use (and loading h5wasm then, for HDF5 files). @internal */
  open(): Promise<ArchiveModel> {
    this.model ??= openArchiveModel(this.path);
    return this.model;
  }

  /** Closes the file; a later request opens it again. */
  close(): void {
    void this.model?.then((m) => m.close(), () => {});
    this.model = undefined;
    this.docs = undefined;
  }

  private metadataDocs(): Promise<Map<string, Uint8Array>> {
    this.docs ??= (async () => {
      const m = await this.open();
      const docs = new Map<string, Uint8Array>();
      const prefix = (p: string) => (p === "" ? "" : `${p}/`);
      for (const g of m.groups) {
        docs.set(`${prefix(g.path)}.zgroup`, jsonBytes({ zarr_format: 2 }, JSON_OPTIONS));
        docs.set(`${prefix(g.path)}.zattrs`, jsonBytes(g.attributes, JSON_OPTIONS));
      }
      for (const v of m.variables) {
        docs.set(`${v.path}/.zarray`, jsonBytes(zarrayOf(v), JSON_OPTIONS));
        docs.set(`${v.path}/.zattrs`, jsonBytes(v.attributes, JSON_OPTIONS));
      }
      return docs;
    })();
    return this.docs;
  }

  private async variableOf(key: string): Promise<{ v: ArchiveVariable; idx: number[] } | null> {
    const m = await this.open();
    const slash = key.lastIndexOf("/");
    const path = slash < 0 ? "" : key.slice(0, slash);
    const v = m.variables.find((x) => x.path === path);
    if (!v) return null;
    const idx = chunkIndex(v, key.slice(slash + 1));
    return idx ? { v, idx } : null;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const doc = (await this.metadataDocs()).get(key);
    if (doc) return doc;
    // A variable of a type Zarr cannot hold: opening it fails with the reason, and a copy with
    // skipUnreadable leaves it out.
    const bad = (await this.open()).unreadable.find((u) => key === `${u.path}/.zarray`);
    if (bad) throw bad.error;
    const hit = await this.variableOf(key);
    return hit ? chunkBytes(hit.v, hit.idx) : undefined;
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    const bytes = await this.get(key);
    return bytes === undefined ? undefined : sliceRange(bytes, range);
  }

  async has(key: string): Promise<boolean> {
    return (await this.metadataDocs()).has(key) || (await this.variableOf(key)) !== null;
  }

  async list(prefix: string): Promise<string[]> {
    const m = await this.open();
    const keys = [...(await this.metadataDocs()).keys(), ...m.unreadable.map((u) => `${u.path}/.zarray`)];
    for (const v of m.variables) for (const c of chunkKeysOf(v)) keys.push(`${v.path}/${c.key}`);
    return keys.filter((k) => k.startsWith(prefix)).sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return childrenOf(await this.list(prefix), prefix);
  }

  descriptor(): StoreDescriptor {
    return { kind: "archive", path: this.path, instance: this.instance };
  }
}
