/**
 * A write's value, handed to workers one task at a time. Workers read a value only from shared
 * memory; copying the caller's whole value into a fresh SharedArrayBuffer costs a fresh page per
 * 4 KiB (issue 12: a 256 MiB lz4 write on 2 threads took 2.7 s, 0.36 s when the caller's value
 * already was shared). Instead each task's regions are gathered, as the task is dispatched, into
 * a reused shared buffer that goes back to the free list when the task is done: the one gather a
 * write needs anyway, on this thread instead of the worker, into memory that is already paged in.
 * Each staged item carries its own region (`ChunkItem.valueRegion`), C-contiguous, so a worker
 * encodes an interior chunk straight from it.
 */
import { componentsPerElement, type DataType, type TypedArray } from "../../metadata/dtype.js";
import { memoryBytesPerComponent, typedArrayOver } from "../../metadata/elements.js";
import { copyElements, regionAt } from "../../codecs/view.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import { giveSharedScratch, takeSharedScratch } from "../../scratch.js";
import type { ChunkItem, TaskBuffer, WriteTask } from "../chunk-io/chunk-task.js";
import { toShared } from "./shared.js";

export class ValueStager {
  /** The buffer each dispatched task holds until it is done. */
  private readonly held = new Map<WriteTask, Uint8Array>();
  /** The whole value in shared memory, made only if a task's items cannot be staged. */
  private whole: TaskBuffer | null = null;

  constructor(
    private readonly dtype: DataType,
    private readonly value: TaskBuffer & { data: TypedArray },
  ) {}

  /**
   * The task for `items`, its value in shared memory. Items that place elements one by one
   * (integer arrays, masks, points) address the whole value, which is then shared once.
   */
  stage(items: ChunkItem[], make: (items: ChunkItem[], value: TaskBuffer) => WriteTask): WriteTask {
    if (items.some((item) => item.scatter)) {
      this.whole ??= { ...this.value, data: toShared(this.value.data) };
      return make(items, this.whole);
    }
    const counts = items.map((item) => item.chunkSel.map((r) => r.count));
    const sizes = counts.map(product);
    const elements = sizes.reduce((a, b) => a + b, 0);
    const c = componentsPerElement(this.dtype);
    const bytes = elements * c * memoryBytesPerComponent(this.dtype);
    const buffer = takeSharedScratch(bytes);
    const data = typedArrayOver(this.dtype, buffer.buffer, 0, elements * c) as TypedArray;
    let offset = 0;
    const staged = items.map((item, i) => {
      const strides = contiguousStrides(counts[i]);
      const src = regionAt(item.outStart, item.outStep ?? null, this.value.strides);
      copyElements(this.dtype, data, { offset, strides }, this.value.data, src, counts[i]);
      const { outStep: _placedForwards, ...rest } = item;
      const own: ChunkItem = { ...rest, valueRegion: { offset, strides } };
      offset += sizes[i];
      return own;
    });
    const task = make(staged, { data, strides: this.value.strides });
    this.held.set(task, buffer);
    return task;
  }

  /** Called once a task from `stage` is done: its buffer goes back for the next task. */
  release(task: WriteTask): void {
    const buffer = this.held.get(task);
    if (buffer === undefined) return;
    this.held.delete(task);
    giveSharedScratch(buffer);
  }
}
