/**
 * The copy engine behind `copy`/`copyAll` (copy.ts) and `parzarr cp`: plans the copy of an array
 * or a whole hierarchy (attributes included) into a new layout — chunks, shards, codec, Zarr
 * format — and copies one slab at a time (see slabs.ts), so memory stays within a budget and every
 * destination chunk is written once, whole. `runCopy` is cp's whole-destination mode, with a resume
 * journal (journal.ts). It takes store objects and nodes, never paths, so it runs in browsers too.
 */
import { AlreadyExistsError, InvalidArgumentError, ReadOnlyError, TooLargeError, ZarrError } from "../errors.js";
import { ZarrArray } from "../hierarchy/array.js";
import type { CreateArrayOptions, GridOption } from "../hierarchy/create-options.js";
import { checkShardEdges } from "../metadata/chunk-grid.js";
import { edgesFromOption } from "../metadata/grid-edits.js";
import type { Group } from "../hierarchy/group.js";
import { layoutOf } from "../hierarchy/layout.js";
import { createArray, createGroup, openArray } from "../hierarchy/open.js";
import { openNodeAt, walk } from "../hierarchy/walk.js";
import { slice } from "../indexing/selection.js";
import type { NDArray } from "../indexing/ndarray.js";
import type { CodecConfig } from "../metadata/array-metadata.js";
import { defaultArrayToBytes } from "../metadata/default-codecs.js";
import { componentsPerElement, isObjectType, type Scalar } from "../metadata/dtype.js";
import { toNumpyTypestr, v2DtypeJson, v3DataTypeJson } from "../metadata/dtype-names.js";
import { fillValueToJson } from "../metadata/fill-value-json.js";
import { memoryBytesPerComponent } from "../metadata/elements.js";
import type { JsonObject, JsonValue } from "../metadata/json.js";
import { plainJson } from "../metadata/json-write.js";
import { CONCURRENCY } from "../parallel/execution/concurrency.js";
import type { OperationOptions } from "../parallel/execution/options.js";
import { MemoryStore } from "../stores/memory.js";
import { isWritable, type WritableStore } from "../stores/types.js";
import { formatBytes, tuple } from "../format.js";
import { describeSpec, specOfChain, v2CompressorOf, v3CodecsOf, type CodecSpec } from "./codec-spec.js";
import { Journal, readJournal, type JournalDoc } from "./journal.js";
import { assertNoOverlap, type CopyEnd } from "./overlap.js";
import { planSlabs, slabBox, unitsIn, type SlabPlan } from "./slabs.js";
import { SlabBuffer } from "./slab-buffer.js";

export { assertNoOverlap, type CopyEnd } from "./overlap.js";

/**
 * How messages name an option and what a bad one throws: the library says `chunks` and throws
 * INVALID_ARGUMENT; `parzarr cp` says `--chunks` and throws its usage error (exit code 2).
 */
export interface OptionNaming {
  option(name: string): string;
  invalid(message: string): Error;
}

export const LIBRARY_NAMING: OptionNaming = {
  option: (name) => name,
  invalid: (message) => new InvalidArgumentError(message),
};

/** What decides the destination's layout and the slabs. */
export interface PlanSettings {
  /** A list of edges (or `[edge, count]` runs) along a dimension makes a rectilinear grid (see GridOption). */
  chunks?: GridOption;
  shards?: GridOption;
  codec?: CodecSpec;
  format?: 2 | 3;
  threads?: number;
  /** Memory budget in bytes. */
  memory: number;
  /** Leave out arrays parzarr cannot read (reported) instead of failing. */
  skipUnreadable: boolean;
  /** Plan arrays that do not fit the memory budget too (a dry run reports what they need) instead of refusing them. */
  dryRun?: boolean;
  naming?: OptionNaming;
}

