/**
 * ZarrArray: a handle on one array in a store. `get` and `set` plan one chunk task per touched
 * chunk and hand them to an executor; the array itself never touches chunk bytes.
 */
import { BadSelectionError, InvalidArgumentError, ReadOnlyError, ShapeMismatchError } from "../errors.js";
import type { ArrayMetadata, CodecConfig } from "../metadata/array-metadata.js";
import { chunkKey, nodeKey } from "../metadata/chunk-key.js";
import {
  allocElements,
  isObjectType,
  isTypedArray,
  memoryBytesPerComponent,
  parseDataType,
  componentsPerElement,
  storedToScalar,
  toNumpyTypestr,
  v2DtypeJson,
  type DataType,
  type ElementArray,
  type Scalar,
} from "../metadata/dtype.js";
import { fieldView } from "../indexing/records.js";
import { toUserData } from "../indexing/values.js";
import { castScalar } from "../indexing/cast.js";
import type { JsonObject } from "../metadata/json.js";
import { isScalarInput, prepareWriteValue, type NDArray, type WriteInput } from "../indexing/ndarray.js";
import { chunkGridShape, mapPlan, planSelection, type ChunkPlan } from "../indexing/projection.js";
import { fullRankShape, normaliseSelection, selectionShape, type DimIndexer, type Selection } from "../indexing/selection.js";
import { contiguousStrides, product } from "../indexing/strided.js";
import { pipelineFor, type ChunkItem, type ReadTask, type TaskBuffer, type WriteTask, type WriteValue } from "../parallel/chunk-task.js";
import { placeOperation, runOperation } from "../parallel/coordinator.js";
import { toShared } from "../parallel/shared.js";
import type { OperationOptions } from "../parallel/options.js";
import { chunkLockRef, lockScopeOf } from "../parallel/lock-table.js";
import type { ProcessSynchronizer } from "../parallel/process-sync.js";
import { isWritable, type Store } from "../stores/types.js";
import { describePath, writeArrayMetadata } from "./node-io.js";
import { checkChunkSize, checkResultSize } from "../limits.js";
import type { ArrayOf, GetResult } from "./array-types.js";

export interface ArrayHandleOptions {
  readOnly: boolean;
  /** Store chunks whose values all equal the fill value (by default they are deleted). */
  writeEmptyChunks?: boolean;
  /** Lock files for partial-chunk writes shared with other processes. */
  synchronizer?: ProcessSynchronizer;
}

/**
 * `A` and `V` are the types of `get`'s NDArray data and scalars. A handle knows them when its data
 * type is known (`createArray({ dtype: "int32" })`, `openArray<"int32">`, `arr.typed("int32")`
 * give an `ArrayOf<"int32">`: Int32Array and number); otherwise they are every form.
 */
export class ZarrArray<out A extends ElementArray = ElementArray, out V extends Scalar = Scalar> {
  /** @internal use openArray/createArray. */
  constructor(
    readonly store: Store,
    readonly path: string,
    private meta: ArrayMetadata,
    private readonly options: ArrayHandleOptions,
  ) {
    // Refused before any chunk is allocated: metadata may come from anywhere.
    checkChunkSize(meta.chunks, meta.dtype.itemSize, `array ${describePath(path)}`);
  }

