/**
 * What consolidated metadata saves: store calls and time to read the model of the zarr-python
 * 2.13 fixture hierarchy (77 nodes) and to walk it with Group.members, with and without
 * `.zmetadata`, over a store that waits LATENCY_MS per call (as an object store would).
 *
 *   npx tsx bench/consolidated.ts [latency-ms]
 */
import { join } from "node:path";
import { FileSystemStore, Group, UnsupportedError, fromZarr, openGroup, type ReadableStore, type RangeRequest } from "../src/index.js";

const LATENCY_MS = Number(process.argv[2] ?? 20);
const FIXTURE = join(new URL("..", import.meta.url).pathname, "test", "fixtures", "zarr-python-2.13", "hierarchy.zarr");

class SlowStore implements ReadableStore {
  readonly readOnly = true;
  calls = 0;
  constructor(private readonly inner: ReadableStore) {}
  private async wait<T>(p: Promise<T>): Promise<T> {
    this.calls++;
    await new Promise((r) => setTimeout(r, LATENCY_MS));
    return p;
  }
  get(key: string) { return this.wait(this.inner.get(key)); }
  getRange(key: string, range: RangeRequest) { return this.wait(this.inner.getRange(key, range)); }
  has(key: string) { return this.wait(this.inner.has(key)); }
  list(prefix: string) { return this.wait(this.inner.list(prefix)); }
  listDir(prefix: string) { return this.wait(this.inner.listDir(prefix)); }
  descriptor() { return this.inner.descriptor(); }
}

async function walk(g: Group): Promise<number> {
  let n = 0;
  for (const [, child] of await g.members().catch((e: unknown) => (e instanceof UnsupportedError ? [] : Promise.reject(e)))) {
    n++;
    if (child instanceof Group) n += await walk(child);
  }
  return n;
}

async function measure(label: string, consolidated: boolean, run: (s: SlowStore) => Promise<unknown>) {
  const store = new SlowStore(new FileSystemStore(FIXTURE, { readOnly: true }));
  const t0 = performance.now();
  await run(store);
  const ms = performance.now() - t0;
  console.log(`${label.padEnd(34)} consolidated=${String(consolidated).padEnd(5)} calls=${String(store.calls).padStart(4)}  ${ms.toFixed(0).padStart(6)} ms`);
  return { calls: store.calls, ms };
}

console.log(`store latency ${LATENCY_MS} ms per call`);
for (const [label, run] of [
  ["fromZarr (model of 77 nodes)", (s: SlowStore, c: boolean) => fromZarr(s, { consolidated: c })],
  ["openGroup + members() walk", async (s: SlowStore, c: boolean) => walk(await openGroup(s, { mode: "r", consolidated: c }))],
] as const) {
  const plain = await measure(label, false, (s) => run(s, false));
  const cons = await measure(label, true, (s) => run(s, true));
  console.log(`${"".padEnd(34)} ratio: ${(plain.calls / cons.calls).toFixed(0)}x fewer calls, ${(plain.ms / cons.ms).toFixed(1)}x faster`);
}
