/**
 * ZarrArray's writes (array.ts): `set`'s plan, `resize`, `append` and the attribute writes, which
 * rewrite the stored metadata under its lock. Imported on a handle's first write, so that a page
 * that only reads never loads them; once loaded, a write starts in its caller's turn.
 */
import { InvalidArgumentError, NotFoundError, ShapeMismatchError, UnsupportedError } from "../errors.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import { nodeKey, parseChunkKey } from "../metadata/chunk-key.js";
import { componentsPerElement, type DataType } from "../metadata/dtype.js";
import { allocElements, isTypedArray } from "../metadata/elements.js";
import { castScalar } from "../indexing/cast.js";
import type { JsonObject } from "../metadata/json.js";
import { isScalarInput, prepareWriteValue, type WriteInput } from "../indexing/ndarray.js";
import { gridAxes, gridShape } from "../metadata/chunk-grid.js";
import { resizedGrid } from "../metadata/grid-edits.js";
import { slice } from "../indexing/selection.js";
import type { ResolvedSelection } from "../indexing/fancy.js";
import { copyElements } from "../codecs/view.js";
import { contiguousStrides, product } from "../indexing/strided.js";
import type { TaskBuffer, WriteValue } from "../parallel/chunk-io/chunk-task.js";
import type { OperationOptions } from "../parallel/execution/options.js";
import { chunkLockRef, lockScopeOf, withChunkLock } from "../parallel/sync/lock-table.js";
import type { Store } from "../stores/types.js";
import { describePath, nodeLocation, readNode } from "./node-io.js";
import { writeArrayMetadata } from "./node-writes.js";
import { checkSameLayout } from "./open-options.js";
import type { ZarrArray } from "./array.js";

/** A write value's elements as one C-order buffer of `shape` (a copy only when it is strided). */
function contiguousBuffer(dtype: DataType, buffer: TaskBuffer, shape: number[]): TaskBuffer {
  const strides = contiguousStrides(shape);
  if (shape.every((n, d) => n <= 1 || buffer.strides[d] === strides[d])) return buffer;
  const data = allocElements(dtype, product(shape));
  copyElements(dtype, data, { offset: 0, strides }, buffer.data, { offset: 0, strides: buffer.strides }, shape);
  return { data, strides };
}

/** Replaces the attributes (a copy the handle made) in the stored metadata. */
export async function setAttrs(a: ZarrArray, attrs: JsonObject): Promise<void> {
  await rewriteMetadata(a, "setAttrs", (stored) => ({ ...stored, attributes: attrs }));
}

/** Merges keys (a copy the handle made) into the attributes stored now. */
export async function updateAttrs(a: ZarrArray, add: JsonObject): Promise<void> {
  await rewriteMetadata(a, "updateAttrs", (stored) => ({ ...stored, attributes: { ...stored.attributes, ...add } }));
}

export async function writePlan(a: ZarrArray, resolved: ResolvedSelection, value: WriteInput, options: OperationOptions): Promise<void> {
  const { plan: planOf, full, shape: selShape, dropped } = a.layout(resolved);
  const chunkPlan = planOf();
  let writeValue: WriteValue;
  if (isScalarInput(value, a.meta.dtype)) {
    // Validates the scalar against the type once, before any chunk is touched.
    // Strings and byte strings are values as they are, not the JSON forms fill values use.
    const direct = typeof value === "string" || (value instanceof Uint8Array && a.meta.dtype.kind !== "vlen_array");
    // Numbers follow the casting rule of indexing/cast.ts, as the elements of an array do.
    writeValue = { kind: "scalar", value: direct ? value : castScalar(value, a.meta.dtype) };
  } else {
    if (value === null || value === undefined) throw new ShapeMismatchError("cannot write null or undefined");
    let buffer = prepareWriteValue(value, a.meta.dtype, selShape, full, dropped);
    // Points address their value by element index, so it must be C-contiguous.
    if (resolved.kind === "points") buffer = contiguousBuffer(a.meta.dtype, buffer, full);
    writeValue = { kind: "array", buffer };
  }
  const items = a.items(chunkPlan);
  await a.writeItems(items, writeValue, options);
}

/** ZarrArray.resize: the metadata first, then the chunks wholly outside the new shape deleted. */
export async function resize(a: ZarrArray, shape: readonly number[]): Promise<void> {
  a.writableStore();
  if (!Array.isArray(shape) || shape.length !== a.ndim || shape.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new InvalidArgumentError(`resize: the new shape must be ${a.ndim} non-negative integers, got ${JSON.stringify(shape)}`);
  }
  await changeShape(a, "resize", () => [...shape]);
}

