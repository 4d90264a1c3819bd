/**
 * zarr-python's creation helpers: `zeros`, `ones`, `full`, `empty`, `array(data)` and the `*Like`
 * forms that copy an existing array's layout. As in zarr-python 2 the data type defaults to
 * float64 and the store to a new MemoryStore; `ones`/`full` set the fill value and write no
 * chunk (missing chunks read as the fill value).
 */
import { InvalidArgumentError } from "../errors.js";
import type { NDArray } from "../indexing/ndarray.js";
import type { ProcessSynchronizer } from "../parallel/sync/process-sync.js";
import type { ConditionalWritesOption } from "../parallel/sync/conditional-writes.js";
import { MemoryStore } from "../stores/memory.js";
import type { OperationOptions } from "../parallel/execution/options.js";
import type { ZarrArray } from "./array.js";
import type { CreateArrayOptions } from "./create-options.js";
import { createArray, type StoreInput } from "./open.js";

/** createArray's options without the shape (given apart), with the store and an optional dtype. */
export type CreationOptions = Omit<CreateArrayOptions, "shape" | "dtype" | "fillValue"> & {
  /** Where to create it; a new MemoryStore when omitted. */
  store?: StoreInput;
  /** The array's path inside the store ("" or omitted: the root). */
  path?: string;
  /** Defaults to float64, as zarr-python 2. */
  dtype?: CreateArrayOptions["dtype"];
  /** Store chunks whose values all equal the fill value. */
  writeEmptyChunks?: boolean;
  /** Lock files for partial-chunk writes from several processes (see OpenOptions.synchronizer). */
  synchronizer?: ProcessSynchronizer;
  /** Partial-chunk writes by compare-and-swap (see OpenOptions.conditionalWrites). */
  conditionalWrites?: ConditionalWritesOption;
};

function create(shape: readonly number[], fillValue: unknown, options: CreationOptions): Promise<ZarrArray> {
  const { store, dtype, ...rest } = options;
  return createArray(store ?? new MemoryStore(), { ...rest, shape, dtype: dtype ?? "float64", fillValue });
}

/** An array of zeros (fill value 0; no chunk stored). */
export function zeros(shape: readonly number[], options: CreationOptions = {}): Promise<ZarrArray> {
  return create(shape, 0, options);
}

/** An array of ones (fill value 1; no chunk stored). */
export function ones(shape: readonly number[], options: CreationOptions = {}): Promise<ZarrArray> {
  return create(shape, 1, options);
}

/** An array whose every element is `fillValue` (the fill value; no chunk stored). */
export function full(shape: readonly number[], fillValue: unknown, options: CreationOptions = {}): Promise<ZarrArray> {
  return create(shape, fillValue, options);
}

/**
 * An array with no values written. zarr-python 2 leaves its fill value unset (`null`); v2 does the
 * same here (missing chunks read as zeros), v3 needs one and gets the data type's zero.
 */
export function empty(shape: readonly number[], options: CreationOptions = {}): Promise<ZarrArray> {
  return create(shape, options.zarrFormat === 2 ? null : undefined, options);
}

const TYPED_DTYPES: [new (n: number) => ArrayBufferView, string][] = [
  [Float64Array, "float64"],
  [Float32Array, "float32"],
  [Int8Array, "int8"],
  [Int16Array, "int16"],
  [Int32Array, "int32"],
  [BigInt64Array, "int64"],
  [Uint8Array, "uint8"],
  [Uint16Array, "uint16"],
  [Uint32Array, "uint32"],
  [BigUint64Array, "uint64"],
];

/** The data type a value's elements suggest: its typed-array class, else float64 / bool / string. */
function dtypeOf(data: unknown): string {
  for (const [ctor, name] of TYPED_DTYPES) if (data instanceof ctor) return name;
  if (Array.isArray(data) && data.length > 0) {
    if (data.every((x) => typeof x === "boolean")) return "bool";
    if (data.every((x) => typeof x === "string")) return "string";
    if (data.every((x) => typeof x === "bigint")) return "int64";
  }
  return "float64";
}

/**
 * An array holding `data` (an NDArray `{ data, shape }`, or a flat typed array or list for 1-d):
 * its shape is the data's, its type the data's unless `dtype` says otherwise.
 */
export async function array(
  data: NDArray | { data: ArrayLike<unknown>; shape: readonly number[] } | ArrayLike<unknown>,
  options: CreationOptions & OperationOptions = {},
): Promise<ZarrArray> {
  const isND = typeof data === "object" && data !== null && "shape" in data && "data" in data;
  const values = isND ? (data as { data: ArrayLike<unknown> }).data : (data as ArrayLike<unknown>);
  if (!isND && !(ArrayBuffer.isView(values) || Array.isArray(values))) {
    throw new InvalidArgumentError("array(): data must be { data, shape }, a typed array or a list");
  }
  const dtype = options.dtype ?? dtypeOf(values);
  const { signal, onProgress, threads, pool, ...creation } = options;
  const perElement = ArrayBuffer.isView(values) && String(dtype).startsWith("complex") ? 2 : 1;
  const shape = isND ? [...(data as { shape: readonly number[] }).shape] : [values.length / perElement];
  const arr = await create(shape, undefined, { ...creation, dtype });
  await arr.set(null, isND ? (data as NDArray) : (values as never), { signal, onProgress, threads, pool });
  return arr;
}

/** createArray options that copy `a`'s layout: shape, chunks, shards, type, codecs, v2 order. */
function likeOptions(a: ZarrArray, options: CreationOptions): CreationOptions & { shape: number[] } {
  const meta = a.metadata;
  // A rectilinear grid's edges are its chunk (or shard) shape.
  const grid = a.chunkShapes;
  const layout: CreationOptions = { zarrFormat: meta.zarrFormat, chunks: a.shards ? a.chunks : (grid ?? a.chunks), dtype: a.zarrFormat === 2 ? a.numpyDtype : a.dtype };
  if (meta.v2) Object.assign(layout, { compressor: meta.v2.compressor, filters: meta.v2.filters, order: meta.v2.order });
  else if (a.shards) Object.assign(layout, { shards: grid ?? a.shards });
  else Object.assign(layout, { codecs: a.codecs });
  if (a.shards) {
    // The inner chain of the sharding codec is the chain to give createArray with `shards`.
    const conf = a.codecs.find((c) => c.name === "sharding_indexed")?.configuration as { codecs?: unknown } | undefined;
    if (conf?.codecs) Object.assign(layout, { codecs: conf.codecs });
  }
  return { ...layout, ...options, shape: a.shape };
}

/** An array of zeros with `a`'s layout: shape, chunks, shards, type, codecs (options override). */
export function zerosLike(a: ZarrArray, options: CreationOptions = {}): Promise<ZarrArray> {
  const { shape, ...o } = likeOptions(a, options);
  return zeros(shape, o);
}

/** An array of ones with `a`'s layout (options override). */
export function onesLike(a: ZarrArray, options: CreationOptions = {}): Promise<ZarrArray> {
  const { shape, ...o } = likeOptions(a, options);
  return ones(shape, o);
}

/** An array of `fillValue` with `a`'s layout (options override). */
export function fullLike(a: ZarrArray, fillValue: unknown, options: CreationOptions = {}): Promise<ZarrArray> {
  const { shape, ...o } = likeOptions(a, options);
  return full(shape, fillValue, o);
}

/** An array with `a`'s layout and no values written (options override). */
export function emptyLike(a: ZarrArray, options: CreationOptions = {}): Promise<ZarrArray> {
  const { shape, ...o } = likeOptions(a, options);
  return empty(shape, o);
}