/** cp's whole-destination mode adds resuming and overwriting. */
export interface CopySettings extends PlanSettings {
  resume: boolean;
  overwrite: boolean;
  /**
   * The destination keeps the copy only when it commits, whole (an Icechunk session): no journal
   * is written, since a copy cut short leaves nothing to resume.
   */
  transactional?: boolean;
}

export interface ArrayJob {
  /** Path relative to the copy's root ("" for the root itself). */
  rel: string;
  source: ZarrArray;
  options: CreateArrayOptions;
  plan: SlabPlan;
  /** The destination's stored unit (shard or chunk). */
  unit: number[];
  codecText: string;
}

export interface CopyPlan {
  jobs: ArrayJob[];
  /** Groups to create, relative paths with attributes and format, parents first. */
  groups: { rel: string; attributes: JsonObject; zarrFormat: 2 | 3 }[];
  skipped: { rel: string; reason: string }[];
  rootIsArray: boolean;
  /** The source node's store and path, for the overlap check before writing. */
  root: CopyEnd;
}

/**
 * Bytes per element in memory, which can exceed the stored size: float16 lives in a Float32Array
 * where Float16Array is missing, bfloat16 and the float8/6/4 types always.
 */
function memoryItemBytes(arr: ZarrArray): number {
  const dt = arr.dataType;
  return isObjectType(dt) ? dt.itemSize : memoryBytesPerComponent(dt) * componentsPerElement(dt);
}

export function joinPath(a: string, b: string): string {
  return a === "" ? b : b === "" ? a : `${a}/${b}`;
}

const OBJECT_CODEC = { string: "vlen-utf8", bytes: "vlen-bytes", json: "json2" } as const;

/** v2 filters that say what an object array holds; null for every other type. */
function vlenFilters(arr: ZarrArray): JsonObject[] | null {
  const dt = arr.dataType;
  if (dt.kind === "vlen_array") return [{ id: "vlen-array", dtype: toNumpyTypestr(dt.element) }];
  return dt.kind === "string" || dt.kind === "bytes" || dt.kind === "json" ? [{ id: OBJECT_CODEC[dt.kind] }] : null;
}

/**
 * Dimension names across formats, as xarray stores them: v3 `dimension_names` and the v2
 * attribute `_ARRAY_DIMENSIONS` carry the same list, so a conversion moves one into the other.
 */
function dimensionsFor(src: ZarrArray, format: 2 | 3): { attributes: JsonObject; dimensionNames: (string | null)[] | null } {
  const attributes = src.attrs;
  const names = src.metadata.dimensionNames;
  if (format === 2) {
    if (names && names.every((n) => typeof n === "string") && !("_ARRAY_DIMENSIONS" in attributes)) {
      attributes._ARRAY_DIMENSIONS = names as string[];
    }
    return { attributes, dimensionNames: null };
  }
  const fromAttr = attributes._ARRAY_DIMENSIONS;
  if (!names && Array.isArray(fromAttr) && fromAttr.length === src.ndim && fromAttr.every((n) => typeof n === "string")) {
    delete attributes._ARRAY_DIMENSIONS;
    return { attributes, dimensionNames: fromAttr as string[] };
  }
  return { attributes, dimensionNames: names ? [...names] : null };
}

