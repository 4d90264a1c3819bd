/**
 * ZarrArray: a handle on one array in a store. `get` and `set` resolve the selection, plan its
 * chunk items, check the output or value, and hand the operation to the execution layer
 * (parallel/execution/operation.ts); the array itself never touches chunk bytes.
 */
import { BadSelectionError, InvalidArgumentError, ReadOnlyError } from "../errors.js";
import { lazyFeatures } from "../lazy-features-loader.js";
import type { ArrayMetadata, CodecConfig } from "../metadata/array-metadata.js";
import { chunkKey, nodeKey } from "../metadata/chunk-key.js";
import type { DataType, ElementArray, Scalar } from "../metadata/dtype.js";
import { parseDataType, toNumpyTypestr, v2DtypeJson } from "../metadata/dtype-names.js";
import { storedToScalar } from "../metadata/scalars.js";
import { fieldView } from "../indexing/records.js";
import { toUserData } from "../indexing/values.js";
import type { JsonObject } from "../metadata/json.js";
import type { NDArray, WriteInput } from "../indexing/ndarray.js";
import { type ChunkShapes, checkShardEdges, chunkOrigin, chunkShapesJson, chunkShapeAt, gridAxes, gridShape } from "../metadata/chunk-grid.js";
import { mapPlan, planSelection, type ChunkPlan, type ChunkProjection } from "../indexing/projection.js";
import { fullRankShape, normaliseSelection, plainSelection, selectionShape, type Selection } from "../indexing/selection.js";
import type { ResolvedSelection } from "../indexing/fancy.js";
import { contiguousStrides, product } from "../indexing/strided.js";
import { pipelineReady } from "../parallel/chunk-io/chunk-codec.js";
import { taskMeta, type ChunkItem, type WriteValue } from "../parallel/chunk-io/chunk-task.js";
import { runRead, type ArrayRunOptions } from "../parallel/execution/operation.js";
import { placeOperation, runOperation } from "../parallel/execution/coordinator.js";
import { canStage } from "../parallel/execution/staged-output.js";
import { checkOptionNames, OPERATION_OPTION_NAMES, type OperationOptions } from "../parallel/execution/options.js";
import type { ReadOutput } from "../indexing/read-into.js";
import { cacheId, isFresh, type Recheck } from "../parallel/chunk-io/chunk-cache.js";
import { isWritable, type Store } from "../stores/types.js";
import { describePath, nodeLocation } from "./node-io.js";
import { checkChunkSize, checkResultSize } from "../limits.js";
import type { ArrayOf, GetResult, OutResult } from "./array-types.js";
import type { ChunkEntry, ChunkIterOptions } from "./chunk-iter.js";
import type { ArrayInfo } from "./info.js";

// The write paths (array-writes.ts) and the selections with integer arrays or masks (fancy.ts),
// imported on a handle's first write or such selection: a page that only reads slices never
// loads them, and once loaded a call goes straight through (no extra await).
const features = lazyFeatures;

/** `info()`'s data and the stored counts (array-info.ts), and listing and iterating chunks (chunk-iter.ts), loaded with their first use. */
const arrayInfo = features((m, a: ZarrArray) => m.arrayInfo(a));
const storedChunkCount = features((m, a: ZarrArray) => m.nchunksInitialized(a));
const storedBytes = features((m, a: ZarrArray) => m.nbytesStored(a));
const storedChunkCoords = features((m, a: ZarrArray) => m.storedChunkCoords(a));
const chunkIteration = features((m, a: ZarrArray, options: ChunkIterOptions) => m.iterChunks(a, options));

/** `get`'s `out` checked against a selection (indexing/read-into.ts), loaded with the first get that gives one. */
const readOutput = features(
  (m, resolved: ResolvedSelection, options: GetOptions, dtype: DataType, full: number[], dropped: boolean[], shape: number[]) =>
    m.selectionOutput(resolved, options, dtype, full, dropped, shape),
);

