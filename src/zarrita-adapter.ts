/**
 * `parzarr/zarrita`: `get` and `set` for a zarrita.js `Array`, its chunks decoded and encoded on
 * parzarr's pool. zarrita keeps an array's codecs private, so the array is opened once more by
 * parzarr from the same store object (the caller-store wrapper, stores/caller.ts: the calling
 * thread moves the bytes, workers decode and encode), checked against the shape, chunks and dtype
 * zarrita holds, and kept per zarrita Array: like zarrita's own, its metadata is what it was when
 * opened. Selections and results take zarrita's forms; see docs/ARCHITECTURE.md for the
 * differences (C-order results, byte strings).
 */
import type * as zarr from "zarrita";
import { InvalidArgumentError } from "./errors.js";
import type { ZarrArray } from "./hierarchy/array.js";
import { openArray } from "./hierarchy/open.js";
import type { NDArray, WriteInput } from "./indexing/ndarray.js";
import type { Selection, Slice } from "./indexing/selection.js";
import { parseDataType } from "./metadata/dtype-names.js";
import type { OperationOptions } from "./parallel/execution/options.js";
import type { UserStore } from "./stores/caller.js";

/** zarrita's selection: null (everything), or per leading dimension null, an index or `zarr.slice`. */
export type ZarritaSelection = (number | zarr.Slice | null)[] | null;

/** zarrita's result type: an ndarray, or a scalar when every dimension was an index (or the array is 0-d). */
export type ZarritaResult<D extends zarr.DataType, Sel extends ZarritaSelection> = Sel extends readonly (infer I)[]
  ? null extends I
    ? zarr.Chunk<D>
    : zarr.Slice extends I
      ? zarr.Chunk<D>
      : zarr.Scalar<D>
  : zarr.Chunk<D>;

const opened = new WeakMap<object, Promise<ZarrArray>>();

/** parzarr's handle on a zarrita array: opened on first use from its store and path. */
function handle(arr: zarr.Array<zarr.DataType, zarr.Readable>): Promise<ZarrArray> {
  let h = opened.get(arr);
  if (!h) {
    const store = arr.store as UserStore;
    // zarrita's own type names ("v2:U5", "v2:object") are not parzarr's: those are not compared.
    const dtype = arr.dtype.startsWith("v2:") ? undefined : parseDataType(arr.dtype).name;
    const expect = { shape: arr.shape, chunks: arr.chunks, ...(dtype ? { dtype } : {}) };
    h = openArray(store, { path: arr.path.replace(/^\/+/, ""), mode: typeof store.set === "function" ? "r+" : "r", expect });
    opened.set(arr, h);
    h.catch(() => opened.delete(arr));
  }
  return h;
}

function toSelection(selection: ZarritaSelection | undefined): Selection {
  if (selection === null || selection === undefined) return null;
  if (!Array.isArray(selection)) throw new InvalidArgumentError("a zarrita selection is null or an array of null, numbers and zarr.slice(...)");
  return selection.map((s): number | Slice | null => {
    if (s === null || typeof s === "number") return s;
    if (typeof s === "object" && "start" in s && "stop" in s && "step" in s) return { kind: "slice", start: s.start, stop: s.stop, step: s.step };
    throw new InvalidArgumentError(`a zarrita selection holds null, numbers and zarr.slice(...), not ${JSON.stringify(s)}`);
  });
}

type ZarritaCtor = new (...args: unknown[]) => unknown;

/** The class zarrita makes an array's data with (BoolArray, UnicodeStringArray, ...): kept on the array under a private symbol. */
function zarritaClass(arr: object): ZarritaCtor | undefined {
  const key = Object.getOwnPropertySymbols(arr).find((s) => s.description === "zarrita.context");
  return key && (arr as Record<symbol, { TypedArray?: ZarritaCtor } | undefined>)[key]?.TypedArray;
}

/** parzarr's data as zarrita's class for the dtype holds it: typed arrays as they are, bool bytes viewed, strings copied. */
function toZarritaData(arr: object, data: NDArray["data"]): unknown {
  const Class = zarritaClass(arr);
  if (!Class || data instanceof Class) return data;
  if (data instanceof Uint8Array) return new Class(data.buffer, data.byteOffset, data.length);
  if (Array.isArray(data) && data.every((v) => typeof v === "string")) {
    const out = new Class(data.length) as { set(i: number, v: string): void };
    data.forEach((v, i) => out.set(i, v));
    return out;
  }
  return data;
}

/** A zarrita value's data as parzarr takes it: BoolArray's bytes viewed, other non-typed arrays listed. */
function toWriteData(data: unknown): unknown {
  if (ArrayBuffer.isView(data) || Array.isArray(data)) return data;
  const d = data as { buffer?: unknown; byteOffset?: number; length?: number; BYTES_PER_ELEMENT?: number };
  if (d.BYTES_PER_ELEMENT === 1 && d.buffer instanceof ArrayBuffer) return new Uint8Array(d.buffer, d.byteOffset, d.length);
  if (typeof (data as Iterable<unknown> | null)?.[Symbol.iterator] === "function") return Array.from(data as Iterable<unknown>);
  return data;
}

/**
 * zarrita's `zarr.get(arr, selection)`, its chunks on parzarr's pool: `opts` are parzarr's
 * (`threads`, `pool`, `signal`, `onProgress`). Values and types are zarrita's: an ndarray
 * `{ data, shape, stride }` with zarrita's class for the dtype, or a scalar.
 */
export async function get<D extends zarr.DataType, const Sel extends ZarritaSelection = null>(
  arr: zarr.Array<D, zarr.Readable>,
  selection: Sel | null = null,
  opts: OperationOptions = {},
): Promise<ZarritaResult<D, Sel>> {
  const a = await handle(arr);
  // zarrita answers a 0-d array with its scalar, whatever the selection.
  const result = await a.get(arr.shape.length === 0 ? [] : toSelection(selection), opts);
  if (typeof result !== "object" || result === null || !("shape" in result)) return result as unknown as ZarritaResult<D, Sel>;
  return { data: toZarritaData(arr, result.data), shape: result.shape, stride: result.stride } as ZarritaResult<D, Sel>;
}

/** zarrita's `zarr.set(arr, selection, value)`, its chunks on parzarr's pool (sharded arrays too). */
export async function set<D extends zarr.DataType>(
  arr: zarr.Array<D, zarr.Readable>,
  selection: ZarritaSelection,
  value: zarr.Scalar<D> | zarr.Chunk<D>,
  opts: OperationOptions = {},
): Promise<void> {
  const a = await handle(arr);
  const v = typeof value === "object" && value !== null && "shape" in value ? { ...value, data: toWriteData(value.data) } : value;
  await a.set(toSelection(selection), v as WriteInput, opts);
}