/** The destination's creation options for one source array under the settings. */
export function destinationOptions(src: ZarrArray, s: PlanSettings, where: string): { options: CreateArrayOptions; unit: number[]; codecText: string } {
  const { option, invalid } = s.naming ?? LIBRARY_NAMING;
  const layout = layoutOf(src);
  const format = s.format ?? src.zarrFormat;
  const ndim = src.ndim;
  const rank = (what: string, xs: GridOption | undefined) => {
    if (xs && xs.length !== ndim) throw invalid(`${option(what)} has ${xs.length} dimensions but ${where} has ${ndim}`);
    return xs;
  };
  // A rectilinear source's edges carry over to a v3 destination unless a layout is asked for;
  // v2 has no such grid and gets the largest edges as its regular chunk shape.
  const srcEdges = format === 3 ? src.chunkShapes : null;
  const chunkGrid = rank("chunks", s.chunks) ?? (srcEdges && !layout.shards ? srcEdges : layout.chunks);
  let shardGrid = rank("shards", s.shards) ?? null;
  if (shardGrid === null && s.chunks === undefined && layout.shards && format === 3) shardGrid = srcEdges ?? layout.shards;
  if (shardGrid && format === 2) throw invalid(`${option("shards")} needs ${option("format")} 3: Zarr v2 has no sharding`);
  // Edge lists: the grid is rectilinear (v3), and its largest edges are the unit slabs are planned by.
  const edges = (what: string, xs: GridOption) => {
    try {
      const grid = edgesFromOption(xs, src.shape, `${where}: ${option(what)}`);
      if (grid && format === 2) throw invalid(`${option(what)} with edge lists (a rectilinear grid) needs ${option("format")} 3`);
      return grid;
    } catch (err) {
      throw err instanceof ZarrError && err.code === "INVALID_METADATA" ? invalid(err.message) : err;
    }
  };
  const chunkEdges = edges("chunks", chunkGrid);
  if (chunkEdges && shardGrid) throw invalid(`${option("chunks")} is the inner chunk shape with ${option("shards")}: it takes no edge lists`);
  const chunks = chunkEdges?.chunks ?? (chunkGrid as number[]);
  const shardEdges = shardGrid && edges("shards", shardGrid);
  const shards = shardEdges?.chunks ?? (shardGrid as number[] | null);
  if (shardEdges) {
    try {
      checkShardEdges(shardEdges.edges, chunks, `${where}: ${option("shards")}`);
    } catch (err) {
      throw invalid((err as Error).message);
    }
  } else if (shards && shards.some((n, d) => n % chunks[d] !== 0)) {
    throw invalid(`${option("shards")} ${shards} must be a multiple of the chunk shape ${chunks} along every dimension`);
  }
  const spec = s.codec ?? specOfChain(layout.codecs);
  const sameFormat = format === src.zarrFormat;
  const { attributes, dimensionNames } = dimensionsFor(src, format);
  const base: CreateArrayOptions = {
    shape: src.shape,
    chunks: shardGrid ?? chunkGrid,
    // The whole type document (a datetime's unit, a string's length), not only its name.
    dtype: (format === 2 ? v2DtypeJson(src.dataType) : v3DataTypeJson(src.dataType)) as JsonValue,
    zarrFormat: format,
    attributes,
    // v2 `fill_value: null` (missing chunks read as zeros) has no v3 form: zero says the same.
    // An optional's present fill value is passed in its JSON form, wrapped once per level (plain:
    // the writer's Python floats and big integers are no fill value createArray takes).
    fillValue: src.fillValue === null && format === 3 ? undefined : src.dataType.kind === "optional" ? plainJson(fillValueToJson(src.fillValue, src.dataType, 3)) : src.fillValue,
  };
  if (format === 2) {
    const v2 = src.metadata.v2;
    if (spec === undefined && !(sameFormat && v2)) {
      throw invalid(`${where}: its codecs (${layout.codecs.map((c) => c.name).join(", ")}) have no v2 compressor; pass ${option("codec")}`);
    }
    const options: CreateArrayOptions = {
      ...base,
      compressor: spec ? v2CompressorOf(spec) : v2!.compressor,
      // "|O" alone does not say strings or bytes: the vlen filter does.
      filters: spec || !v2 ? vlenFilters(src) : v2.filters,
      order: sameFormat && v2 ? v2.order : "C",
      ...(sameFormat && v2?.dimensionSeparator ? { dimensionSeparator: v2.dimensionSeparator } : {}),
    };
    return { options, unit: [...(shards ?? chunks)], codecText: spec ? describeSpec(spec) : "as the source" };
  }
  if (spec === undefined && !sameFormat) {
    throw invalid(`${where}: its codecs (${layout.codecs.map((c) => c.name).join(", ")}) have no single v3 equivalent; pass ${option("codec")}`);
  }
  const inner: CodecConfig[] = spec ? [defaultArrayToBytes(src.dataType), ...v3CodecsOf(spec, isObjectType(src.dataType) ? 1 : src.dataType.itemSize)] : layout.codecs;
  const codecs: CodecConfig[] = shards
    ? [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: chunks,
            codecs: inner as never,
            index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }] as never,
            index_location: "end",
          },
        },
      ]
    : inner;
  const options: CreateArrayOptions = {
    ...base,
    codecs,
    ...(dimensionNames ? { dimensionNames } : {}),
  };
  return { options, unit: [...(shards ?? chunks)], codecText: (spec ? describeSpec(spec) : "as the source") + (shards ? ` in shards ${tuple(shards)}` : "") };
}

