/**
 * One appending process of the append race (run as `node --import tsx append-writer.ts ARGS`):
 * opens the array with a ProcessSynchronizer and appends `times` blocks of 2 rows, block k filled
 * with `id * 1000 + k`, one after another; exits 0.
 * Args: storeRoot lockDir id times
 */
import { openArray, ProcessSynchronizer } from "../../src/index.js";

const [root, lockDir, idArg, timesArg] = process.argv.slice(2);
const id = Number(idArg);
const synchronizer = new ProcessSynchronizer(lockDir!, { staleMs: 10_000, timeoutMs: 60_000 });
const a = await openArray(root!, { mode: "r+", synchronizer });
const cols = a.shape[1];
for (let k = 0; k < Number(timesArg); k++) {
  await a.append({ data: new Int32Array(2 * cols).fill(id * 1000 + k), shape: [2, cols] });
}
