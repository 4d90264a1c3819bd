/**
 * The resume journal of `parzarr cp`: one small JSON document in the destination, next to the
 * node being written, that records which slabs are complete. It is written (atomically, as every
 * store write is) before the first chunk, rewritten after each slab, and deleted at the end.
 *
 * Why a journal rather than looking at which chunks exist: a chunk whose values all equal the fill
 * value is not stored, so a missing chunk can mean "done, all fill" as well as "not written yet";
 * and a slab's chunks are written in parallel, so a crash can leave some of a slab's chunks
 * written and others not. A slab enters the journal only after every one of its writes finished,
 * so whatever a crash leaves behind, the slabs not in the journal are simply written again
 * (whole-chunk writes are idempotent). Its absence after a finished copy also says "complete".
 */
import { ZarrError } from "../errors.js";
import type { JsonObject } from "../metadata/json.js";
import type { WritableStore } from "../stores/types.js";

export const JOURNAL_NAME = ".parzarr-cp-journal.json";

export interface JournalArray {
  /** The destination array's defining metadata, to refuse resuming with other options. */
  fingerprint: string;
  slab: number[];
  count: number;
  /** Completed slab indices as [first, last] ranges. */
  done: [number, number][];
}

export interface JournalDoc {
  version: 1;
  source: string;
  arrays: Record<string, JournalArray>;
}

export function journalKey(destPath: string): string {
  return destPath === "" ? JOURNAL_NAME : `${destPath}/${JOURNAL_NAME}`;
}

export async function readJournal(store: WritableStore, destPath: string): Promise<JournalDoc | undefined> {
  const key = journalKey(destPath);
  const bytes = await store.get(key);
  if (bytes == null) return undefined;
  try {
    const doc = JSON.parse(new TextDecoder().decode(bytes)) as JournalDoc;
    if (doc.version !== 1 || typeof doc.arrays !== "object") throw new Error("unknown layout");
    return doc;
  } catch (err) {
    throw new ZarrError("INVALID_METADATA", `the cp journal ${key} is unreadable (${err instanceof Error ? err.message : String(err)}); remove the destination and copy again`);
  }
}

/** The journal's live form: completed slabs per array, saved after each slab. */
export class Journal {
  private readonly done = new Map<string, Set<number>>();

  constructor(
    /** null: a copy that commits whole keeps its journal in memory only. */
    private readonly store: WritableStore | null,
    private readonly destPath: string,
    private readonly doc: JournalDoc,
  ) {
    for (const [path, a] of Object.entries(doc.arrays)) {
      const set = new Set<number>();
      for (const [lo, hi] of a.done) for (let i = lo; i <= hi; i++) set.add(i);
      this.done.set(path, set);
    }
  }

  get document(): JournalDoc {
    return this.doc;
  }

  isDone(path: string, slab: number): boolean {
    return this.done.get(path)?.has(slab) ?? false;
  }

  doneCount(path: string): number {
    return this.done.get(path)?.size ?? 0;
  }

  async markDone(path: string, slab: number): Promise<void> {
    const set = this.done.get(path);
    if (!set) throw new Error(`journal has no array ${path}`);
    set.add(slab);
    this.doc.arrays[path].done = ranges(set);
    await this.save();
  }

  async save(): Promise<void> {
    const bytes = new TextEncoder().encode(JSON.stringify(this.doc as unknown as JsonObject));
    await this.store?.set(journalKey(this.destPath), bytes);
  }

  async remove(): Promise<void> {
    await this.store?.delete(journalKey(this.destPath));
  }
}

function ranges(set: Set<number>): [number, number][] {
  const sorted = [...set].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] === i - 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}