/** Probes that the source's codecs and data type are readable: `get` checks the codec chain first. */
async function probe(arr: ZarrArray): Promise<Scalar | undefined> {
  return arr.size > 0 ? ((await arr.get(arr.shape.map(() => 0))) as Scalar) : undefined;
}

/**
 * Checks that the destination layout can be written before anything is: some codecs decode but do
 * not encode (blosc's snappy), and an error halfway through a hierarchy helps nobody. Creates the
 * array in memory and encodes one chunk of the source's first value.
 */
async function probeWrite(options: CreateArrayOptions, unit: number[], value: Scalar | undefined, where: string, codecOption: string): Promise<void> {
  try {
    const scratch = await createArray(new MemoryStore(), { ...options, shape: unit, writeEmptyChunks: true });
    if (value !== undefined) await scratch.set(null, value);
  } catch (err) {
    if (err instanceof ZarrError) {
      throw new ZarrError(err.code, `cannot write ${where} in the layout asked for: ${err.message}; choose another ${codecOption}`);
    }
    throw err;
  }
}

/**
 * Plans copying `root` (an array, or a group with everything below it): per array the
 * destination's creation options and slabs. `text` names the source in messages. Every array is
 * probed first (one value read, one chunk encoded in memory in the new layout), so a copy that
 * cannot finish fails before anything is written.
 */
export async function planCopy(root: ZarrArray | Group, s: PlanSettings, text: string): Promise<CopyPlan> {
  const { option } = s.naming ?? LIBRARY_NAMING;
  const jobs: ArrayJob[] = [];
  const groups: CopyPlan["groups"] = [];
  const skipped: CopyPlan["skipped"] = [];
  const addArray = async (arr: ZarrArray, rel: string) => {
    const where = rel === "" ? text : `${text} array ${rel}`;
    let first: Scalar | undefined;
    try {
      first = await probe(arr);
    } catch (err) {
      if (s.skipUnreadable && err instanceof ZarrError) {
        skipped.push({ rel, reason: `${err.code}: ${err.message}` });
        return;
      }
      throw err;
    }
    let dest: ReturnType<typeof destinationOptions>;
    try {
      dest = destinationOptions(arr, s, where);
      await probeWrite(dest.options, dest.unit, first, where, option("codec"));
    } catch (err) {
      // "Copy what you can": an array this layout cannot hold (a data type the codec chain does
      // not take) is left out and named, like one that cannot be read.
      if (s.skipUnreadable && err instanceof ZarrError) {
        skipped.push({ rel, reason: `${err.code}: ${err.message}` });
        return;
      }
      throw err;
    }
    const { options, unit, codecText } = dest;
    const inFlight = Math.max(CONCURRENCY.inlineInFlight, s.threads ?? 0);
    const plan = planSlabs({ shape: arr.shape, sourceChunk: arr.chunks, destUnit: unit, itemBytes: memoryItemBytes(arr), inFlight, memory: s.memory });
    if (plan.plannedPeak > s.memory && !s.dryRun) {
      // Not a usage error: the options are well formed, the data does not fit them.
      throw new TooLargeError(
        `${option("memory")} ${formatBytes(s.memory)} is too small for ${where}: one destination ${unit.length ? "chunk" : "element"} and the buffers in flight need ` +
          `${plan.plannedPeak} bytes (${formatBytes(plan.plannedPeak)})`,
      );
    }
    jobs.push({ rel, source: arr, options, plan, unit, codecText });
  };
  if (root instanceof ZarrArray) {
    await addArray(root, "");
    return { jobs, groups, skipped, rootIsArray: true, root: { store: root.store, path: root.path, text } };
  }
  const fmt = (g: Group) => s.format ?? g.zarrFormat;
  groups.push({ rel: "", attributes: root.attrs, zarrFormat: fmt(root) });
  const rootPrefix = root.path === "" ? "" : `${root.path}/`;
  for await (const e of walk(root)) {
    const rel = e.path.slice(rootPrefix.length);
    if (e.kind === "group") groups.push({ rel, attributes: e.node.attrs, zarrFormat: fmt(e.node) });
    else if (e.kind === "array") await addArray(e.node, rel);
    else if (s.skipUnreadable) skipped.push({ rel, reason: `${e.error.code}: ${e.error.message}` });
    else throw e.error;
  }
  return { jobs, groups, skipped, rootIsArray: false, root: { store: root.store, path: root.path, text } };
}

