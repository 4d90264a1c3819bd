/**
 * FileSystemStore: one file per key under a root folder. Writes are atomic per key: the bytes go
 * to a temporary file in the same folder, then a rename puts them in place, so a reader (or a
 * crash) sees the old value or the new one, never half of one.
 */
import { randomBytes } from "node:crypto";
import type { Dirent } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { InvalidKeyError, ReadOnlyError, StoreError } from "../errors.js";
import { rangeBounds, validateKey, validatePrefix, validateRange } from "./keys.js";
import type { RangeRequest, StoreDescriptor, WritableStore } from "./types.js";

/**
 * Temporary files are `.<name>.<pid>.<hex>.tmp`. No Zarr chunk or metadata key has that shape,
 * listings skip it, and keys of that shape are refused, so a write interrupted by a crash can
 * never be read back as data. The `.tmp~` ending is what earlier versions wrote: their leftovers
 * must stay hidden too.
 */
const TEMP = /^\..+\.\d+\.[0-9a-f]+\.tmp~?$/;

/** How many times `set` re-creates a parent folder that a concurrent `delete` pruned. */
const SET_ATTEMPTS = 10;

function errno(err: unknown): string | undefined {
  return err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
}

/** Errors that mean "there is no file at this key" rather than "the disk failed". */
function isMissing(err: unknown): boolean {
  const code = errno(err);
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}

export class FileSystemStore implements WritableStore {
  readonly root: string;
  readonly readOnly: boolean;
  /** `root` with a trailing separator, to test that a path lies strictly inside it. */
  private readonly inside: string;

  constructor(root: string, options: { readOnly?: boolean } = {}) {
    this.root = resolve(root);
    this.readOnly = options.readOnly ?? false;
    this.inside = this.root.endsWith(sep) ? this.root : this.root + sep;
  }

  private pathOf(key: string): string {
    validateKey(key);
    const segments = key.split("/");
    if (segments.some((s) => TEMP.test(s))) {
      throw new InvalidKeyError(`invalid store key ${JSON.stringify(key)}: the name is reserved for temporary files`);
    }
    const p = join(this.root, ...segments);
    // Belt and braces: validation already refuses "..", but the path must stay under root.
    if (!p.startsWith(this.inside)) throw new InvalidKeyError(`invalid store key ${JSON.stringify(key)}: it resolves outside ${this.root}`);
    return p;
  }

  /** The folder of a non-empty prefix, or the root for "". */
  private folderOf(prefix: string): string {
    validatePrefix(prefix);
    return prefix === "" ? this.root : this.pathOf(prefix.slice(0, -1));
  }