/** The stored metadata read again under recheckCachedMetadata (revalidate.ts), loaded with the first recheck. */
const revalidated = features((m, a: ZarrArray, version: string | undefined) => m.revalidatedMetadata({ store: a.store, path: a.path, meta: a.meta, assumed: a.options.assumed }, version));

/** `then` on a selection resolved at once, in the caller's turn, or once its module has loaded. */
const afterResolving = <T>(at: ResolvedSelection | Promise<ResolvedSelection>, then: (at: ResolvedSelection) => Promise<T>): Promise<T> =>
  at instanceof Promise ? at.then(then) : then(at);

export interface ArrayHandleOptions extends ArrayRunOptions {
  readOnly: boolean;
  /**
   * Where the metadata came from when not from the store at open (open-options.ts): "assumed"
   * (`assumeMetadata`: the store's document is never read or written, so the shape and attributes
   * cannot change) or "cached" (`assumeCachedMetadata`: checked against the store's document
   * when an operation rewrites it).
   */
  assumed?: "assumed" | "cached";
  /** When the array's metadata document is revalidated before a read or write (default "open"). */
  recheckCachedMetadata?: Recheck;
}

/** Options of `get`: those of every operation, a record field, and the buffer to read into. */
export interface GetOptions extends OperationOptions {
  /** Of a record array: read this field's values. */
  field?: string;
  /** Read into this buffer (see `get`). */
  out?: ReadOutput;
}

/** Checked by the compiler like OPERATION_OPTION_NAMES: a new get option must be listed here. */
const GET_ONLY_KEYS: Record<Exclude<keyof GetOptions, keyof OperationOptions>, true> = { field: true, out: true };
const GET_OPTION_NAMES = [...OPERATION_OPTION_NAMES, ...Object.keys(GET_ONLY_KEYS)];

/** `arr.oindex`, `arr.vindex`, `arr.blocks`: a kind of selection's reads and writes. */
export interface SelectionAccess {
  /** Reads the selection into `options.out`, as ZarrArray.get does. */
  get<O extends ReadOutput>(selection: Selection, options: GetOptions & { out: O }): Promise<OutResult<O>>;
  /** Reads the selection: an NDArray, or a scalar where every dimension was an integer. */
  get(selection: Selection, options?: GetOptions): Promise<NDArray | Scalar>;
  /** Writes a value (an NDArray, or a scalar to every selected element) to the selection. */
  set(selection: Selection, value: WriteInput, options?: OperationOptions): Promise<void>;
}

/**
 * `A` and `V` are the types of `get`'s NDArray data and scalars. A handle knows them when its data
 * type is known (`createArray({ dtype: "int32" })`, `openArray<"int32">`, `arr.typed("int32")`
 * give an `ArrayOf<"int32">`: Int32Array and number); otherwise they are every form.
 */
export class ZarrArray<out A extends ElementArray = ElementArray, out V extends Scalar = Scalar> {
  /** For `recheckCachedData: "open"`: cached chunks checked since then are fresh. */
  private readonly openedAt: number;
  /** When the metadata was last checked against the store, and the version then read. */
  private metaCheckedAt: number;
  private metaVersion: string | undefined;
  /** @hidden use openArray/createArray (hidden from the reference only: the .d.ts keeps its signature). */
  constructor(
    /** The store holding the array. */
    readonly store: Store,
    /** Its path in the store ("" for the root). */
    readonly path: string,
    /** @internal the metadata in force (array-writes.ts replaces it after a rewrite). */
    public meta: ArrayMetadata,
    /** @internal */
    readonly options: ArrayHandleOptions,
  ) {
    this.openedAt = Date.now();
    this.metaCheckedAt = this.openedAt;
    this.checkLayout(meta);
  }