function fingerprint(job: ArrayJob): string {
  const o = job.options;
  return JSON.stringify([o.shape, o.chunks, o.dtype, o.zarrFormat, o.codecs ?? null, o.compressor ?? null, o.order ?? null]);
}

export interface CopyHooks {
  onSlab?: (info: { slabsThisRun: number }) => void;
  /** Called as chunks of a slab are written (done within the slab, total in the slab). */
  onChunk?: (info: { slabsThisRun: number; done: number; total: number }) => void;
  progress?: (chunks: number, bytes: number, totals: { chunks: number; bytes: number }, start: { chunks: number; bytes: number }) => void;
  beforeSlab?: () => void;
  afterRead?: () => void;
}

/**
 * cp's whole-destination mode: refuses an existing destination unless overwriting (cleared) or
 * resuming (its journal must match the plan), writes the journal, then creates the nodes.
 * `sourceText` is recorded in the journal.
 */
export async function prepareDestination(dest: CopyEnd & { store: WritableStore }, plan: CopyPlan, s: CopySettings, sourceText: string): Promise<Journal> {
  const { invalid } = s.naming ?? LIBRARY_NAMING;
  const store = dest.store;
  const destText = dest.text ?? dest.path;
  const doc: JournalDoc = {
    version: 1,
    source: sourceText,
    arrays: Object.fromEntries(
      plan.jobs.map((j) => [j.rel, { fingerprint: fingerprint(j), slab: j.plan.slab, count: j.plan.count, done: [] }]),
    ),
  };
  const existing = s.transactional ? undefined : await readJournal(store, dest.path);
  let exists = true;
  try {
    await openNodeAt(store, dest.path, destText);
  } catch (err) {
    if (!(err instanceof ZarrError && err.code === "NOT_FOUND")) throw err;
    exists = false;
  }
  if (s.resume && existing) {
    for (const j of plan.jobs) {
      const was = existing.arrays[j.rel];
      if (!was || was.fingerprint !== doc.arrays[j.rel].fingerprint) {
        throw invalid(
          `cannot resume: ${destText} was started with other options for ${j.rel || "the array"} (or another source); ` +
            "run the same command again, or drop --resume and pass --overwrite",
        );
      }
      // The slab shape of the first run decides which slabs the journal's indices mean.
      j.plan = { ...j.plan, slab: was.slab, grid: j.source.shape.map((n, d) => (n === 0 ? 0 : Math.ceil(n / was.slab[d]))), count: was.count };
    }
    const journal = new Journal(store, dest.path, existing);
    await createNodes(store, dest, plan, false);
    return journal;
  }
  if (exists && !s.overwrite) {
    throw new AlreadyExistsError(
      s.resume
        ? `${destText} exists but holds no cp journal, so there is nothing to resume (it was completed, or not written by parzarr cp)`
        : `${destText} already exists; pass --overwrite to replace it or --resume to finish an interrupted copy`,
    );
  }
  // The journal goes in before any node so that a crash at any later point can be resumed.
  if (exists) await store.deletePrefix(dest.path === "" ? "" : `${dest.path}/`);
  const journal = new Journal(s.transactional ? null : store, dest.path, doc);
  await journal.save();
  await createNodes(store, dest, plan, true);
  return journal;
}