/** ZarrArray.append: the shape grown from the stored one under the metadata key's lock, then the value written. */
export async function append(a: ZarrArray, value: WriteInput, axis: number, options: OperationOptions): Promise<number[]> {
  a.writableStore();
  const ax = axis < 0 ? axis + a.ndim : axis;
  if (!Number.isInteger(ax) || ax < 0 || ax >= a.ndim) {
    throw new InvalidArgumentError(`append: axis ${axis} is out of range for ${a.ndim} dimensions`);
  }
  const vshape = valueShape(a, value);
  let start = 0;
  const shape = await changeShape(a, "append", (current) => {
    if (vshape.length !== current.length || vshape.some((n, d) => d !== ax && n !== current[d])) {
      throw new ShapeMismatchError(`append: a value of shape [${vshape}] does not fit an array of shape [${current}] along axis ${ax}`);
    }
    start = current[ax];
    return current.map((n, d) => (d === ax ? n + vshape[ax] : n));
  });
  await a.set(
    shape.map((n, d) => (d === ax ? slice(start, n) : null)),
    value,
    options,
  );
  return shape;
}

/** The shape of an append value: `{ data, shape }`, or a flat list for a 1-d array. */
function valueShape(a: ZarrArray, value: WriteInput): number[] {
  if (typeof value === "object" && value !== null && "shape" in value && "data" in value) return [...value.shape];
  if ((ArrayBuffer.isView(value) || Array.isArray(value)) && a.ndim === 1) {
    const per = isTypedArray(value) ? componentsPerElement(a.meta.dtype) : 1;
    return [(value as ArrayLike<unknown>).length / per];
  }
  throw new ShapeMismatchError(`append: the value needs a shape: pass { data, shape } for a ${a.ndim}-d array`);
}

/** Rewrites the metadata with the shape `next` computes from the stored one; deletes chunks left outside. */
async function changeShape(a: ZarrArray, what: string, next: (current: number[]) => number[]): Promise<number[]> {
  const meta = await rewriteMetadata(
    a,
    what,
    (stored) => {
      const shape = next([...stored.shape]);
      const meta = { ...stored, shape, ...resizedGrid(stored, shape) };
      a.checkLayout(meta);
      return meta;
    },
    // Under the lock: a writer growing the array next must not see its new chunks deleted.
    (meta) => deleteChunksOutside(a, meta.shape),
  );
  return meta.shape;
}

/**
 * The metadata a rewrite starts from: the stored document, which another writer may have
 * changed. A handle whose metadata was assumed (`assumeMetadata`) never touches the stored
 * document, so it refuses; one opened with `assumeCachedMetadata` refuses when the document
 * disagrees with what it assumed (other than in shape and attributes, which others may change).
 */
async function metadataToRewrite(a: ZarrArray, store: Store, what: string): Promise<ArrayMetadata> {
  const assumed = a.options.assumed;
  if (assumed === "assumed") {
    throw new UnsupportedError(`${what}: array ${describePath(a.path)} was opened with assumeMetadata, so its stored metadata is never read or written`);
  }
  const stored = await readNode(store, a.path, a.meta.zarrFormat);
  if (stored?.nodeType !== "array") {
    if (assumed === "cached") throw new NotFoundError(`${what}: no array metadata stored at ${nodeLocation(a.store, a.path)} (the handle assumed it)`);
    return a.meta;
  }
  const { nodeType: _n, ...base } = stored;
  if (assumed === "cached") checkSameLayout(base, a.meta, `${what}: array ${describePath(a.path)}`);
  // A v2 separator given at open for old metadata without one stays in force (as revalidateMetadata keeps it).
  if (base.v2?.dimensionSeparator === null) base.chunkKeyEncoding = a.meta.chunkKeyEncoding;
  return base;
}

/**
 * Writes the metadata `change` makes of the stored document, under the lock of the metadata key
 * (the synchronizer's too, when the array has one), then runs `then` still under it. It starts
 * from the store, never from this handle's copy: another handle or process may have resized,
 * appended or set attributes since, and an old shape written back would hide their rows.
 */
async function rewriteMetadata(
  a: ZarrArray,
  what: string,
  change: (stored: ArrayMetadata) => ArrayMetadata,
  then?: (meta: ArrayMetadata) => Promise<void>,
): Promise<ArrayMetadata> {
  const store = a.writableStore();
  const metaKey = nodeKey(a.path, a.meta.zarrFormat === 3 ? "zarr.json" : ".zarray");
  const lock = chunkLockRef(lockScopeOf(store.descriptor()), a.options.synchronizer?.descriptor());
  return withChunkLock(lock, metaKey, async () => {
    const meta = change(await metadataToRewrite(a, store, what));
    a.metadataWillChange();
    await writeArrayMetadata(store, a.path, meta);
    a.meta = meta;
    await then?.(meta);
    return meta;
  });
}

async function deleteChunksOutside(a: ZarrArray, shape: readonly number[]): Promise<void> {
  const store = a.writableStore();
  const grid = gridShape(shape, gridAxes(a.meta));
  const prefix = a.path === "" ? "" : `${a.path}/`;
  const outside = (await store.list(prefix)).filter((key) => {
    const coords = parseChunkKey(a.meta.chunkKeyEncoding, key.slice(prefix.length), a.ndim);
    return coords !== null && coords.some((c, d) => c >= grid[d]);
  });
  a.forgetCached(outside);
  for (let i = 0; i < outside.length; i += 64) await Promise.all(outside.slice(i, i + 64).map((k) => store.delete(k)));
}

