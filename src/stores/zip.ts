/**
 * ZipStore: a Zarr hierarchy inside one ZIP file, like zarr-python's ZipStore.
 *
 * - mode "r": the central directory is read once; a member is read by range straight from the
 *   file (stored members) or inflated whole (deflate members).
 * - mode "w": a new archive. Members are appended to a temporary file beside the target as they
 *   are set (ZIP_STORED, as zarr-python writes by default); `close()` writes the central directory
 *   and renames the file into place, so the path holds the old archive or the new one, never half.
 * - mode "a": like "w", starting from a copy of the existing archive (or an empty one).
 * A key set twice keeps its latest bytes; deleted or replaced members stay as dead bytes in the
 * file (ZIP has no holes) but leave the central directory, so readers never see them.
 */
import { copyFile, open, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { crc32, inflateRawSync } from "node:zlib";
import { ReadOnlyError, StoreError, UnsupportedError } from "../errors.js";
import { removeStaleTemps } from "./filesystem.js";
import { childrenOf, isValidKey, rangeBounds, validateKey, validatePrefix, validateRange } from "./keys.js";
import type { RangeRequest, StoreDescriptor, WritableStore } from "./types.js";
import {
  END64_SIZE,
  END_SIZE,
  LOCAL_HEADER_SIZE,
  LOCATOR64_SIZE,
  centralDirectoryAndEnd,
  dataOffsetFromLocalHeader,
  localHeader,
  parseCentralDirectory,
  parseEnd64,
  parseEndRecord,
  parseLocator64,
  type WrittenEntry,
  type ZipEntry,
} from "./zip-format.js";

/**
 * node:crypto when a zip store first needs it: the platform module (and so every worker thread)
 * imports this file, and loading node:crypto costs a worker some 60-100 ms of CPU on Node 24.
 */
const nodeCrypto = (): typeof import("node:crypto") => process.getBuiltinModule("node:crypto");

/** "r": read; "w": write a new archive; "a": append to a copy of the existing one. */
export type ZipMode = "r" | "w" | "a";

/** Options of a ZipStore. */
export interface ZipStoreOptions {
  /** Default "r". */
  mode?: ZipMode;
  /** Write ZIP64 records even for small archives (for tests of readers; off by default). */
  forceZip64?: boolean;
}

/** Open writers reachable by descriptor in this thread (a worker cannot append to our file). */
const writers = new Map<string, WeakRef<ZipStore>>();

export function getOpenZipStore(id: string): ZipStore | undefined {
  return writers.get(id)?.deref();
}

interface Member extends WrittenEntry {
  /** Where the data starts, once a local header was read (or written). */
  dataOffset?: number;
}

interface State {
  fh: FileHandle;
  members: Map<string, Member>;
  /** Writers: the temporary file and where the next member goes. */
  temp?: string;
  end: number;
}

const MAX_TAIL = END_SIZE + 0xffff;

/**
 * Closes the file of a ZipStore that was dropped without `close()` (a reader opened by path and
 * forgotten, say): otherwise Node closes the FileHandle when it is collected, with a warning that
 * later versions turn into an error. An unclosed writer's temporary file is removed as well; the
 * target keeps its old archive, as documented for writers never closed.
 */
const dropped = new FinalizationRegistry<{ state: Promise<State> }>((held) => {
  void held.state.then(
    async (st) => {
      await st.fh.close().catch(() => undefined);
      if (st.temp) await unlink(st.temp).catch(() => undefined);
    },
    () => undefined,
  );
});

/** A hierarchy in one ZIP file, as zarr-python writes it; a written archive appears at `path` only when `close()` finishes. */
export class ZipStore implements WritableStore {
  /** The ZIP file. */
  readonly path: string;
  /** The mode it was opened in. */
  readonly mode: ZipMode;
  readonly readOnly: boolean;
  private readonly forceZip64: boolean;
  private readonly id: string | null;
  private readonly instance = nodeCrypto().randomBytes(8).toString("hex");
  private state: Promise<State> | undefined;
  private closed = false;
  /** Appends run one after another; reads run beside them. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(path: string, options: ZipStoreOptions = {}) {
    this.path = resolve(path);
    this.mode = options.mode ?? "r";
    if (!["r", "w", "a"].includes(this.mode)) throw new StoreError(`ZipStore: mode must be "r", "w" or "a", got ${JSON.stringify(this.mode)}`);
    this.readOnly = this.mode === "r";
    this.forceZip64 = options.forceZip64 ?? false;
    this.id = this.readOnly ? null : `zip-${nodeCrypto().randomUUID()}`;
    if (this.id) writers.set(this.id, new WeakRef(this));
  }

  private fail(message: string, cause?: unknown): never {
    throw new StoreError(`zip store ${this.path}: ${message}`, { cause });
  }

  /** Opens the file and reads the central directory, once. */
  private ready(): Promise<State> {
    if (this.closed) this.fail("the store is closed");
    if (!this.state) {
      this.state = this.openState();
      dropped.register(this, { state: this.state }, this);
    }
    return this.state;
  }

  private async openState(): Promise<State> {
    if (this.mode === "r") {
      let fh: FileHandle;
      try {
        fh = await open(this.path, "r");
      } catch (err) {
        this.fail(`cannot open: ${err instanceof Error ? err.message : String(err)}`, err);
      }
      try {
        const { members } = await this.readDirectory(fh);
        return { fh, members, end: 0 };
      } catch (err) {
        await fh.close();
        throw err;
      }
    }
    // Writers work on a temporary file in the same folder, so the final rename is atomic. Those of
    // earlier writers of this archive that were killed (their process is gone) go first: the
    // archive was never put in place, and nothing else would ever remove them.
    await removeStaleTemps(dirname(this.path), 0, basename(this.path));
    const temp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.${nodeCrypto().randomBytes(6).toString("hex")}.tmp`);
    let exists = false;
    if (this.mode === "a") exists = await stat(this.path).then((s) => s.isFile(), () => false);
    try {
      if (exists) await copyFile(this.path, temp);
      const fh = await open(temp, exists ? "r+" : "w+");
      if (!exists) return { fh, members: new Map(), temp, end: 0 };
      try {
        const { members, end } = await this.readDirectory(fh);
        // New members overwrite the old central directory, which close() writes anew.
        return { fh, members, temp, end };
      } catch (err) {
        await fh.close();
        throw err;
      }
    } catch (err) {
      await unlink(temp).catch(() => {});
      if (err instanceof StoreError) throw err;
      this.fail(`cannot start writing: ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }

  private async readAt(fh: FileHandle, offset: number, length: number): Promise<Uint8Array> {
    const buf = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === length ? buf : buf.subarray(0, done);
  }

  private async readDirectory(fh: FileHandle): Promise<{ members: Map<string, Member>; end: number }> {
    try {
      const size = (await fh.stat()).size;
      const tailLength = Math.min(size, MAX_TAIL);
      const tail = await this.readAt(fh, size - tailLength, tailLength);
      const found = parseEndRecord(tail, size);
      let location;
      if (found.kind === "done") location = found.location;
      else {
        const end64At = parseLocator64(await this.readAt(fh, found.locatorAt, LOCATOR64_SIZE));
        location = parseEnd64(await this.readAt(fh, end64At, END64_SIZE), end64At);
      }
      if (location.offset + location.size > size) throw new Error(`the central directory runs past the end of the ${size}-byte file`);
      const cd = await this.readAt(fh, location.offset, location.size);
      const members = new Map<string, Member>();
      const modified = new Date();
      for (const e of parseCentralDirectory(cd, location.entries)) {
        if (e.name.endsWith("/")) continue; // a folder entry, not a key
        // A name that is no valid key ("../evil", "/etc/x", "a//b") can never be asked for: a
        // hostile archive must not hand it to callers that would use it as a path (cp, say).
        if (!isValidKey(e.name)) continue;
        if (e.localHeaderOffset + LOCAL_HEADER_SIZE > location.offset) {
          throw new Error(`the member "${e.name}" starts at ${e.localHeaderOffset}, inside the central directory`);
        }
        members.set(e.name, { ...e, modified });
      }
      return { members, end: location.offset };
    } catch (err) {
      if (err instanceof StoreError) throw err;
      this.fail(`bad zip file: ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }

  private async dataOffset(st: State, m: Member): Promise<number> {
    if (m.dataOffset === undefined) {
      try {
        m.dataOffset = dataOffsetFromLocalHeader(await this.readAt(st.fh, m.localHeaderOffset, LOCAL_HEADER_SIZE), m);
      } catch (err) {
        this.fail(`bad zip file: ${err instanceof Error ? err.message : String(err)}`, err);
      }
    }
    return m.dataOffset;
  }

  private async readMember(st: State, m: Member, key: string): Promise<Uint8Array> {
    if (m.flags & 1) throw new UnsupportedError(`zip store ${this.path}: member "${key}" is encrypted`);
    const at = await this.dataOffset(st, m);
    const raw = await this.readAt(st.fh, at, m.compressedSize);
    if (raw.length !== m.compressedSize) this.fail(`member "${key}" is truncated (${raw.length} of ${m.compressedSize} bytes)`);
    let out: Uint8Array;
    if (m.method === 0) out = raw;
    else if (m.method === 8) {
      try {
        // The directory's size is a hard cap: a member that inflates past it (a zip bomb, or a
        // lying entry) stops there instead of filling memory.
        const b = inflateRawSync(raw, { maxOutputLength: Math.max(1, m.size) });
        out = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      } catch (err) {
        this.fail(`member "${key}" does not inflate: ${err instanceof Error ? err.message : String(err)}`, err);
      }
    } else throw new UnsupportedError(`zip store ${this.path}: member "${key}" uses compression method ${m.method} (only stored and deflate are supported)`);
    if (out.length !== m.size) this.fail(`member "${key}" holds ${out.length} bytes, its directory entry says ${m.size}`);
    if (crc32(out) >>> 0 !== m.crc) this.fail(`member "${key}" fails its CRC-32 check`);
    return out;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    validateKey(key);
    const st = await this.ready();
    const m = st.members.get(key);
    return m === undefined ? undefined : this.readMember(st, m, key);
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    validateKey(key);
    validateRange(range);
    const st = await this.ready();
    const m = st.members.get(key);
    if (m === undefined) return undefined;
    const { start, end } = rangeBounds(m.size, range);
    // A deflate stream has no random access: inflate it and cut the range out.
    if (m.method !== 0) return (await this.readMember(st, m, key)).slice(start, end);
    const at = await this.dataOffset(st, m);
    const got = await this.readAt(st.fh, at + start, end - start);
    if (got.length !== end - start) this.fail(`member "${key}" is truncated`);
    return got;
  }

  async has(key: string): Promise<boolean> {
    validateKey(key);
    return (await this.ready()).members.has(key);
  }

  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    return [...(await this.ready()).members.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return childrenOf((await this.ready()).members.keys(), validatePrefix(prefix));
  }

  private writable(): void {
    if (this.readOnly) throw new ReadOnlyError(`zip store ${this.path} is open read-only (mode "r")`);
  }

  /** Runs `job` after every earlier append, delete and close. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => {});
    return run;
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.writable();
    validateKey(key);
    const bytes = new Uint8Array(value); // the caller may reuse its buffer while we wait
    await this.serial(async () => {
      const st = await this.ready();
      const member: Member = {
        name: key,
        method: 0,
        flags: 0,
        crc: crc32(bytes) >>> 0,
        compressedSize: bytes.length,
        size: bytes.length,
        localHeaderOffset: st.end,
        modified: new Date(),
      };
      const header = localHeader(member, this.forceZip64);
      await st.fh.writev([header, bytes], st.end);
      member.dataOffset = st.end + header.length;
      st.end += header.length + bytes.length;
      // Delete first: Map order is the central directory's order, and the newest comes last.
      st.members.delete(key);
      st.members.set(key, member);
    });
  }

  async delete(key: string): Promise<void> {
    this.writable();
    validateKey(key);
    await this.serial(async () => void (await this.ready()).members.delete(key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.writable();
    validatePrefix(prefix);
    await this.serial(async () => {
      const { members } = await this.ready();
      for (const k of [...members.keys()]) if (k.startsWith(prefix)) members.delete(k);
    });
  }

  /**
   * Finishes the archive: writers write the central directory and move the file into place;
   * readers let go of the file. A writer that is never closed leaves the target untouched.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.serial(async () => {
      if (this.closed) return;
      const st = await this.ready();
      this.closed = true;
      dropped.unregister(this);
      if (this.id) writers.delete(this.id);
      try {
        if (st.temp) {
          const tail = centralDirectoryAndEnd([...st.members.values()], st.end, this.forceZip64);
          await st.fh.write(tail, 0, tail.length, st.end);
          await st.fh.truncate(st.end + tail.length);
          await st.fh.sync();
        }
      } finally {
        await st.fh.close();
      }
      if (st.temp) {
        try {
          await rename(st.temp, this.path);
        } catch (err) {
          await unlink(st.temp).catch(() => {});
          this.fail(`cannot move the finished archive into place: ${err instanceof Error ? err.message : String(err)}`, err);
        }
      }
    });
  }

  descriptor(): StoreDescriptor {
    // Readers can be reopened anywhere from the path; a writer only in this thread, by id.
    return this.id ? { kind: "zip", path: this.path, id: this.id } : { kind: "zip", path: this.path, instance: this.instance };
  }
}