/** Creates the destination's groups and arrays; with `fresh` false, only those missing. */
async function createNodes(store: WritableStore, dest: CopyEnd, plan: CopyPlan, fresh: boolean): Promise<void> {
  const missing = async (path: string) => {
    if (fresh) return true;
    try {
      await openNodeAt(store, path);
      return false;
    } catch (err) {
      if (err instanceof ZarrError && err.code === "NOT_FOUND") return true;
      throw err;
    }
  };
  for (const g of plan.groups) {
    const path = joinPath(dest.path, g.rel);
    if (await missing(path)) {
      // Never `overwrite` here: it clears the node's folder, and the journal may live in it.
      await createGroup(store, { path, zarrFormat: g.zarrFormat, attributes: g.attributes as never });
    }
  }
  for (const j of plan.jobs) {
    const path = joinPath(dest.path, j.rel);
    if (await missing(path)) await createArray(store, { ...j.options, path });
  }
}

export interface CopyResult {
  arrays: number;
  slabsWritten: number;
  slabsSkipped: number;
  bytes: number;
}

/** What a read or write of a slab passes on to `get`/`set`. */
export type SlabOptions = Pick<OperationOptions, "threads" | "pool" | "signal">;

/**
 * One slab: read the box from the source, write it to the destination. A function of its own so
 * the slab's buffer is unreachable once it returns, before the next slab is read.
 */
export async function copySlab(
  source: ZarrArray,
  dst: ZarrArray,
  box: { start: number[]; stop: number[] },
  op: SlabOptions,
  hooks: CopyHooks,
  onProgress: (done: number, total: number) => void,
  buffer?: SlabBuffer,
): Promise<void> {
  hooks.beforeSlab?.();
  const sel = box.start.map((a, d) => slice(a, box.stop[d]));
  // Into the copy's reused slab memory where it can (see slab-buffer.ts), else fresh memory.
  const out = buffer?.take(source.metadata.dtype, box.start.reduce((n, a, d) => n * (box.stop[d] - a), 1)) ?? null;
  const value = (out !== null && box.start.length > 0 ? await source.get(sel, { ...op, out }) : await source.get(sel, op)) as NDArray | Scalar;
  hooks.afterRead?.();
  await dst.set(sel, value as never, { ...op, onProgress });
}

export interface SlabBox {
  box: { start: number[]; stop: number[] };
  /** Destination units (chunks or shards) the slab writes. */
  units: number;
  /** Bytes of values the slab holds. */
  bytes: number;
}

/**
 * Bytes counted per element, as zarr-python counts `n_bytes_copied` (size * numpy itemsize): an
 * object array's element is a pointer, 8 bytes, whatever its string holds.
 */
export function countedItemBytes(arr: ZarrArray): number {
  return isObjectType(arr.dataType) ? 8 : arr.dataType.itemSize;
}

