/**
 * A worker thread for the lock-table tests. Message { mode: "count", rounds }: takes the lock
 * `rounds` times and increments a shared counter non-atomically inside it, then answers "done".
 * Message { mode: "hold" }: takes the lock, answers its threadId, and never lets go.
 */
import "../../src/platform/node.js"; // as parzarr's worker entries do: thread ids come from the platform
import { parentPort, threadId, workerData } from "node:worker_threads";
import { withChunkLock, type ChunkLockRef } from "../../src/parallel/sync/lock-table.js";

const { ref, counter } = workerData as { ref: ChunkLockRef; counter?: Int32Array };
const port = parentPort!;

port.once("message", async (msg: { mode: "count"; rounds: number } | { mode: "hold" }) => {
  if (msg.mode === "hold") {
    await withChunkLock(ref, "k", () => {
      port.postMessage(threadId);
      return new Promise<void>(() => undefined);
    });
    return;
  }
  // Two tasks interleave on this thread's event loop, as piscina may run them.
  const task = async () => {
    for (let i = 0; i < msg.rounds; i++) {
      await withChunkLock(ref, "0.0", async () => {
        const v = counter![0];
        await new Promise((r) => setTimeout(r, Math.random() * 2));
        counter![0] = v + 1;
      });
    }
  };
  await Promise.all([task(), task()]);
  port.postMessage("done");
});
