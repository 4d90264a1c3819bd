/**
 * A read's output in memory that workers cannot reach, filled through reused shared buffers.
 *
 * Workers write only into shared memory, but a fresh SharedArrayBuffer is a poor home for a
 * result: V8 does not count shared memory towards the pressure that triggers a collection, so a
 * dropped 256 MiB result on a SharedArrayBuffer is freed only when some unrelated collection
 * happens (issue 12: eight 256 MiB reads in a loop grew the process by 2 GiB, every read paying
 * fresh pages; an ordinary ArrayBuffer dropped the same way is collected at once and its memory,
 * already paged in, serves the next read). So a fresh result is an ordinary buffer, as is a
 * caller's `out` that is not shared: each task's chunks are decoded by a worker into a shared
 * buffer taken from this thread's free list, and copied from there into the output on this
 * thread when the task is done (the one copy a read through a chunk-sized buffer makes anyway);
 * then the buffer goes back for the next task.
 *
 * The staged task's items lie in slots of one chunk each, laid end to end along the first
 * dimension, so each is placed exactly as in a real output: a whole chunk's slot is one C-order
 * run, which the worker decodes into straight (CodecPipeline.decodeInto). Items that scatter (integer
 * arrays, masks, points) are not staged: their reads keep a shared output (see `canStage`).
 */
import type { ResolvedSelection } from "../../indexing/fancy.js";
import { componentsPerElement, type DataType, type TypedArray } from "../../metadata/dtype.js";
import { memoryBytesPerComponent, typedArrayOver } from "../../metadata/elements.js";
import { copyElements, regionAt } from "../../codecs/view.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import { giveSharedScratch, takeSharedScratch } from "../../scratch.js";
import type { ChunkItem, ReadTask, TaskBuffer } from "../chunk-io/chunk-task.js";

/** Whether a read of this selection can be staged: one whose items place whole runs, no scatter. */
export function canStage(resolved: ResolvedSelection): boolean {
  return resolved.kind === "orthogonal" && resolved.indexers.every((ix) => ix.kind !== "list");
}

interface Staged {
  buffer: Uint8Array;
  /** The task's items as the caller planned them, in slot order. */
  items: ChunkItem[];
}

export class OutputStager {
  private readonly held = new Map<ReadTask, Staged>();
  private readonly slotStrides: number[];
  private readonly slotElements: number;

  constructor(
    private readonly dtype: DataType,
    chunks: readonly number[],
    /** The real output, on memory the workers cannot reach. */
    private readonly out: TaskBuffer & { data: TypedArray },
  ) {
    this.slotStrides = contiguousStrides([...chunks]);
    this.slotElements = product([...chunks]);
  }

  /** The task for `items`, reading into a shared buffer with one chunk-sized slot per item. */
  stage(items: ChunkItem[], make: (items: ChunkItem[], out: TaskBuffer) => ReadTask): ReadTask {
    const c = componentsPerElement(this.dtype);
    const length = items.length * this.slotElements * c;
    const buffer = takeSharedScratch(length * memoryBytesPerComponent(this.dtype));
    const data = typedArrayOver(this.dtype, buffer.buffer, 0, length) as TypedArray;
    // Slot i starts at element i * slotElements: outStart i * chunks[0] along the first dimension.
    const staged = items.map((item, i): ChunkItem => {
      const { outStep: _placedForwards, ...rest } = item;
      return { ...rest, outStart: item.outStart.map((_, d) => (d === 0 ? (i * this.slotElements) / this.slotStrides[0] : 0)) };
    });
    const task = make(staged, { data, strides: this.slotStrides });
    this.held.set(task, { buffer, items });
    return task;
  }

  /**
   * Called once a task from `stage` is done: when it succeeded its values are copied into the
   * output; either way its buffer goes back for the next task.
   */
  finish(task: ReadTask, succeeded: boolean): void {
    const staged = this.held.get(task);
    if (staged === undefined) return;
    this.held.delete(task);
    try {
      if (!succeeded) return;
      const from = task.out.data;
      staged.items.forEach((item, i) => {
        const counts = item.chunkSel.map((r) => r.count);
        const dest = regionAt(item.outStart, item.outStep ?? null, this.out.strides);
        copyElements(this.dtype, this.out.data, dest, from, { offset: i * this.slotElements, strides: this.slotStrides }, counts);
      });
    } finally {
      giveSharedScratch(staged.buffer);
    }
  }
}