/** A job's slabs in order, with what each writes (for progress and totals). */
export function slabsOf(job: ArrayJob): SlabBox[] {
  const itemBytes = job.source.size === 0 ? 0 : countedItemBytes(job.source);
  return Array.from({ length: job.plan.count }, (_, i) => {
    const box = slabBox(job.plan, job.source.shape, i);
    const elems = box.start.reduce((a, s0, d) => a * (box.stop[d] - s0), 1);
    return { box, units: unitsIn(box, job.unit), bytes: elems * itemBytes };
  });
}

/** Running totals of a copy, reported as chunks are written. */
export class CopyProgress {
  chunks: number;
  bytes: number;
  constructor(
    readonly totals: { chunks: number; bytes: number },
    readonly start: { chunks: number; bytes: number },
    private readonly report: CopyHooks["progress"],
  ) {
    this.chunks = start.chunks;
    this.bytes = start.bytes;
    report?.(this.chunks, this.bytes, totals, start);
  }

  /** A callback for `set`'s onProgress while `slab` is written, and the call that ends it. */
  during(slab: { units: number; bytes: number }): { onProgress: (done: number, total: number) => void; finish: () => void } {
    const before = { chunks: this.chunks, bytes: this.bytes };
    return {
      onProgress: (done, total) => {
        this.report?.(before.chunks + Math.round((slab.units * done) / total), before.bytes + Math.round((slab.bytes * done) / total), this.totals, this.start);
      },
      finish: () => {
        this.chunks = before.chunks + slab.units;
        this.bytes = before.bytes + slab.bytes;
        this.report?.(this.chunks, this.bytes, this.totals, this.start);
      },
    };
  }
}

/** Runs a planned copy in cp's whole-destination mode. The destination store must be writable. */
export async function runCopy(plan: CopyPlan, dest: CopyEnd, s: CopySettings, hooks: CopyHooks = {}, op: SlabOptions = {}): Promise<CopyResult> {
  const destStore = dest.store;
  if (!isWritable(destStore)) throw new ReadOnlyError(`${dest.text ?? dest.path} cannot be written`);
  // Before anything is written: --overwrite would clear a source that lies inside the destination.
  assertNoOverlap(plan.root, dest);
  const journal = await prepareDestination({ ...dest, store: destStore }, plan, s, plan.root.text ?? plan.root.path);
  const totals = { chunks: 0, bytes: 0 };
  const start = { chunks: 0, bytes: 0 };
  const boxes = new Map<ArrayJob, SlabBox[]>();
  for (const j of plan.jobs) {
    const list = slabsOf(j);
    boxes.set(j, list);
    list.forEach((b, i) => {
      totals.chunks += b.units;
      totals.bytes += b.bytes;
      if (journal.isDone(j.rel, i)) {
        start.chunks += b.units;
        start.bytes += b.bytes;
      }
    });
  }
  let slabsWritten = 0;
  let slabsSkipped = 0;
  const slabOp: SlabOptions = { ...op, ...(s.threads === undefined ? {} : { threads: s.threads }) };
  const progress = new CopyProgress(totals, start, hooks.progress);
  const slabMemory = new SlabBuffer();
  for (const j of plan.jobs) {
    const dst = await openArray(destStore, { path: joinPath(dest.path, j.rel), mode: "r+" });
    const list = boxes.get(j)!;
    for (let i = 0; i < list.length; i++) {
      if (journal.isDone(j.rel, i)) {
        slabsSkipped++;
        continue;
      }
      const step = progress.during(list[i]);
      await copySlab(j.source, dst, list[i].box, slabOp, hooks, (done, total) => {
        hooks.onChunk?.({ slabsThisRun: slabsWritten, done, total });
        step.onProgress(done, total);
      }, slabMemory);
      await journal.markDone(j.rel, i);
      slabsWritten++;
      hooks.onSlab?.({ slabsThisRun: slabsWritten });
      step.finish();
    }
  }
  await journal.remove();
  return { arrays: plan.jobs.length, slabsWritten, slabsSkipped, bytes: totals.bytes };
}