  /**
   * Refused before any chunk is allocated: metadata may come from anywhere, and a resize or another
   * writer's may bring a rectilinear grid's huge edge (past the old end) into the shape.
   * @internal
   */
  checkLayout(meta: ArrayMetadata): void {
    checkChunkSize(meta.chunks, meta.dtype.itemSize, `array ${describePath(this.path)}`);
    const inner = meta.codecs.find((c) => c.name === "sharding_indexed")?.configuration?.chunk_shape;
    if (Array.isArray(inner)) checkShardEdges(meta.rectilinear, inner as number[], `array ${describePath(this.path)}`);
  }

  /** The metadata as parsed, the same model for v2 and v3. */
  get metadata(): Readonly<ArrayMetadata> {
    return this.meta;
  }
  /** Elements along each dimension (a copy). */
  get shape(): number[] {
    return [...this.meta.shape];
  }
  /**
   * The chunk shape a reader decodes: for a sharded array the inner chunks (as zarr-python 3's
   * `.chunks`); otherwise the chunk grid's chunk shape, on a rectilinear grid its largest edges
   * (`chunkShapes` has the edges).
   */
  get chunks(): number[] {
    const inner = this.sharding?.chunk_shape;
    return Array.isArray(inner) ? (inner as number[]).slice() : [...this.meta.chunks];
  }
  /**
   * A rectilinear grid's edges per dimension, as its metadata's `chunk_shapes` (one integer: a
   * uniform edge; a list of edges and `[edge, count]` runs); null for the regular grid.
   */
  get chunkShapes(): ChunkShapes | null {
    return this.meta.rectilinear ? chunkShapesJson(this.meta.rectilinear) : null;
  }
  /** The shard shape (the chunk grid's chunk shape, its largest edges when rectilinear) of a sharded array; null when not sharded. */
  get shards(): number[] | null {
    return this.sharding ? [...this.meta.chunks] : null;
  }
  private get sharding(): JsonObject | undefined {
    return this.meta.codecs.find((c) => c.name === "sharding_indexed")?.configuration;
  }
  /** The number of dimensions. */
  get ndim(): number {
    return this.meta.shape.length;
  }
  /** The number of elements. */
  get size(): number {
    return product(this.meta.shape);
  }
  /** The v3 name of the data type (`"float32"`); see `dataType` for byte order and size. */
  get dtype(): string {
    return this.meta.dtype.name;
  }
  /** The data type, parsed: kind, item size, byte order. */
  get dataType(): DataType {
    return this.meta.dtype;
  }
  /** The numpy type string, as v2 metadata writes it (`"<f4"`); records give their field list as JSON. */
  get numpyDtype(): string {
    const dt = this.meta.dtype;
    return dt.kind === "structured" ? JSON.stringify(v2DtypeJson(dt)) : toNumpyTypestr(dt);
  }
  /** What unwritten elements read as; null only for v2 `fill_value: null` (then zeros). */
  get fillValue(): Scalar | null {
    return this.meta.fillValue;
  }
  /** The Zarr format version. */
  get zarrFormat(): 2 | 3 {
    return this.meta.zarrFormat;
  }
  /** The whole codec chain, v3 style (for v2: its order, filters and compressor as codecs). */
  get codecs(): CodecConfig[] {
    return this.meta.codecs.map((c) => ({ ...c }));
  }
  /** Whether writes are refused (mode "r", or a read-only store). */
  get readOnly(): boolean {
    return this.options.readOnly;
  }
  /** The user attributes (a copy: change them with setAttrs/updateAttrs). */
  get attrs(): JsonObject {
    return structuredClone(this.meta.attributes);
  }
  /** The path with a leading "/", as zarr-python names nodes. */
  get name(): string {
    return this.path === "" ? "/" : `/${this.path}`;
  }

