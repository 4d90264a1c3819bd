/**
 * `copy` and `copyAll`: zarr-python's `zarr.copy` / `zarr.copy_all` between any two stores,
 * with the layout options of `parzarr cp` (chunks, shards, codec, format) and its engine
 * (engine.ts): slab by slab within a memory budget, every destination chunk written whole, on the
 * pool or inline.
 *
 * As in zarr-python, the destination is a group and each node lands at `dest/name`. What happens
 * when something is already there is decided per node by `ifExists`:
 * - `raise`: ALREADY_EXISTS on the first array (or array in a group's way) already there.
 * - `skip`: leave it (a group in the way skips its whole subtree).
 * - `replace`: delete it and copy; groups that exist are kept and their attributes updated.
 * - `skip_initialized`: an array whose chunks are all stored is left; one with the same shape,
 *   data type and chunk grid gets only its missing chunks (stored chunks are kept as they are,
 *   so an interrupted copy finishes where it stopped); anything else is replaced. zarr-python
 *   replaces a partly stored array whole; keeping its chunks is the one difference.
 */
import { AlreadyExistsError, InvalidArgumentError, NodeTypeError, NotFoundError, ReadOnlyError } from "../errors.js";
import { ZarrArray } from "../hierarchy/array.js";
import { Group, UnopenableNode } from "../hierarchy/group.js";
import { createGroup, openGroup } from "../hierarchy/open.js";
import type { GridOption } from "../hierarchy/create-options.js";
import { openNodeAt } from "../hierarchy/walk.js";
import { gridShape } from "../metadata/chunk-grid.js";
import type { JsonObject } from "../metadata/json.js";
import { checkOptionNames, type OperationOptions } from "../parallel/execution/options.js";
import { isWritable, type Store } from "../stores/types.js";
import { asStore, type UserStore } from "../stores/caller.js";
import { parseCodecSpec, type CodecSpec } from "./codec-spec.js";
import { CopyProgress, copySlab, countedItemBytes, joinPath, planCopy, slabsOf, type ArrayJob, type PlanSettings, type SlabBox, type SlabOptions } from "./engine.js";
import { assertNoOverlap } from "./overlap.js";
import { SlabBuffer } from "./slab-buffer.js";

/** What copy does with a node already at the destination: `raise` (ALREADY_EXISTS), `skip`, `replace`, or `skip_initialized` (copy only the chunks an equal array lacks). */
export type IfExists = "raise" | "skip" | "replace" | "skip_initialized";
const IF_EXISTS: readonly IfExists[] = ["raise", "skip", "replace", "skip_initialized"];

/** A node to copy: a handle, or a store and the node's path in it (default the root). */
export type CopySource = ZarrArray | Group | { store: Store | UserStore; path?: string };
/** The group to copy into: a handle, or a store and a path (a missing group there is created). */
export type CopyDestination = Group | { store: Store | UserStore; path?: string };

/** What `onProgress` gets as a copy goes. */
export interface CopyProgressInfo {
  /** Destination chunks (shards when sharded) written so far, and bytes of values in them. */
  chunks: number;
  /** Bytes of values in the chunks written so far. */
  bytes: number;
  /** Destination chunks the copy writes in all. */
  totalChunks: number;
  /** Bytes of values it writes in all. */
  totalBytes: number;
}

/** Options of copy and copyAll: naming, what to do with existing nodes, the new layout, memory. */
export interface CopyOptions extends Pick<OperationOptions, "threads" | "pool" | "signal"> {
  /** The name in the destination group (default: the source's own name; required for a store's root). */
  name?: string;
  /** What to do with a node already in the destination (default `raise`, as zarr-python). */
  ifExists?: IfExists;
  /** Destination chunk shape (default the source's); edge lists make a rectilinear grid (see GridOption). */
  chunks?: GridOption;
  /** Store chunks in shards of this shape (v3; a multiple of `chunks`). */
  shards?: GridOption;
  /** Compression, as `parzarr cp --codec` takes it (`"zstd:3"`, `"blosc:lz4:5:shuffle"`, `"none"`). */
  codec?: string | CodecSpec;
  /** Zarr format of what is created (default the destination group's). */
  format?: 2 | 3;
  /** Memory budget in bytes for data buffers (default 512 MiB). */
  memory?: number;
  /** Report what would be copied and skipped; write nothing. */
  dryRun?: boolean;
  /** Do not copy user attributes. */
  withoutAttrs?: boolean;
  /** Copy only the source and its immediate child arrays. */
  shallow?: boolean;
  /** Called as destination chunks are written. */
  onProgress?: (progress: CopyProgressInfo) => void;
}

