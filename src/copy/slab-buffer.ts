/**
 * The memory a copy reads each slab into, reused from slab to slab (and array to array). A fresh
 * buffer per slab would cost its page faults every time (about 12 µs per 4 KiB page here: 0.2 s
 * per 64 MiB slab) and would linger until the garbage collector runs, so that several slabs'
 * worth of memory sat in the process at once, far past the `--memory` budget.
 */
import { componentsPerElement, type DataType, type TypedArray } from "../metadata/dtype.js";
import { memoryBytesPerComponent, typedArrayOver } from "../metadata/elements.js";
import { userForm } from "../indexing/values.js";

export class SlabBuffer {
  private memory: SharedArrayBuffer | null = null;

  /**
   * A typed array over the reused memory for `count` elements of `dtype`, or null where a slab
   * cannot be read into it: types whose values are not numbers (strings, byte strings, records:
   * `get` cannot read them into a typed array), or a runtime without
   * SharedArrayBuffer (workers can only write into shared memory).
   */
  take(dtype: DataType, count: number): TypedArray | null {
    if (userForm(dtype) !== "typed" || typeof SharedArrayBuffer === "undefined" || count === 0) return null;
    const length = count * componentsPerElement(dtype);
    const bytes = length * memoryBytesPerComponent(dtype);
    // The first slab of an array is its largest (later ones are clipped at the edges), so the
    // buffer grows at most once per array of a larger slab.
    if (this.memory === null || this.memory.byteLength < bytes) {
      this.memory = null;
      this.memory = new SharedArrayBuffer(bytes);
    }
    return typedArrayOver(dtype, this.memory, 0, length);
  }
}