  /**
   * This handle with its data type in its type, checked: `(await openArray(p)).typed("float32")`
   * gives a `ZarrArray<"float32">` whose `get` returns Float32Array data, or throws
   * INVALID_ARGUMENT when the array holds another type. Takes v3 names and numpy type strings.
   */
  typed<T extends string>(dtype: T): ArrayOf<T> {
    let want: string;
    try {
      want = parseDataType(dtype).name;
    } catch {
      throw new InvalidArgumentError(`typed(${JSON.stringify(dtype)}): not a data type`);
    }
    if (want !== this.meta.dtype.name) {
      throw new InvalidArgumentError(`array ${describePath(this.path)} holds ${this.meta.dtype.name}, not ${dtype}`);
    }
    return this as unknown as ArrayOf<T>;
  }

  /** Number of chunks in the grid along each dimension. */
  get chunkGrid(): number[] {
    return gridShape(this.meta.shape, gridAxes(this.meta));
  }

  /** The store key of a chunk from its grid coordinates. */
  chunkKey(coords: readonly number[]): string {
    return nodeKey(this.path, chunkKey(this.meta.chunkKeyEncoding, coords));
  }

  /** @internal the store, when this handle may write to it. */
  writableStore() {
    if (this.options.readOnly || !isWritable(this.store)) {
      throw new ReadOnlyError(`array ${nodeLocation(this.store, this.path)} is open read-only`);
    }
    return this.store;
  }

  /** @internal called before this handle rewrites the array's metadata (consolidated handles go stale). */
  metadataWillChange(): void {}

  /** Replaces the attributes (the rest of the metadata, the shape too, is kept as stored). */
  async setAttrs(attributes: JsonObject): Promise<void> {
    // Copied now: the caller may change its object before the writes' module has loaded.
    const attrs = structuredClone(attributes);
    return features((m) => m.arrayWrites.setAttrs(this, attrs))();
  }

  /** Merges keys into the attributes stored now, as zarr-python does (another writer may have set some). */
  async updateAttrs(update: JsonObject): Promise<void> {
    const add = structuredClone(update);
    return features((m) => m.arrayWrites.updateAttrs(this, add))();
  }

  /**
   * Under `recheckCachedMetadata` (true, or seconds since the last check): before a read or write,
   * a conditional read of the array's document (.zarray / zarr.json); when it changed (another
   * writer resized the array, say) the handle takes the stored metadata, checked as
   * assumeCachedMetadata's when the handle assumed it. Assumed metadata is never revalidated.
   */
  private async revalidateMetadata(): Promise<void> {
    const now = Date.now();
    const changed = await revalidated(this, this.metaVersion);
    if (changed) {
      if (changed.version !== "") this.metaVersion = changed.version;
      this.checkLayout(changed.meta);
      this.meta = changed.meta;
    }
    this.metaCheckedAt = now;
  }

  /**
   * Checked before awaiting revalidateMetadata: a get or set that needs no check must reach its
   * placement without yielding, so that a pool closed right after the call still runs it.
   */
  private metadataIsStale(): boolean {
    const recheck = this.options.recheckCachedMetadata ?? "open";
    return this.options.assumed !== "assumed" && !isFresh(recheck, this.metaCheckedAt, this.openedAt);
  }

  /** @internal the chunk items of a plan, made lazily as the coordinator takes them. */
  items(plan: ChunkPlan<ChunkProjection>, meta: ArrayMetadata = this.meta): ChunkPlan<ChunkItem> {
    const axes = gridAxes(meta);
    const uneven = meta.rectilinear !== undefined;
    return mapPlan(plan, (p) => {
      const item: ChunkItem = {
        key: nodeKey(this.path, chunkKey(meta.chunkKeyEncoding, p.coords)),
        origin: chunkOrigin(axes, p.coords),
        chunkSel: p.chunkSel,
        outStart: p.outStart,
      };
      if (uneven) item.shape = chunkShapeAt(axes, p.coords);
      if (p.outStep) item.outStep = p.outStep;
      if (p.scatter) item.scatter = p.scatter;
      return item;
    });
  }