  private fail(what: string, key: string, err: unknown): never {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoreError(`${what} ${JSON.stringify(key)} in ${this.root}: ${reason}`, { cause: err });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const p = this.pathOf(key);
    try {
      const b = await readFile(p);
      // A plain Uint8Array over the same memory: callers should not meet Buffer's quirks.
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (err) {
      if (isMissing(err)) return undefined;
      this.fail("cannot read", key, err);
    }
  }

  /**
   * Reads the value into `dest` (up to its length) and returns the value's size, or undefined when
   * the key does not exist: raw chunks go from the file straight into an output buffer.
   */
  async readInto(key: string, dest: Uint8Array): Promise<number | undefined> {
    const r = await this.readFile(key, (size) => ({ start: 0, into: dest.subarray(0, Math.min(size, dest.length)) }));
    if (r === undefined) return undefined;
    // A file that shrank between stat and read: report what is there, not stale bytes after it.
    return r.bytes.length < Math.min(r.size, dest.length) ? r.bytes.length : r.size;
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    validateRange(range);
    const r = await this.readFile(key, (size) => {
      const { start, end } = rangeBounds(size, range);
      return { start, into: new Uint8Array(end - start) };
    });
    return r === undefined ? undefined : r.bytes;
  }

  /**
   * Opens a key's file, lets `plan` choose from its size where to read from and into which
   * buffer, and fills it. Undefined when there is no file; a file that shrank under us (a
   * concurrent rename replaced it) gives what was there.
   */
  private async readFile(
    key: string,
    plan: (size: number) => { start: number; into: Uint8Array },
  ): Promise<{ size: number; bytes: Uint8Array } | undefined> {
    const p = this.pathOf(key);
    let fh: FileHandle;
    try {
      fh = await open(p, "r");
    } catch (err) {
      if (isMissing(err)) return undefined;
      this.fail("cannot open", key, err);
    }
    try {
      const info = await fh.stat();
      if (!info.isFile()) return undefined;
      const { start, into } = plan(info.size);
      let done = 0;
      while (done < into.length) {
        const { bytesRead } = await fh.read(into, done, into.length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return { size: info.size, bytes: into.subarray(0, done) };
    } catch (err) {
      if (errno(err) === "EISDIR") return undefined;
      this.fail("cannot read", key, err);
    } finally {
      await fh.close();
    }
  }

  async has(key: string): Promise<boolean> {
    const p = this.pathOf(key);
    try {
      return (await stat(p)).isFile();
    } catch (err) {
      if (isMissing(err)) return false;
      this.fail("cannot stat", key, err);
    }
  }

  /** Entries of a folder, or null when the folder does not exist. Temp files are left out. */
  async getSize(key: string): Promise<number | undefined> {
    const p = this.pathOf(key);
    try {
      const info = await stat(p);
      return info.isFile() ? info.size : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      this.fail("cannot stat", key, err);
    }
  }

  private async entries(dir: string, prefix: string): Promise<Dirent[] | null> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return null;
      this.fail("cannot list", prefix, err);
    }
    return entries.filter((e) => !TEMP.test(e.name));
  }

  /** "file", "dir" or null; a symbolic link counts as what it points to. */
  private async kindOf(dir: string, e: Dirent): Promise<"file" | "dir" | null> {
    if (e.isFile()) return "file";
    if (e.isDirectory()) return "dir";
    if (!e.isSymbolicLink()) return null;
    try {
      const s = await stat(join(dir, e.name));
      return s.isFile() ? "file" : s.isDirectory() ? "dir" : null;
    } catch {
      // A dangling link names nothing that `get` could read.
      return null;
    }
  }

  private async walk(dir: string, prefix: string, out: string[]): Promise<void> {
    const entries = await this.entries(dir, prefix);
    if (!entries) return;
    for (const e of entries) {
      const kind = await this.kindOf(dir, e);
      if (kind === "dir") await this.walk(join(dir, e.name), `${prefix}${e.name}/`, out);
      else if (kind === "file") out.push(prefix + e.name);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    await this.walk(this.folderOf(prefix), prefix, out);
    return out.sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    const dir = this.folderOf(prefix);
    const entries = await this.entries(dir, prefix);
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (const e of entries ?? []) {
      const kind = await this.kindOf(dir, e);
      if (kind === "dir") prefixes.push(e.name);
      else if (kind === "file") keys.push(e.name);
    }
    return { keys: keys.sort(), prefixes: prefixes.sort() };
  }

  private writable(): void {
    if (this.readOnly) throw new ReadOnlyError(`the store at ${this.root} is open read-only`);
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.writable();
    const p = this.pathOf(key);
    const dir = dirname(p);
    const tmp = join(dir, `.${basename(p)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dir, { recursive: true });
        await writeFile(tmp, value);
        await rename(tmp, p);
        return;
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        // A concurrent `delete` in the same folder may prune it between mkdir and writeFile
        // (arrays delete all-fill chunks while writing their neighbours): make it again.
        if (errno(err) === "ENOENT" && attempt < SET_ATTEMPTS) continue;
        this.fail("cannot write", key, err);
      }
    }
  }

  async delete(key: string): Promise<void> {
    this.writable();
    const p = this.pathOf(key);
    try {
      await unlink(p);
    } catch (err) {
      // A key that names a folder is not a key that exists, and deleting it is a no-op.
      if (isMissing(err)) return;
      if (errno(err) === "EPERM" && (await stat(p).then((s) => s.isDirectory(), () => false))) return;
      this.fail("cannot delete", key, err);
    }
    await this.prune(dirname(p));
  }

  /**
   * Removes `dir` and its parents while they are empty, stopping at the root. Empty folders left
   * behind would look like groups without metadata to some tools. `rmdir` refuses a folder that
   * is not empty, so a concurrent `set` (whose temp file is already there) keeps its folder.
   */
  private async prune(dir: string): Promise<void> {
    for (; dir.startsWith(this.inside); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.writable();
    const dir = this.folderOf(prefix);
    try {
      if (prefix === "") {
        // The root itself stays: it may be a folder the user made and pointed us at.
        const names = await readdir(this.root).catch((err: unknown) => {
          if (isMissing(err)) return [];
          throw err;
        });
        await Promise.all(names.map((name) => rm(join(this.root, name), { recursive: true, force: true })));
        return;
      }
      // A file at the prefix's name is the key "a", not something under "a/": leave it alone.
      const info = await stat(dir).catch((err: unknown) => {
        if (isMissing(err)) return null;
        throw err;
      });
      if (!info?.isDirectory()) return;
      await rm(dir, { recursive: true, force: true });
    } catch (err) {
      this.fail("cannot delete prefix", prefix, err);
    }
    await this.prune(dirname(dir));
  }

  descriptor(): StoreDescriptor {
    return { kind: "filesystem", root: this.root, readOnly: this.readOnly };
  }
}
