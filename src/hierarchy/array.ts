/**
 * ZarrArray: a handle on one array in a store. `get` and `set` plan one chunk task per touched
 * chunk and hand them to an executor; the array itself never touches chunk bytes.
 */
import { ReadOnlyError, ShapeMismatchError } from "../errors.js";
import type { ArrayMetadata, CodecConfig } from "../metadata/array-metadata.js";
import { chunkKey, nodeKey } from "../metadata/chunk-key.js";
import {
  allocTypedArray,
  parseFillValue,
  storedToScalar,
  toNumpyTypestr,
  type DataType,
  type Scalar,
} from "../metadata/dtype.js";
import type { JsonObject } from "../metadata/json.js";
import { isScalarInput, prepareWriteValue, type NDArray, type WriteInput } from "../indexing/ndarray.js";
import { chunkGridShape, projectSelection, type ChunkProjection } from "../indexing/projection.js";
import { fullRankShape, normaliseSelection, selectionShape, type Selection } from "../indexing/selection.js";
import { contiguousStrides, product } from "../indexing/strided.js";
import { pipelineFor, type ChunkItem, type ReadTask, type WriteTask, type WriteValue } from "../parallel/chunk-task.js";
import { runTasksInline } from "../parallel/inline-executor.js";
import type { OperationOptions } from "../parallel/options.js";
import { chunkLockRef, lockScopeOf } from "../parallel/lock-table.js";
import type { ProcessSynchronizer } from "../parallel/process-sync.js";
import { isWritable, type Store } from "../stores/types.js";
import { describePath, writeArrayMetadata } from "./node-io.js";
import { checkChunkSize, checkResultSize } from "../limits.js";

export interface ArrayHandleOptions {
  readOnly: boolean;
  /** Store chunks whose values all equal the fill value (by default they are deleted). */
  writeEmptyChunks?: boolean;
  /** Lock files for partial-chunk writes shared with other processes. */
  synchronizer?: ProcessSynchronizer;
}

export class ZarrArray {
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
  get chunks(): number[] {
    return [...this.meta.chunks];
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
  /** The numpy type string, as v2 metadata writes it (`"<f4"`). */
  get numpyDtype(): string {
    return toNumpyTypestr(this.meta.dtype);
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

  private items(projections: ChunkProjection[]): ChunkItem[] {
    return projections.map((p) => ({
      key: this.chunkKey(p.coords),
      origin: p.coords.map((c, d) => c * this.meta.chunks[d]),
      chunkSel: p.chunkSel,
      outStart: p.outStart,
    }));
  }

  /**
   * Reads a selection. Returns an NDArray in C order, or a scalar when every dimension is
   * selected by an integer. Missing chunks read as the fill value.
   */
  async get(selection?: Selection, options: OperationOptions = {}): Promise<NDArray | Scalar> {
    // An unknown codec is reported even when every chunk is missing and none would be decoded.
    pipelineFor(this.meta);
    const indexers = normaliseSelection(selection, this.meta.shape);
    const full = fullRankShape(indexers);
    checkResultSize(full, this.meta.dtype.itemSize, `reading array ${describePath(this.path)}`);
    const data = allocTypedArray(this.meta.dtype, product(full));
    const out = { data, strides: contiguousStrides(full) };
    const descriptor = this.store.descriptor();
    const tasks: ReadTask[] = this.items(projectSelection(indexers, this.meta.chunks)).map((item) => ({
      kind: "read",
      store: descriptor,
      meta: this.meta,
      items: [item],
      out,
    }));
    await runTasksInline(tasks, this.store, options);
    if (indexers.every((ix) => ix.kind === "int")) return storedToScalar(data, 0, this.meta.dtype);
    const shape = selectionShape(indexers);
    return { data, shape, stride: contiguousStrides(shape) };
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
      writeValue = { kind: "scalar", value: parseFillValue(value, this.meta.dtype, "value") };
    } else {
      if (value === null || value === undefined) throw new ShapeMismatchError("cannot write null or undefined");
      const dropped = indexers.map((ix) => ix.kind === "int");
      writeValue = { kind: "array", buffer: prepareWriteValue(value, this.meta.dtype, selShape, full, dropped) };
    }
    const descriptor = this.store.descriptor();
    const lock = chunkLockRef(lockScopeOf(descriptor), this.options.synchronizer?.descriptor());
    const tasks: WriteTask[] = this.items(projectSelection(indexers, this.meta.chunks)).map((item) => ({
      kind: "write",
      store: descriptor,
      meta: this.meta,
      items: [item],
      value: writeValue,
      writeEmptyChunks: this.options.writeEmptyChunks ?? false,
      lock,
    }));
    await runTasksInline(tasks, this.store, options);
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

  toString(): string {
    return `<ZarrArray ${this.name} shape=[${this.meta.shape}] dtype=${this.dtype} v${this.meta.zarrFormat}>`;
  }
}