  /**
   * A selection's chunk plan and shapes: `full` is the layout of the output (or value) buffer
   * the tasks address, `shape` the result's shape, `scalar` whether the result is one element.
   * @internal
   */
  layout(sel: ResolvedSelection, meta: ArrayMetadata = this.meta): { plan: () => ChunkPlan<ChunkProjection>; full: number[]; shape: number[]; dropped: boolean[]; scalar: boolean } {
    // The plan is made when asked for: a read checks its result's size first.
    if (sel.kind === "points") {
      return {
        plan: () => sel.plan(meta.shape, gridAxes(meta)),
        full: [sel.count],
        shape: sel.shape,
        dropped: [false],
        scalar: sel.shape.length === 0,
      };
    }
    const { indexers } = sel;
    return {
      plan: () => planSelection(indexers, gridAxes(meta)),
      full: fullRankShape(indexers),
      shape: selectionShape(indexers),
      dropped: indexers.map((ix) => ix.kind === "int"),
      scalar: indexers.every((ix) => ix.kind === "int"),
    };
  }

  /**
   * Reads a selection. Returns an NDArray in C order, or a scalar when every dimension is
   * selected by an integer; no selection (null, undefined) is the whole array, an NDArray even
   * for a 0-d array (numpy's `a[...]`). Missing chunks read as the fill value. Strings come back
   * as `string[]`, byte strings and records as `Uint8Array[]`; `{ field }` on a record array
   * returns that field's values instead (see `fieldView`). Integer arrays and masks in the
   * selection work as in zarr-python's `__getitem__` (see `oindex`, `vindex`).
   *
   * With `out` (a typed array of the selection's size in C order, or an NDArray of its shape, of
   * the class `get` would return) the values are read into it and the result is an NDArray over
   * `out`'s own memory. Workers write into an `out` on a SharedArrayBuffer directly; any other
   * `out` is filled through reused shared buffers copied into it here (staged-output.ts), except
   * for point and integer-array selections, which run on this thread (asking for threads then is
   * an INVALID_ARGUMENT).
   *
   * The result's type follows the call (see array-types.ts): an NDArray when the selection
   * surely keeps a dimension (none, a slice, `null`, a string with `:`), its `data` typed by the
   * handle's data type when known (an `ArrayOf<"float32">` gives a Float32Array).
   */
  async get<O extends ReadOutput>(selection: Selection, options: GetOptions & { out: O }): Promise<OutResult<O>>;
  async get(selection: Selection, options: GetOptions & { field: string }): Promise<NDArray | Scalar>;
  async get<const S extends Selection = null>(selection?: S, options?: OperationOptions): Promise<GetResult<A, V, S>>;
  async get(selection?: Selection, options: GetOptions = {}): Promise<NDArray | Scalar> {
    const whole = selection === null || selection === undefined;
    return this.whenReady("get", options, () => afterResolving(this.resolve(selection), (at) => this.readPlan(at, options, whole)));
  }

  /**
   * Runs a get or set after its opening steps: options checked, the store writable (set), the
   * metadata revalidated when stale, the codecs loaded (so an unknown codec is reported even when
   * no chunk would be decoded). Without a wait `run` starts synchronously (see metadataIsStale).
   */
  private async whenReady<T>(op: "get" | "set", options: object, run: () => Promise<T>): Promise<T> {
    checkOptionNames(options, op === "get" ? GET_OPTION_NAMES : OPERATION_OPTION_NAMES, op);
    if (op === "set") this.writableStore();
    if (this.metadataIsStale()) await this.revalidateMetadata();
    const loading = pipelineReady(this.meta);
    if (loading) await loading;
    return run();
  }

