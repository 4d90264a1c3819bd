/**
 * The kerchunk reference document of a NetCDF/HDF5 file: Zarr v2 metadata per group and variable
 * (the same the ArchiveStore shows, from the same model), and each chunk key mapped to
 * `[url, offset, length]` in the file, so Zarr readers read the original file without copying it.
 *
 * - HDF5 chunked datasets: one reference per stored chunk (chunks never written are left out and
 *   read as the fill value); the filter pipeline becomes numcodecs `shuffle` filters and a `zlib`
 *   compressor. Other filters (szip, fletcher32, nbit, scaleoffset, plugins) and chunks that skip
 *   a filter are refused (UNSUPPORTED): their bytes cannot be described with numcodecs here.
 * - HDF5 contiguous datasets: one chunk, the whole dataset, in the file's byte order.
 * - Compact datasets (data inside the object header) and variable-length strings (in HDF5's
 *   global heap, not one byte range) are inlined, base64, as uncompressed chunks.
 * - NetCDF-3: a non-record variable is one chunk; a record variable one chunk per record, the
 *   records `recordSize` apart (as kerchunk's netCDF3 support does), big-endian.
 */
import { ZarrError, UnsupportedError } from "../errors.js";
import type { JsonObject, JsonValue } from "../metadata/json.js";
import { jsonBytes } from "../metadata/json-write.js";
import { ArchiveStore, chunkKeysOf, zarrayOf } from "./archive-store.js";
import { Hdf5Layout } from "./hdf5-layout.js";
import type { ArchiveModel, ArchiveVariable } from "./model.js";

/** Options of referencesFor. */
export interface ReferenceOptions {
  /** The target written into each reference (default: the path as given). */
  url?: string;
  /** 1 (default): `{ version: 1, refs }`; 0: the refs object alone. */
  version?: 0 | 1;
  /** Leave out (and list in `skipped`) variables that cannot be referenced instead of failing. */
  skipUnreferenceable?: boolean;
}

/** What referencesFor makes: the kerchunk document, and what it left out. */
export interface ReferenceResult {
  /** The reference document (kerchunk version 1 unless `version: 0`). */
  document: JsonObject;
  /** Variables left out with skipUnreferenceable, with the reason. */
  skipped: { path: string; reason: string }[];
}

type Ref = string | [string, number, number];

const JSON_TEXT = { indent: 0, sortKeys: true, asciiOnly: true };
const decoder = new TextDecoder();

function jsonText(v: JsonValue): string {
  return decoder.decode(jsonBytes(v, JSON_TEXT)).replace(/\n/g, "");
}