/** One node of a copy: where it comes from and goes, and what was done. */
export interface CopyEntry {
  /** The source node's path ("/a/b"), as zarr-python's log names it. */
  source: string;
  /** Where it goes in the destination store. */
  dest: string;
  /** What the node is. */
  kind: "array" | "group";
  /** Whether it is copied or left as it is. */
  action: "copy" | "skip";
  /** An array's shape. */
  shape?: number[];
  /** An array's data type name. */
  dtype?: string;
  /** Bytes of values the copy writes (or would write, in a dry run). */
  bytes: number;
}

/** zarr-python's `(n_copied, n_skipped, n_bytes_copied)`, with what happened to each node. */
export interface CopyReport {
  /** Nodes copied. */
  copied: number;
  /** Nodes skipped. */
  skipped: number;
  /** Bytes of values written (0 in a dry run, as zarr-python). */
  bytesCopied: number;
  /** Each node and what happened to it, in copy order. */
  entries: CopyEntry[];
}

/** A record over the option names, so an option added to CopyOptions and not here does not compile. */
const COPY_OPTION_KEYS: Record<keyof CopyOptions, true> = {
  name: true, ifExists: true, chunks: true, shards: true, codec: true, format: true, memory: true, dryRun: true,
  withoutAttrs: true, shallow: true, onProgress: true, threads: true, pool: true, signal: true,
};
const COPY_OPTION_NAMES: readonly string[] = Object.keys(COPY_OPTION_KEYS);
const DEFAULT_MEMORY = 512 * 2 ** 20;

/** One node of the source, in the order zarr-python visits them (a group before its children). */
type Step =
  | { kind: "group"; rel: string; sourcePath: string; attributes: JsonObject }
  | { kind: "array"; rel: string; sourcePath: string; job: ArrayJob };

/** What is done with one node. */
type Action =
  | { kind: "group"; dest: string; entry: CopyEntry; how: "create" | "update" | "replace"; attributes: JsonObject }
  | { kind: "array"; dest: string; entry: CopyEntry; how: "create" | "replace"; job: ArrayJob; slabs: SlabBox[] }
  | { kind: "fill"; dest: string; entry: CopyEntry; job: ArrayJob; target: ZarrArray; slabs: SlabBox[] };

/**
 * Copies `source` (an array, or a group with everything below it) into the group `dest` as
 * `dest/name`, as zarr-python's `zarr.copy`. Between any stores: memory, folders, zip, HTTP
 * (read), S3. Source and destination may not overlap (INVALID_ARGUMENT before anything is written).
 */
export async function copy(source: CopySource, dest: CopyDestination, options: CopyOptions = {}): Promise<CopyReport> {
  checkOptionNames(options, COPY_OPTION_NAMES, "copy");
  const node = await sourceNode(source);
  const name = options.name ?? (node.path === "" ? "" : node.path.slice(node.path.lastIndexOf("/") + 1));
  if (name === "" || name.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw new InvalidArgumentError(
      options.name === undefined ? "copy: the source is a store's root, which has no name; pass options.name" : `copy: name ${JSON.stringify(name)} is not a path below the destination`,
    );
  }
  return copyRoots([{ node, name, isRoot: true }], dest, options);
}

/**
 * Copies every child of the group `source` into the group `dest` (zarr-python's
 * `zarr.copy_all`), then updates `dest`'s attributes with `source`'s.
 */
export async function copyAll(source: Group | { store: Store | UserStore; path?: string }, dest: CopyDestination, options: CopyOptions = {}): Promise<CopyReport> {
  checkOptionNames(options, COPY_OPTION_NAMES, "copyAll");
  if (options.name !== undefined) throw new InvalidArgumentError("copyAll: the children keep their names; name is for copy");
  const group = await sourceNode(source);
  if (!(group instanceof Group)) throw new NodeTypeError(`copyAll: the source ${group.name} is an array; use copy`);
  const roots: Root[] = [];
  for (const [name, node] of await group.members()) {
    if (node instanceof UnopenableNode) throw node.error;
    roots.push({ node, name, isRoot: false });
  }
  return copyRoots(roots, dest, options, group);
}