  /** Orthogonal selection, as zarr-python's `oindex` / `get_orthogonal_selection`: each dimension
   * takes an integer, a slice, an integer array (any order, repeats, negatives) or a mask. */
  get oindex(): SelectionAccess {
    return this.access((sel) => ({ kind: "orthogonal", indexers: normaliseSelection(sel, this.meta.shape) }));
  }

  /** Point selection, as zarr-python's `vindex`: one integer array per dimension broadcast
   * together, or a mask `{ data, shape }` of the array's shape. Writes of repeated points: last wins. */
  get vindex(): SelectionAccess {
    return this.access(features((m, sel: Selection) => m.resolvePoints(sel, this.meta.shape)));
  }

  /** Block selection, as zarr-python's `blocks`: whole chunks of the chunk grid (the shards of a
   * sharded array) by chunk index and step-1 slices of chunk indices. */
  get blocks(): SelectionAccess {
    return this.access(features((m, sel: Selection) => m.resolveBlocks(sel, this.meta.shape, gridAxes(this.meta))));
  }

  /** A get/set selection resolved: at once without integer arrays or masks (or once fancy.ts is loaded), else after loading it. */
  private resolve(selection: Selection): ResolvedSelection | Promise<ResolvedSelection> {
    const plain = plainSelection(selection, this.meta.shape);
    return plain ? { kind: "orthogonal", indexers: plain } : features((m) => m.resolveSelection(selection, this.meta.shape))();
  }

  private access(resolve: (selection: Selection) => ResolvedSelection | Promise<ResolvedSelection>): SelectionAccess {
    return {
      // The overloads only narrow the result's type (an `out` is always filled as an NDArray).
      get: ((selection: Selection, options: GetOptions = {}) =>
        this.whenReady("get", options, () => afterResolving(resolve(selection), (at) => this.readPlan(at, options)))) as SelectionAccess["get"],
      set: (selection, value, options = {}) =>
        this.whenReady("set", options, () => afterResolving(resolve(selection), (at) => features((m) => m.arrayWrites.writePlan(this, at, value, options))())),
    };
  }

  /** `whole`: the caller named no selection, so even a 0-d array's result is an NDArray. */
  private async readPlan(resolved: ResolvedSelection, options: GetOptions, whole = false): Promise<NDArray | Scalar> {
    // One metadata version throughout: a resize or recheck while read-into.ts loads must not mix two.
    const meta = this.meta;
    const layout = this.layout(resolved, meta);
    const { full, shape, dropped } = layout;
    const scalar = layout.scalar && !whole;
    // `out` checked (read-into.ts, loaded with the first get that gives one) before anything is read.
    const prepared = options.out === undefined ? null : readOutput(resolved, options, meta.dtype, full, dropped, shape);
    // Awaited only while its module loads: once loaded, the read still starts in the caller's turn.
    const into = prepared instanceof Promise ? await prepared : prepared;
    const what = `reading array ${describePath(this.path)}`;
    if (into === null) checkResultSize(full, meta.dtype.itemSize, what);
    const { store, options: array, openedAt } = this;
    const items = this.items(layout.plan(), meta);
    const data = await runRead({ store, meta, items, full, into, stageable: canStage(resolved), openedAt, what, array, options });
    if (into !== null) return into.result;
    if (options.field !== undefined) {
      const dt = meta.dtype;
      if (dt.kind !== "structured") throw new BadSelectionError(`array ${describePath(this.path)} has no fields: its type is ${dt.name}`);
      const view = fieldView({ data: data as Uint8Array, shape, stride: contiguousStrides(shape) }, dt, options.field);
      return scalar && view.shape.length === 0 ? storedToScalar(view.data, 0, dt.fields.find((f) => f.name === options.field)!.dtype) : view;
    }
    if (scalar) return storedToScalar(data, 0, meta.dtype);
    return { data: toUserData(meta.dtype, data, product(shape)), shape, stride: contiguousStrides(shape) };
  }