function base64(bytes: Uint8Array): string {
  return "base64:" + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** The file's byte order in a v2 type ("<f4" -> ">f4" for a big-endian dataset). */
function fileOrder(v2: string, little: boolean): string {
  return !little && v2.startsWith("<") ? `>${v2.slice(1)}` : v2;
}

/** HDF5's filter pipeline as numcodecs filters and compressor. */
function codecsOf(v: ArchiveVariable, where: string, itemSize: number): { compressor: JsonObject | null; filters: JsonObject[] | null } {
  if (v.storage.kind !== "hdf5") return { compressor: null, filters: null };
  const mapped = v.storage.filters.map((f): JsonObject => {
    if (f.id === 1) return { id: "zlib", level: f.cd_values[0] ?? 6 };
    if (f.id === 2) return { id: "shuffle", elementsize: itemSize };
    throw new UnsupportedError(`${where}: HDF5 filter ${f.name || f.id} (id ${f.id}) has no numcodecs equivalent here; only shuffle and deflate are referenced`);
  });
  const last = mapped[mapped.length - 1];
  if (last?.id === "zlib") return { compressor: last, filters: mapped.length > 1 ? mapped.slice(0, -1) : null };
  return { compressor: null, filters: mapped.length > 0 ? mapped : null };
}

async function inlineChunks(store: ArchiveStore, v: ArchiveVariable, refs: Record<string, Ref>): Promise<void> {
  for (const { key } of chunkKeysOf(v)) {
    const bytes = await store.get(`${v.path}/${key}`);
    if (bytes) refs[`${v.path}/${key}`] = base64(bytes);
  }
}

async function variableRefs(
  v: ArchiveVariable,
  model: ArchiveModel,
  layout: Hdf5Layout | null,
  store: ArchiveStore,
  url: string,
  refs: Record<string, Ref>,
): Promise<void> {
  const where = `${model.file}: variable ${v.path}`;
  const put = (zarray: JsonObject) => {
    refs[`${v.path}/.zarray`] = jsonText(zarray);
    refs[`${v.path}/.zattrs`] = jsonText(v.attributes);
  };
  const key = (idx: number[]) => (idx.length === 0 ? "0" : idx.join("."));
  if (v.dtype.kind === "vlen-string") {
    // Strings in the global heap: no byte range holds a chunk of them.
    put(zarrayOf(v));
    await inlineChunks(store, v, refs);
    return;
  }
  const itemSize = v.dtype.itemSize;
  if (v.storage.kind === "netcdf3") {
    const record = v.storage.recordSize !== undefined;
    const chunks = record ? [1, ...v.shape.slice(1)] : [...v.shape];
    put({ ...zarrayOf({ ...v, chunks }), dtype: fileOrder(v.dtype.v2, false) });
    const inner = (record ? v.shape.slice(1) : v.shape).reduce((a, n) => a * n, itemSize);
    if (inner === 0) return;
    if (!record) refs[`${v.path}/${key(v.shape.map(() => 0))}`] = [url, v.storage.begin, inner];
    else for (let r = 0; r < v.shape[0]; r++) refs[`${v.path}/${key([r, ...v.shape.slice(1).map(() => 0)])}`] = [url, v.storage.begin + r * v.storage.recordSize!, inner];
    return;
  }
  const st = layout!.storage(v.path);
  const dtype = fileOrder(v.dtype.v2, v.storage.littleEndian);
  if (st.kind === "compact") {
    put({ ...zarrayOf({ ...v, chunks: [...v.shape] }), dtype });
    refs[`${v.path}/${key(v.shape.map(() => 0))}`] = base64(st.data);
    return;
  }
  if (st.kind === "contiguous") {
    put({ ...zarrayOf({ ...v, chunks: [...v.shape] }), dtype });
    if (st.address !== undefined && st.size > 0) refs[`${v.path}/${key(v.shape.map(() => 0))}`] = [url, st.address, st.size];
    return;
  }
  const codecs = codecsOf(v, where, itemSize);
  put({ ...zarrayOf({ ...v, chunks: st.chunks }, codecs), dtype });
  for (const c of st.list) {
    if (c.filterMask !== 0) throw new UnsupportedError(`${where}: the chunk at ${c.offset} skips filters (mask ${c.filterMask}); a reference cannot say so`);
    refs[`${v.path}/${key(c.offset.map((o, d) => Math.floor(o / st.chunks[d])))}`] = [url, c.address, c.size];
  }
}

/** The kerchunk reference document for the NetCDF/HDF5 file at `path`. */
export async function referencesFor(path: string, options: ReferenceOptions = {}): Promise<ReferenceResult> {
  const store = new ArchiveStore(path);
  const model = await store.open();
  const url = options.url ?? path;
  const refs: Record<string, Ref> = {};
  const skipped: ReferenceResult["skipped"] = [];
  const layout = model.format === "hdf5" ? new Hdf5Layout(path) : null;
  try {
    for (const g of model.groups) {
      const prefix = g.path === "" ? "" : `${g.path}/`;
      refs[`${prefix}.zgroup`] = jsonText({ zarr_format: 2 });
      refs[`${prefix}.zattrs`] = jsonText(g.attributes);
    }
    for (const u of model.unreadable) {
      if (!options.skipUnreferenceable) throw u.error;
      skipped.push({ path: u.path, reason: `${u.error.code}: ${u.error.message}` });
    }
    for (const v of model.variables) {
      const before = Object.keys(refs).filter((k) => k.startsWith(`${v.path}/`));
      try {
        await variableRefs(v, model, layout, store, url, refs);
      } catch (err) {
        if (!(options.skipUnreferenceable && err instanceof ZarrError)) throw err;
        for (const k of Object.keys(refs)) if (k.startsWith(`${v.path}/`) && !before.includes(k)) delete refs[k];
        skipped.push({ path: v.path, reason: `${err.code}: ${err.message}` });
      }
    }
  } finally {
    layout?.close();
    store.close();
  }
  return { document: options.version === 0 ? (refs as JsonObject) : { version: 1, refs: refs as JsonObject }, skipped };
}