interface Root {
  node: ZarrArray | Group;
  name: string;
  /** zarr-python's `root`: `shallow` still copies a root group's children. */
  isRoot: boolean;
}

async function sourceNode(source: CopySource): Promise<ZarrArray | Group> {
  if (source instanceof ZarrArray || source instanceof Group) return source;
  return openNodeAt(storeOf(source, "source"), source.path ?? "");
}

/** The destination group when it exists (undefined when missing: the copy creates it). */
async function destinationGroup(dest: CopyDestination, options: CopyOptions): Promise<{ group?: Group; store: Store; path: string }> {
  if (dest instanceof Group) return { group: dest, store: dest.store, path: dest.path };
  const store = storeOf(dest, "destination");
  const path = dest.path ?? "";
  try {
    const node = await openNodeAt(store, path);
    if (node instanceof ZarrArray) throw new NodeTypeError(`copy: the destination ${node.name} is an array; copy into a group`);
    // Opened again writable: openNodeAt opens read-only.
    const group = options.dryRun || !isWritable(store) ? node : await openGroup(store, { path, mode: "r+" });
    return { group, store, path };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  return { store, path };
}

/** `{ store, path }`'s store: parzarr's own, or any object with `get` (zarrita's), wrapped. */
function storeOf(end: unknown, which: "source" | "destination"): Store {
  const store = (end as { store?: unknown } | null)?.store;
  if (typeof end !== "object" || typeof store !== "object" || store === null) {
    throw new InvalidArgumentError(`copy: the ${which} must be ${which === "source" ? "an array, a group," : "a group"} or { store, path }`);
  }
  return asStore(store as Store | UserStore);
}

async function copyRoots(roots: Root[], destInput: CopyDestination, options: CopyOptions, attrsFrom?: Group): Promise<CopyReport> {
  const ifExists = options.ifExists ?? "raise";
  if (!IF_EXISTS.includes(ifExists)) throw new InvalidArgumentError(`copy: ifExists must be one of ${IF_EXISTS.join(", ")}; got ${JSON.stringify(ifExists)}`);
  const dryRun = options.dryRun === true;
  const dest = await destinationGroup(destInput, options);
  if (!dryRun && !isWritable(dest.store)) throw new ReadOnlyError("copy: the destination store cannot be written");
  const destFormat = dest.group?.zarrFormat;
  if (options.format !== undefined && destFormat !== undefined && options.format !== destFormat) {
    throw new InvalidArgumentError(`copy: format ${options.format} inside a v${destFormat} group would mix formats in one hierarchy; copy into a v${options.format} group`);
  }
  const settings: PlanSettings = {
    chunks: options.chunks,
    shards: options.shards,
    codec: typeof options.codec === "string" ? parseCodecSpec(options.codec) : options.codec,
    format: options.format ?? destFormat,
    threads: options.threads,
    memory: options.memory ?? DEFAULT_MEMORY,
    skipUnreadable: false,
    dryRun,
  };
  const actions: Action[] = [];
  const report: CopyReport = { copied: 0, skipped: 0, bytesCopied: 0, entries: [] };
  for (const root of roots) {
    const destPath = joinPath(dest.path, root.name);
    // Before anything is planned or written: `replace` would delete a source inside the destination.
    assertNoOverlap({ store: root.node.store, path: root.node.path, text: `${root.node.name}` }, { store: dest.store, path: destPath });
    const steps = await stepsOf(root, settings, options.shallow === true);
    actions.push(...(await decide(steps, dest.group, dest.path, root.name, ifExists, report)));
  }
  report.entries.forEach((e) => (e.action === "copy" ? report.copied++ : report.skipped++));
  if (dryRun) return report;
  // Created only now, once every node has been planned and probed: a copy that fails writes nothing.
  const sourceFormat = attrsFrom?.zarrFormat ?? roots[0]?.node.zarrFormat ?? 3;
  const group = dest.group ?? (await createGroup(dest.store, { path: dest.path, zarrFormat: options.format ?? sourceFormat }));
  const totals = { chunks: 0, bytes: 0 };
  for (const a of actions) if (a.kind !== "group") for (const s of a.slabs) (totals.chunks += s.units), (totals.bytes += s.bytes);
  const progress = new CopyProgress(totals, { chunks: 0, bytes: 0 }, (chunks, bytes) =>
    options.onProgress?.({ chunks, bytes, totalChunks: totals.chunks, totalBytes: totals.bytes }),
  );
  const op: SlabOptions = { threads: options.threads, pool: options.pool, signal: options.signal };
  const rel = (path: string) => path.slice(dest.path === "" ? 0 : dest.path.length + 1);
  const slabMemory = new SlabBuffer();
  for (const a of actions) {
    const where = rel(a.dest);
    if (a.kind === "group") {
      if (a.how === "replace") await group.delete(where);
      if (a.how === "update") {
        if (!options.withoutAttrs) await ((await group.get(where)) as Group).updateAttrs(a.attributes);
      } else {
        await group.createGroup(where, { attributes: options.withoutAttrs ? {} : a.attributes });
      }
      continue;
    }
    let target: ZarrArray;
    if (a.kind === "fill") target = a.target;
    else {
      if (a.how === "replace") await group.delete(where);
      const { attributes, ...rest } = a.job.options;
      target = await group.createArray(where, { ...rest, attributes: options.withoutAttrs ? {} : attributes });
    }
    for (const slab of a.slabs) {
      const step = progress.during(slab);
      await copySlab(a.job.source, target, slab.box, op, {}, step.onProgress, slabMemory);
      step.finish();
      report.bytesCopied += slab.bytes;
    }
  }
  if (attrsFrom && !options.withoutAttrs) await group.updateAttrs(attrsFrom.attrs);
  return report;
}

/** The nodes under one root, planned by the engine, in zarr-python's order. */
async function stepsOf(root: Root, settings: PlanSettings, shallow: boolean): Promise<Step[]> {
  if (shallow && !root.isRoot && root.node instanceof Group) return [];
  const plan = await planCopy(root.node, settings, root.node.name);
  const abs = (rel: string) => joinPath(root.node.path, rel);
  const steps: Step[] = [
    ...plan.groups.map((g): Step => ({ kind: "group", rel: g.rel, sourcePath: abs(g.rel), attributes: g.attributes })),
    ...plan.jobs.map((job): Step => ({ kind: "array", rel: job.rel, sourcePath: abs(job.rel), job })),
  ];
  const depth = (rel: string) => (rel === "" ? 0 : rel.split("/").length);
  // Shallow: the root and its immediate child arrays (zarr-python does not recurse into child groups).
  const kept = shallow ? steps.filter((s) => depth(s.rel) === 0 || (depth(s.rel) === 1 && s.kind === "array")) : steps;
  // Pre-order: a group before everything below it, names sorted, as zarr-python walks `keys()`.
  const key = (s: Step) => (s.rel === "" ? [] : s.rel.split("/"));
  return kept.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return x.length - y.length;
  });
}