  /**
   * Writes a selection: a scalar is broadcast, an array must have the selection's shape. Chunks
   * that end up all fill value are deleted unless the array was opened with writeEmptyChunks.
   * Integer arrays and masks in the selection work as in zarr-python's `__setitem__`.
   */
  async set(selection: Selection, value: WriteInput, options: OperationOptions = {}): Promise<void> {
    return this.whenReady("set", options, () => features((m) => m.arrayWrites.writePlan(this, m.resolveSelection(selection, this.meta.shape), value, options))());
  }

  /**
   * Changes the shape, as zarr-python's `resize`: any dimension may grow or shrink. The metadata is
   * written first (one document, replaced atomically by the store), then the chunks wholly
   * outside the new shape are deleted; edge chunks keep their stored bytes, so elements beyond
   * the new edge that come back into the shape by a later growth read what was stored there, as
   * in zarr-python.
   */
  resize(shape: readonly number[]): Promise<void> {
    return features((m) => m.arrayWrites.resize(this, shape))();
  }

  /**
   * Appends `value` along `axis` (zarr-python's `append`): the array grows by the value's length
   * on that axis, every other dimension must match. Returns the new shape. The shape change is
   * made under the lock of the metadata key (the ProcessSynchronizer's too, when the array has
   * one) starting from the metadata the store holds, so concurrent appends get disjoint regions.
   */
  append(value: WriteInput, axis = 0, options: OperationOptions = {}): Promise<number[]> {
    return features((m) => m.arrayWrites.append(this, value, axis, options))();
  }

  /**
   * @internal the write of chunk items (array-writes.ts), on this handle's store and options: the
   * write (write-operation.ts, loaded with array-writes.ts) is handed the coordinator and the chunk runner.
   */
  writeItems(items: ChunkPlan<ChunkItem>, value: WriteValue, options: OperationOptions): Promise<void> {
    const op = { store: this.store, meta: this.meta, items, value, array: this.options, options };
    return features((m) => m.runWrite(op, { placeOperation, runOperation, taskMeta }))();
  }

  /** @internal drops chunks from the cache, if the handle has one, after this handle changed them. */
  forgetCached(keys: readonly string[]): void {
    const { cache } = this.options;
    if (cache) for (const key of keys) cache.drop(cacheId(this.store, this.meta, key));
  }

  /**
   * What zarr-python's `.info` reports: type, shape, chunks, shards, order, compressor/codecs,
   * fill value, store, bytes and bytes stored, storage ratio, chunks initialised (`formatInfo`
   * prints it as zarr-python does; `parzarr info` shows the same facts).
   */
  info(): Promise<ArrayInfo> {
    return arrayInfo(this);
  }

  /** The grid coordinates of the stored chunks (shards, when sharded), in C order. */
  chunkCoords(): Promise<number[][]> {
    return storedChunkCoords(this);
  }

  /**
   * The stored chunks (or with `all`, every chunk of the grid) one at a time, each as its
   * coordinates, its region and its values: `ahead` chunks (default 2) are read ahead, on the
   * pool when `threads`/`pool` ask for it, so memory stays bounded for streaming jobs.
   */
  async *iterChunks(options: ChunkIterOptions = {}): AsyncGenerator<ChunkEntry> {
    yield* await chunkIteration(this, options);
  }

  /** How many chunks of the grid are stored. */
  nchunksInitialized(): Promise<number> {
    return storedChunkCount(this);
  }

  /**
   * Bytes this array takes in its store: its metadata documents and every stored chunk, as
   * zarr-python's `nbytes_stored` counts them. Uses the store's `getSize` where it has one.
   */
  nbytesStored(): Promise<number> {
    return storedBytes(this);
  }

  /** `<ZarrArray /a shape=[...] dtype=float32 v3>`. */
  toString(): string {
    return `<ZarrArray ${this.name} shape=[${this.meta.shape}] dtype=${this.dtype} v${this.meta.zarrFormat}>`;
  }
}