  get metadata(): Readonly<ArrayMetadata> {
    return this.meta;
  }
  get shape(): number[] {
    return [...this.meta.shape];
  }
  /**
   * The chunk shape a reader decodes: for a sharded array the inner chunks (as zarr-python 3's
   * `.chunks`); otherwise the chunk grid's chunk shape.
   */
  get chunks(): number[] {
    const inner = this.sharding?.chunk_shape;
    return Array.isArray(inner) ? (inner as number[]).slice() : [...this.meta.chunks];
  }
  /** The shard shape (the chunk grid's chunk shape) of a sharded array; null when not sharded. */
  get shards(): number[] | null {
    return this.sharding ? [...this.meta.chunks] : null;
  }
  private get sharding(): JsonObject | undefined {
    return this.meta.codecs.find((c) => c.name === "sharding_indexed")?.configuration;
  }
  get ndim(): number {
    return this.meta.shape.length;
  }
  get size(): number {
    return product(this.meta.shape);
  }
  /** The v3 name of the data type (`"float32"`); see `dataType` for byte order and size. */
  get dtype(): string {
    return this.meta.dtype.name;
  }
  get dataType(): DataType {
    return this.meta.dtype;
  }
  /** The numpy type string, as v2 metadata writes it (`"<f4"`); records give their field list as JSON. */
  get numpyDtype(): string {
    const dt = this.meta.dtype;
    return dt.kind === "structured" ? JSON.stringify(v2DtypeJson(dt)) : toNumpyTypestr(dt);
  }
  get fillValue(): Scalar | null {
    return this.meta.fillValue;
  }
  get zarrFormat(): 2 | 3 {
    return this.meta.zarrFormat;
  }
  get codecs(): CodecConfig[] {
    return this.meta.codecs.map((c) => ({ ...c }));
  }
  get readOnly(): boolean {
    return this.options.readOnly;
  }
  /** The user attributes (a copy: change them with setAttrs/updateAttrs). */
  get attrs(): JsonObject {
    return structuredClone(this.meta.attributes);
  }
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
    return chunkGridShape(this.meta.shape, this.meta.chunks);
  }

  /** The store key of a chunk from its grid coordinates. */
  chunkKey(coords: readonly number[]): string {
    return nodeKey(this.path, chunkKey(this.meta.chunkKeyEncoding, coords));
  }

  private writableStore() {
    if (this.options.readOnly || !isWritable(this.store)) {
      throw new ReadOnlyError(`array ${describePath(this.path)} is open read-only`);
    }
    return this.store;
  }

  /** Replaces the attributes. */
  async setAttrs(attributes: JsonObject): Promise<void> {
    const store = this.writableStore();
    const meta = { ...this.meta, attributes: structuredClone(attributes) };
    await writeArrayMetadata(store, this.path, meta);
    this.meta = meta;
  }

  /** Merges keys into the attributes. */
  async updateAttrs(update: JsonObject): Promise<void> {
    await this.setAttrs({ ...this.meta.attributes, ...update });
  }

  /** The chunk items of a selection, made lazily as the coordinator takes them. */
  private items(indexers: readonly DimIndexer[]): ChunkPlan<ChunkItem> {
    const chunks = this.meta.chunks;
    return mapPlan(planSelection(indexers, chunks), (p) => ({
      key: this.chunkKey(p.coords),
      origin: p.coords.map((c, d) => c * chunks[d]),
      chunkSel: p.chunkSel,
      outStart: p.outStart,
    }));
  }

  /**
   * Reads a selection. Returns an NDArray in C order, or a scalar when every dimension is
   * selected by an integer; no selection (null, undefined) is the whole array, an NDArray even
   * for a 0-d array (numpy's `a[...]`). Missing chunks read as the fill value. Strings come back
   * as `string[]`, byte strings and records as `Uint8Array[]`; `{ field }` on a record array
   * returns that field's values instead (see `fieldView`).
   *
   * The result's type follows the call (see array-types.ts): an NDArray when the selection
   * surely keeps a dimension (none, a slice, `null`, a string with `:`), its `data` typed by the
   * handle's data type when known (`ZarrArray<"float32">` gives a Float32Array).
   */
  async get(selection: Selection, options: OperationOptions & { field: string }): Promise<NDArray | Scalar>;
  async get<const S extends Selection = null>(selection?: S, options?: OperationOptions): Promise<GetResult<A, V, S>>;
  async get(selection?: Selection, options: OperationOptions & { field?: string } = {}): Promise<NDArray | Scalar> {
    // An unknown codec is reported even when every chunk is missing and none would be decoded.
    pipelineFor(this.meta);
    const indexers = normaliseSelection(selection, this.meta.shape);
    const full = fullRankShape(indexers);
    checkResultSize(full, this.meta.dtype.itemSize, `reading array ${describePath(this.path)}`);
    const items = this.items(indexers);
    const chunkBytes = this.chunkBytes();
    // An empty output of the type tells the coordinator whether workers could share it at all.
    const probe = allocElements(this.meta.dtype, 0);
    const raw = pipelineFor(this.meta).storesRawBytes;
    const placement = placeOperation({ store: this.store, chunkCount: items.count, chunkBytes, raw, op: "read", data: probe }, options);
    // Workers scatter into the output where it lies, so on the pool it is shared memory.
    const data = allocElements(this.meta.dtype, product(full), placement.where === "pool");
    const out: TaskBuffer = { data, strides: contiguousStrides(full) };
    const descriptor = this.store.descriptor();
    const makeTask = (batch: ChunkItem[]): ReadTask => ({ kind: "read", store: descriptor, meta: this.meta, items: batch, out });
    await runOperation(placement, items, chunkBytes, makeTask, this.store, options);
    const scalar = selection !== null && selection !== undefined && indexers.every((ix) => ix.kind === "int");
    const shape = selectionShape(indexers);
    if (options.field !== undefined) {
      const dt = this.meta.dtype;
      if (dt.kind !== "structured") throw new BadSelectionError(`array ${describePath(this.path)} has no fields: its type is ${dt.name}`);
      const view = fieldView({ data: data as Uint8Array, shape, stride: contiguousStrides(shape) }, dt, options.field);
      return scalar && view.shape.length === 0 ? storedToScalar(view.data, 0, dt.fields.find((f) => f.name === options.field)!.dtype) : view;
    }
    if (scalar) return storedToScalar(data, 0, this.meta.dtype);
    return { data: toUserData(this.meta.dtype, data, product(shape)), shape, stride: contiguousStrides(shape) };
  }

  /**
   * Writes a selection: a scalar is broadcast, an array must have the selection's shape. Chunks
   * that end up all fill value are deleted unless the array was opened with writeEmptyChunks.
   */
  async set(selection: Selection, value: WriteInput, options: OperationOptions = {}): Promise<void> {
    this.writableStore();
    pipelineFor(this.meta);
    const indexers = normaliseSelection(selection, this.meta.shape);
    const full = fullRankShape(indexers);
    const selShape = selectionShape(indexers);
    let writeValue: WriteValue;
    if (isScalarInput(value, this.meta.dtype)) {
      // Validates the scalar against the type once, before any chunk is touched.
      // Strings and byte strings are values as they are, not the JSON forms fill values use.
      const direct = typeof value === "string" || value instanceof Uint8Array;
      // Numbers follow the casting rule of indexing/cast.ts, as the elements of an array do.
      writeValue = { kind: "scalar", value: direct ? value : castScalar(value, this.meta.dtype) };
    } else {
      if (value === null || value === undefined) throw new ShapeMismatchError("cannot write null or undefined");
      const dropped = indexers.map((ix) => ix.kind === "int");
      writeValue = { kind: "array", buffer: prepareWriteValue(value, this.meta.dtype, selShape, full, dropped) };
    }
    const items = this.items(indexers);
    const chunkBytes = this.chunkBytes();
    const data = writeValue.kind === "array" ? writeValue.buffer.data : null;
    const raw = pipelineFor(this.meta).storesRawBytes;
    const placement = placeOperation({ store: this.store, chunkCount: items.count, chunkBytes, raw, op: "write", data }, options);
    if (placement.where === "pool" && writeValue.kind === "array" && isTypedArray(writeValue.buffer.data)) {
      // One copy into shared memory (none when it already is) so that workers read it in place.
      writeValue = { kind: "array", buffer: { ...writeValue.buffer, data: toShared(writeValue.buffer.data) } };
    }
    const descriptor = this.store.descriptor();
    const taskValue = writeValue;
    const writeEmptyChunks = this.options.writeEmptyChunks ?? false;
    // The process-wide lock table travels in every task (a SharedArrayBuffer, shared with workers).
    const lock = chunkLockRef(lockScopeOf(descriptor), this.options.synchronizer?.descriptor());
    const makeTask = (batch: ChunkItem[]): WriteTask => ({
      kind: "write",
      store: descriptor,
      meta: this.meta,
      items: batch,
      value: taskValue,
      writeEmptyChunks,
      lock,
    });
    await runOperation(placement, items, chunkBytes, makeTask, this.store, options);
  }

  /** Bytes of one decoded chunk in memory. */
  private chunkBytes(): number {
    const dt = this.meta.dtype;
    // Strings and byte strings are JS values of no fixed size (and always run inline): the
    // coordinator only needs an estimate, so count a reference each.
    if (isObjectType(dt)) return product(this.meta.chunks) * 8;
    return product(this.meta.chunks) * componentsPerElement(dt) * memoryBytesPerComponent(dt);
  }

  /** How many chunks of the grid are stored. */
  async nchunksInitialized(): Promise<number> {
    const prefix = this.path === "" ? "" : `${this.path}/`;
    const keys = new Set(await this.store.list(prefix));
    let n = 0;
    const grid = this.chunkGrid;
    const total = product(grid);
    const idx = new Array<number>(grid.length).fill(0);
    for (let i = 0; i < total; i++) {
      if (keys.has(this.chunkKey(idx))) n++;
      for (let d = grid.length - 1; d >= 0; d--) {
        if (++idx[d] < grid[d]) break;
        idx[d] = 0;
      }
    }
    return n;
  }

  /**
   * Bytes this array takes in its store: its metadata documents and every stored chunk, as
   * zarr-python's `nbytes_stored` counts them. Uses the store's `getSize` where it has one.
   */
  async nbytesStored(): Promise<number> {
    const prefix = this.path === "" ? "" : `${this.path}/`;
    const keys = await this.store.list(prefix);
    const sizeOf = async (key: string): Promise<number> => {
      const n = this.store.getSize ? await this.store.getSize(key) : (await this.store.get(key))?.length;
      return n ?? 0;
    };
    let total = 0;
    // A bounded number of stat calls in flight: a large array has many thousands of chunks.
    for (let i = 0; i < keys.length; i += 64) {
      const sizes = await Promise.all(keys.slice(i, i + 64).map(sizeOf));
      for (const n of sizes) total += n;
    }
    return total;
  }

  toString(): string {
    return `<ZarrArray ${this.name} shape=[${this.meta.shape}] dtype=${this.dtype} v${this.meta.zarrFormat}>`;
  }
}