/** What the destination holds at a path: read through the group handle (consolidated metadata too). */
async function existing(group: Group | undefined, destRoot: string, path: string): Promise<ZarrArray | Group | undefined> {
  if (!group) return undefined;
  try {
    return await group.get(path.slice(destRoot === "" ? 0 : destRoot.length + 1));
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * Decides, node by node, what the copy does, reading the destination and writing nothing; the
 * entries go into `report`. Nodes below a group that is created or replaced are known to be
 * missing; nodes below a skipped group are not visited (zarr-python does not recurse into it).
 */
async function decide(steps: Step[], group: Group | undefined, destRoot: string, name: string, ifExists: IfExists, report: CopyReport): Promise<Action[]> {
  const actions: Action[] = [];
  const fresh: string[] = [];
  const skippedGroups: string[] = [];
  const under = (prefixes: string[], rel: string) => prefixes.some((p) => rel === p || rel.startsWith(p === "" ? "" : `${p}/`));
  for (const step of steps) {
    if (under(skippedGroups, step.rel)) continue;
    const dest = joinPath(destRoot, joinPath(name, step.rel));
    const there = under(fresh, step.rel) ? undefined : await existing(group, destRoot, dest);
    const entry: CopyEntry = { source: step.sourcePath === "" ? "/" : `/${step.sourcePath}`, dest, kind: step.kind, action: "copy", bytes: 0 };
    report.entries.push(entry);
    const parent = dest.includes("/") ? `/${dest.slice(0, dest.lastIndexOf("/"))}` : "/";
    if (step.kind === "group") {
      if (there instanceof ZarrArray && ifExists === "raise") throw new AlreadyExistsError(`copy: an array ${JSON.stringify(baseOf(dest))} already exists in destination ${parent}`);
      if (there instanceof ZarrArray && ifExists === "skip") {
        entry.action = "skip";
        skippedGroups.push(step.rel);
        continue;
      }
      const how = there instanceof Group ? "update" : there ? "replace" : "create";
      if (how !== "update") fresh.push(step.rel);
      actions.push({ kind: "group", dest, entry, how, attributes: step.attributes });
      continue;
    }
    const job = step.job;
    entry.shape = [...job.source.shape];
    entry.dtype = job.source.dtype;
    const slabs = slabsOf(job);
    const whole = slabs.reduce((n, s) => n + s.bytes, 0);
    if (there && ifExists === "raise") throw new AlreadyExistsError(`copy: an object ${JSON.stringify(baseOf(dest))} already exists in destination ${parent}`);
    if (there && ifExists === "skip") {
      entry.action = "skip";
      continue;
    }
    if (there instanceof ZarrArray && ifExists === "skip_initialized") {
      const missing = await missingSlabs(there, job, slabs);
      if (missing?.length === 0) {
        entry.action = "skip";
        continue;
      }
      if (missing) {
        entry.bytes = missing.reduce((n, s) => n + s.bytes, 0);
        actions.push({ kind: "fill", dest, entry, job, target: there, slabs: missing });
        continue;
      }
    }
    entry.bytes = whole;
    actions.push({ kind: "array", dest, entry, how: there ? "replace" : "create", job, slabs });
  }
  return actions;
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * For `skip_initialized`: the boxes the destination array still lacks — whole slabs where none
 * of a slab's chunks is stored, single chunks where some are — or undefined when the array
 * cannot take them (another shape, data type or chunk grid: it is replaced instead).
 */
async function missingSlabs(dst: ZarrArray, job: ArrayJob, slabs: SlabBox[]): Promise<SlabBox[] | undefined> {
  const unit = dst.metadata.chunks;
  const src = job.source;
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  // Slabs are cut on a regular grid: a rectilinear destination is replaced, not filled in.
  if (dst.metadata.rectilinear || !same(dst.shape, src.shape) || !same(unit, job.unit) || JSON.stringify(dst.dataType) !== JSON.stringify(src.dataType)) return undefined;
  const stored = new Set((await dst.chunkCoords()).map((c) => c.join(",")));
  const grid = gridShape(dst.shape, unit);
  if (stored.size === grid.reduce((a, b) => a * b, 1)) return [];
  const itemBytes = src.size === 0 ? 0 : countedItemBytes(src);
  const out: SlabBox[] = [];
  for (const slab of slabs) {
    const units = unitCoords(slab.box, unit);
    const lacking = units.filter((c) => !stored.has(c.join(",")));
    if (lacking.length === units.length) out.push(slab);
    else {
      for (const c of lacking) {
        const start = c.map((k, d) => k * unit[d]);
        const stop = start.map((a, d) => Math.min(dst.shape[d], a + unit[d]));
        out.push({ box: { start, stop }, units: 1, bytes: start.reduce((n, a, d) => n * (stop[d] - a), itemBytes) });
      }
    }
  }
  return out;
}

/** The coordinates of the destination units (chunks or shards) a unit-aligned box covers. */
function unitCoords(box: { start: number[]; stop: number[] }, unit: readonly number[]): number[][] {
  let out: number[][] = [[]];
  box.start.forEach((a, d) => {
    const next: number[][] = [];
    for (const prefix of out) for (let k = Math.floor(a / unit[d]); k * unit[d] < box.stop[d]; k++) next.push([...prefix, k]);
    out = next;
  });
  return out;
}
