/**
 * The worker's side of chunks fetched by the caller (fetched-chunks.ts): the task's store, which
 * answers the keys sent from memory. Apart from fetched-chunks.ts, whose caller's side the page's
 * thread imports, so that the page holds neither this store nor OverlayStore (stores/overlay.ts).
 */
import type { Store, WritableStore } from "../../stores/types.js";
import { OverlayStore } from "../../stores/overlay.js";
import { InternalFault } from "../../codecs/view.js";
import type { ChunkTask } from "../chunk-io/chunk-task.js";
import type { FetchedChunks, StoredChunks } from "./fetched-chunks.js";

/**
 * The worker's side: the task's store, answering the keys sent from the bytes that came (of a
 * write, the old bytes of its partial chunks). A user's store has no store here (null): any other
 * key read is a fault of parzarr's own. What a write stores is kept for the caller (`stored`).
 */
export function withFetched(inner: Store | null, task: ChunkTask, fetched: FetchedChunks = []): ReturningStore {
  const bytes = new Map<string, Uint8Array | null>();
  fetched.forEach((b, i) => b !== undefined && bytes.set(task.items[i].key, b));
  return new ReturningStore(inner, bytes, unsent);
}

function unsent(key: string): InternalFault {
  return new InternalFault(`"${key}" of a store only the calling thread can reach was read on a worker without being sent`);
}

export class ReturningStore extends OverlayStore implements WritableStore {
  override readonly readOnly = false;
  readonly stored: StoredChunks = [];

  async set(key: string, value: Uint8Array): Promise<void> {
    // A buffer of its own, to transfer: the encoding may be a view of the shared value.
    const own = value.buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength;
    this.stored.push([key, own ? value : value.slice()]);
  }

  async delete(key: string): Promise<void> {
    this.stored.push([key, null]);
  }

  async deletePrefix(prefix: string): Promise<void> {
    throw unsent(prefix);
  }
}
