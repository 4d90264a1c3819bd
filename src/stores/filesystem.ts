/**
 * FileSystemStore: one file per key under a root folder. Writes are atomic per key: the bytes go
 * to a temporary file in the same folder, then a rename puts them in place, so a reader (or a
 * crash) sees the old value or the new one, never half of one.
 */
import { close, closeSync, constants, fstat, fstatSync, open, openSync, readv, readvSync, type Dirent, type Stats } from "node:fs";
import { lstat, mkdir, readdir, realpath, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { InvalidKeyError, ReadOnlyError, StoreError, TooLargeError, ZarrError } from "../errors.js";
import { maxStoredBytes } from "../limits.js";
import { rangeBounds, validateKey, validatePrefix, validateRange } from "./keys.js";
import type { RangeRequest, StoreDescriptor, VersionedRange, VersionedRead, VersionedReadOptions, WritableStore } from "./types.js";

/**
 * Temporary files are `.<name>.<pid>.<hex>.tmp`. No Zarr chunk or metadata key has that shape,
 * listings skip it, and keys of that shape are refused, so a write interrupted by a crash can
 * never be read back as data. The `.tmp~` ending is what earlier versions wrote: their leftovers
 * must stay hidden too. The groups: the name it stands in for, the writer's process id.
 */
const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]+\.tmp~?$/;

/**
 * A temporary file older than this is a leftover whatever its process id says (the writer may be
 * on another host sharing the folder, where its pid means nothing here).
 */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** A temporary file younger than this is never removed: its writer may be mid-rename. */
const FRESH_TEMP_MS = 10 * 1000;

/** Whether a process with this id runs on this host (EPERM: it does, as another user). */
function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errno(err) === "EPERM";
  }
}

/**
 * Removes the temporary files in `dir` (only those standing in for `target`, when given) whose
 * writers are gone: any older than an hour, and those of processes that do not run on this host
 * once older than `freshMs`. Used by ZipStore too, for its archives in progress.
 */
export async function removeStaleTemps(dir: string, freshMs: number, target?: string): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => TEMP.test(n) && (target === undefined || TEMP.exec(n)?.[1] === target));
  } catch {
    return;
  }
  const now = Date.now();
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const age = now - (await lstat(path).then((s) => s.mtimeMs, () => now));
      const pid = Number(TEMP.exec(name)?.[2]);
      if (age > STALE_TEMP_MS || (age >= freshMs && !processAlive(pid))) await unlink(path).catch(() => undefined);
    }),
  );
}

/** How many times `set` re-creates a parent folder that a concurrent `delete` pruned. */
const SET_ATTEMPTS = 10;

function errno(err: unknown): string | undefined {
  return err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
}

/**
 * Errors that mean "there is no file at this key" rather than "the disk failed". A path too long
 * for the file system cannot name a file either (a chunk key of thousands of dimensions).
 */
function isMissing(err: unknown): boolean {
  const code = errno(err);
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "ENAMETOOLONG";
}

/** Opens the last path component only if it is not a symbolic link (0 where the OS lacks it). */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/**
 * Reads open without blocking: opening a named pipe would otherwise wait (in a libuv thread, where
 * no abort reaches it) for a writer that may never come. Regular files ignore the flag, and what
 * is not one is refused after fstat (readFile).
 */
const READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const READ_NOFOLLOW = READ | O_NOFOLLOW;

/** Buffers one readv takes (IOV_MAX on Linux and macOS). */
const IOV_MAX = 1024;

/**
 * The file calls of a read, by descriptor: asynchronous (libuv's thread pool runs them) or
 * blocking. A value or a promise of one: readFile awaits either.
 */
interface FileCalls {
  open(path: string, flags: number): number | Promise<number>;
  fstat(fd: number): Stats | Promise<Stats>;
  readv(fd: number, runs: Uint8Array[], position: number): number | Promise<number>;
  close(fd: number): void | Promise<void>;
}

/** A callback call as a promise of its one result. */
function called<T>(run: (done: (err: Error | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value))));
}

const ASYNC_CALLS: FileCalls = {
  open: (path, flags) => called((done) => open(path, flags, done)),
  fstat: (fd) => called((done) => fstat(fd, done)),
  readv: (fd, runs, position) => called((done) => readv(fd, runs, position, done)),
  close: (fd) => called<void>((done) => close(fd, (err) => done(err ?? null, undefined))),
};

const BLOCKING_CALLS: FileCalls = { open: openSync, fstat: (fd) => fstatSync(fd), readv: readvSync, close: closeSync };

/**
 * Fills `runs` in order from the file at `start`, with positioned scatter reads (preadv, at most
 * IOV_MAX runs a call) until they are full or the file ends; returns the bytes read. One call
 * reads a chunk's rows straight into their places in an output, where a read into one buffer
 * would need a copy per row afterwards.
 */
async function readRuns(io: FileCalls, fd: number, runs: readonly Uint8Array[], start: number): Promise<number> {
  let done = 0;
  let i = 0; // the first run not yet full
  let within = 0; // bytes of runs[i] already read
  while (i < runs.length) {
    const batch = runs.slice(i, i + IOV_MAX);
    batch[0] = batch[0].subarray(within);
    const bytesRead = await io.readv(fd, batch, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
    // Counted from runs[i]'s start: skip the runs now full; what is left is read of the next.
    let n = within + bytesRead;
    for (; i < runs.length && n >= runs[i].length; i++) n -= runs[i].length;
    within = n;
  }
  return done;
}

/** Folders whose real path was checked, per store: bounded, since chunk folders can be many. */
const CHECKED_DIRS_MAX = 4096;

/** Options of a FileSystemStore. @inline */
export interface FileSystemStoreOptions {
  /** Refuse writes (a ReadOnlyError). */
  readOnly?: boolean;
  /**
   * Follow symbolic links that lead outside the store's folder (chunk folders linked across
   * disks, say). By default a key whose real path leaves the root is refused with INVALID_KEY,
   * for reads and writes, and `list` does not leave the root: a store served to others (or
   * opened from an untrusted archive) cannot be made to read or write elsewhere. Links that stay
   * inside the root work either way.
   */
  followSymlinks?: boolean;
}

/** One file per key under a root folder; each write is atomic (a temporary file renamed into place). */
export class FileSystemStore implements WritableStore {
  /** `set` has written the bytes to a file when it settles: writers may reuse their buffer. */
  readonly setReleasesValue = true;
  /** The root folder, absolute. */
  readonly root: string;
  readonly readOnly: boolean;
  /** Whether symbolic links under the root are followed (see FileSystemStoreOptions). */
  readonly followSymlinks: boolean;
  /** `root` with a trailing separator, to test that a path lies strictly inside it. */
  private readonly inside: string;
  /** The root's real path (the root may itself be a link: the user chose it), once it exists. */
  private realRoot: string | undefined;
  private readonly checkedDirs = new Set<string>();
  /** Folders this store has swept of stale temporary files (once each: see sweepTemps). */
  private readonly sweptDirs = new Set<string>();
  /**
   * Folders this store made (or found) for a write: the next write into one skips its mkdir, a
   * system call per chunk that showed in write profiles. A folder removed meanwhile (pruned by a
   * delete, here or in another process) fails the write with ENOENT, which makes it again.
   */
  private readonly madeDirs = new Set<string>();
  /**
   * How reads call the file system: asynchronously, through libuv's thread pool (the default: the
   * calling thread is someone's event loop), or blocking, on a thread that runs nothing else
   * (dedicateThread).
   */
  private io = ASYNC_CALLS;

  constructor(root: string, options: FileSystemStoreOptions = {}) {
    this.root = resolve(root);
    this.readOnly = options.readOnly ?? false;
    this.followSymlinks = options.followSymlinks ?? false;
    this.inside = this.root.endsWith(sep) ? this.root : this.root + sep;
  }

  /**
   * Reads files with blocking calls from now on. Only for a thread that runs nothing but chunk
   * tasks (a pool worker, which reads a chunk from the page cache in less time than handing the
   * read to libuv's pool and waking up for its answer takes): a local file's read is then one
   * system call on this thread, where asynchronously it was a third runnable thread per process
   * on a 2-core machine, a wakeup and a promise. Opens stay non-blocking (READ), so a named pipe
   * planted as a chunk cannot hang the thread; cancellation is looked at between chunks.
   * @internal the worker task calls it (parallel/execution/worker-task.ts); on a user's thread it
   * would stall the event loop.
   */
  dedicateThread(): void {
    this.io = BLOCKING_CALLS;
  }

  private async isInsideRoot(real: string): Promise<boolean> {
    this.realRoot ??= await realpath(this.root).catch(() => undefined);
    const root = this.realRoot ?? this.root;
    return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
  }

  private outside(key: string): never {
    throw new InvalidKeyError(
      `invalid store key ${JSON.stringify(key)}: it leads outside ${this.root} through a symbolic link ` +
        "(open the store with followSymlinks: true to allow that)",
    );
  }

  /**
   * Refuses a key whose folder's real path leaves the root (unless links are followed). For a
   * folder that does not exist yet, its nearest existing ancestor is checked: a write must not
   * make folders through a link to elsewhere. That ancestor is found from the root down, so a key
   * of thousands of missing folders costs as many calls as folders exist, not one per folder.
   */
  private async checkDir(key: string, dir: string): Promise<void> {
    if (this.followSymlinks || dir === this.root || this.checkedDirs.has(dir)) return;
    let real = await this.realDir(key, dir);
    if (real === undefined) {
      const names = dir.slice(this.inside.length).split(sep);
      let at = this.root;
      for (const name of names) {
        const next = await this.realDir(key, join(at, name));
        if (next === undefined) break;
        at = join(at, name);
        real = next;
      }
      if (real === undefined) return;
      dir = at;
    }
    if (!(await this.isInsideRoot(real))) this.outside(key);
    if (this.checkedDirs.size >= CHECKED_DIRS_MAX) this.checkedDirs.clear();
    this.checkedDirs.add(dir);
  }

  /** A folder's real path, or undefined when it does not exist. */
  private async realDir(key: string, dir: string): Promise<string | undefined> {
    try {
      return await realpath(dir);
    } catch (err) {
      if (!isMissing(err)) this.fail("cannot resolve", key, err);
      return undefined;
    }
  }

  /**
   * The path to open for reading a key: the key's own path when it is not a link; a link's real
   * path when that stays inside the root (or links are followed); INVALID_KEY otherwise. Opening
   * with O_NOFOLLOW tells a link apart in the same system call as the open itself.
   */
  private async readablePath(key: string): Promise<{ path: string; flags: number }> {
    const p = this.pathOf(key);
    if (this.followSymlinks) return { path: p, flags: READ };
    await this.checkDir(key, dirname(p));
    return { path: p, flags: READ_NOFOLLOW };
  }

  /** After an ELOOP from an O_NOFOLLOW open: where the link leads, if that is inside the root. */
  private async linkTarget(key: string, p: string): Promise<string> {
    const real = await realpath(p);
    if (!(await this.isInsideRoot(real))) this.outside(key);
    return real;
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
    return (await this.readFile(key, (size) => ({ start: 0, into: this.buffer(key, size) })))?.bytes;
  }

  /**
   * Reads the value into `dest` (up to its length; runs are filled in order) and returns the value's
   * size, or undefined when the key does not exist: raw chunks go from the file straight into an
   * output buffer, or into its rows.
   */
  async readInto(key: string, dest: Uint8Array | readonly Uint8Array[]): Promise<number | undefined> {
    const length = ArrayBuffer.isView(dest) ? dest.length : dest.reduce((n, run) => n + run.length, 0);
    const r = await this.readFile(key, (size) => ({ start: 0, into: ArrayBuffer.isView(dest) ? dest.subarray(0, Math.min(size, dest.length)) : dest }));
    if (r === undefined) return undefined;
    // A file that shrank between stat and read: report what is there, not stale bytes after it.
    return r.done < Math.min(r.size, length) ? r.done : r.size;
  }

  /**
   * The version of a file is its size, mtime and inode: writes replace a file by renaming a new
   * one over it (a new inode), so a value rewritten within one mtime tick still differs.
   */
  async getVersioned(key: string, opts: VersionedReadOptions = {}): Promise<VersionedRead> {
    let version = "";
    let unchanged = false;
    const r = await this.readFile(key, (size, info) => {
      version = `${size}:${info.mtimeMs}:${info.ino}`;
      unchanged = opts.ifChanged === version;
      return { start: 0, into: this.buffer(key, unchanged ? 0 : size) };
    });
    if (r === undefined) return { kind: "missing" };
    return unchanged ? { kind: "unchanged" } : { kind: "value", bytes: r.bytes, version };
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    return (await this.getRangeVersioned(key, range))?.bytes;
  }

  /** A range and its file's version as getVersioned gives it, from one open file. */
  async getRangeVersioned(key: string, range: RangeRequest): Promise<VersionedRange | undefined> {
    validateRange(range);
    let version = "";
    const r = await this.readFile(key, (size, info) => {
      version = `${size}:${info.mtimeMs}:${info.ino}`;
      const { start, end } = rangeBounds(size, range);
      return { start, into: this.buffer(key, end - start) };
    });
    return r === undefined ? undefined : { bytes: r.bytes, size: r.size, version };
  }

  /** A buffer for `bytes` of a key's file, refused past what a stored value may take. */
  private buffer(key: string, bytes: number): Uint8Array {
    if (bytes > maxStoredBytes()) {
      throw new TooLargeError(
        `cannot read ${bytes} bytes of ${JSON.stringify(key)} in ${this.root}: more than a stored value may take ` +
          `(${maxStoredBytes()} bytes; raise it with setMaxChunkBytes if this is intended)`,
      );
    }
    return new Uint8Array(bytes);
  }

  /**
   * Opens a key's file, lets `plan` choose from its size where to read from and into which
   * buffer, and fills it. Undefined when there is no file (or a folder); a file that shrank under
   * us (a concurrent rename replaced it) gives what was there. Only regular files are read: a
   * named pipe or a device (/dev/zero) is a StoreError, and reads are bounded by the file's size
   * and maxStoredBytes(), so that neither a pipe nor an endless device can hang or fill memory.
   */
  private async readFile(
    key: string,
    plan: (size: number, info: Stats) => { start: number; into: Uint8Array | readonly Uint8Array[] },
  ): Promise<{ size: number; bytes: Uint8Array; done: number } | undefined> {
    const { path: p, flags } = await this.readablePath(key);
    const io = this.io;
    let fd: number;
    try {
      try {
        fd = await io.open(p, flags);
      } catch (err) {
        if (errno(err) !== "ELOOP") throw err;
        fd = await io.open(await this.linkTarget(key, p), flags);
      }
    } catch (err) {
      if (err instanceof InvalidKeyError) throw err;
      if (isMissing(err)) return undefined;
      this.fail("cannot open", key, err);
    }
    try {
      const info = await io.fstat(fd);
      if (info.isDirectory()) return undefined;
      if (!info.isFile()) {
        throw new StoreError(`cannot read ${JSON.stringify(key)} in ${this.root}: ${p} is not a regular file (a pipe, socket or device), and parzarr reads only regular files`);
      }
      const { start, into } = plan(info.size, info);
      const done = await readRuns(io, fd, ArrayBuffer.isView(into) ? [into] : into, start);
      return { size: info.size, bytes: ArrayBuffer.isView(into) ? into.subarray(0, done) : new Uint8Array(0), done };
    } catch (err) {
      if (errno(err) === "EISDIR") return undefined;
      if (err instanceof ZarrError) throw err;
      this.fail("cannot read", key, err);
    } finally {
      await io.close(fd);
    }
  }

  /** A key's file status, links resolved as reads resolve them; undefined when there is none. */
  private async statKey(key: string): Promise<Stats | undefined> {
    const { path } = await this.readablePath(key);
    try {
      const info = await lstat(path);
      if (!info.isSymbolicLink()) return info;
      return await stat(this.followSymlinks ? path : await this.linkTarget(key, path));
    } catch (err) {
      if (err instanceof InvalidKeyError) throw err;
      if (isMissing(err)) return undefined;
      this.fail("cannot stat", key, err);
    }
  }

  async has(key: string): Promise<boolean> {
    return (await this.statKey(key))?.isFile() ?? false;
  }

  async getSize(key: string): Promise<number | undefined> {
    const info = await this.statKey(key);
    return info?.isFile() ? info.size : undefined;
  }

  async lastModified(key: string): Promise<Date | undefined> {
    const info = await this.statKey(key);
    return info?.isFile() ? info.mtime : undefined;
  }

  /** Entries of a folder, or null when the folder does not exist. Temp files are left out. */
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

  /**
   * "file", "dir" or null; a symbolic link counts as what it points to, when that lies inside the
   * root (or links are followed); a dangling link, or one that leads outside, is left out.
   */
  private async kindOf(dir: string, e: Dirent): Promise<"file" | "dir" | null> {
    if (e.isFile()) return "file";
    if (e.isDirectory()) return "dir";
    if (!e.isSymbolicLink()) return null;
    try {
      const path = join(dir, e.name);
      if (!this.followSymlinks && !(await this.isInsideRoot(await realpath(path)))) return null;
      const s = await stat(path);
      return s.isFile() ? "file" : s.isDirectory() ? "dir" : null;
    } catch {
      // A dangling link names nothing that `get` could read.
      return null;
    }
  }

  /** Lists keys under `dir`; `seen` holds the real folders walked, so a link loop ends. */
  private async walk(dir: string, prefix: string, out: string[], seen: Set<string>): Promise<void> {
    const real = await realpath(dir).catch(() => dir);
    if (seen.has(real)) return;
    seen.add(real);
    const entries = await this.entries(dir, prefix);
    if (!entries) return;
    for (const e of entries) {
      const kind = await this.kindOf(dir, e);
      if (kind === "dir") await this.walk(join(dir, e.name), `${prefix}${e.name}/`, out, seen);
      else if (kind === "file") out.push(prefix + e.name);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const dir = this.folderOf(prefix);
    await this.checkDir(prefix, dir);
    await this.walk(dir, prefix, out, new Set());
    return out.sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    const dir = this.folderOf(prefix);
    await this.checkDir(prefix, dir);
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

  /**
   * Removes the temporary files that writers killed mid-write left in `dir` (parzarr never lists
   * them, but zarr-python counts them as keys). Done once per folder per store, on its first write.
   */
  private async sweepTemps(dir: string): Promise<void> {
    if (this.sweptDirs.has(dir)) return;
    if (this.sweptDirs.size >= CHECKED_DIRS_MAX) this.sweptDirs.clear();
    this.sweptDirs.add(dir);
    await removeStaleTemps(dir, FRESH_TEMP_MS);
  }

  /**
   * Removes, in every folder under `prefix`, the temporary files of writers that no longer run
   * on this host, however new: for a caller that takes the folder over, as `cp --resume` does
   * after an interrupted copy (whose last writes die between temporary file and rename).
   */
  async removeLeftoverTemps(prefix = ""): Promise<void> {
    this.writable();
    const dirs = [this.folderOf(prefix)];
    // A loop over a stack, not recursion: a tree may be deep. Links are not followed.
    for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
      await removeStaleTemps(dir, 0);
      const sub = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of sub) if (e.isDirectory()) dirs.push(join(dir, e.name));
    }
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.writable();
    const p = this.pathOf(key);
    const dir = dirname(p);
    const tmp = join(dir, `.${basename(p)}.${process.pid}.${tempTag()}.tmp`);
    for (let attempt = 1; ; attempt++) {
      try {
        // The folder may be (or sit under) a link leading out of the store: refuse that.
        await this.checkDir(key, dir);
        if (attempt > 1 || !this.madeDirs.has(dir)) {
          await mkdir(dir, { recursive: true });
          if (this.madeDirs.size >= CHECKED_DIRS_MAX) this.madeDirs.clear();
          this.madeDirs.add(dir);
        }
        await this.sweepTemps(dir);
        // "wx": a fresh file, never through a link planted at the temporary name.
        await writeFile(tmp, value, { flag: "wx" });
        await rename(tmp, p);
        return;
      } catch (err) {
        if (err instanceof InvalidKeyError) throw err;
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
    await this.checkDir(key, dirname(p));
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
      await this.checkDir(prefix, dirname(dir));
      // A file at the prefix's name is the key "a", not something under "a/": leave it alone.
      const info = await stat(dir).catch((err: unknown) => {
        if (isMissing(err)) return null;
        throw err;
      });
      if (!info?.isDirectory()) return;
      await rm(dir, { recursive: true, force: true });
    } catch (err) {
      if (err instanceof InvalidKeyError) throw err;
      this.fail("cannot delete prefix", prefix, err);
    }
    await this.prune(dirname(dir));
  }

  descriptor(): StoreDescriptor {
    const d: StoreDescriptor = { kind: "filesystem", root: this.root, readOnly: this.readOnly };
    return this.followSymlinks ? { ...d, followSymlinks: true } : d;
  }
}

let temps = 0;

/**
 * A name part that no other writer of a temporary file uses at the same time: this process's
 * count of them and 48 random bits (other threads, other machines on a shared folder). Not
 * node:crypto: loading it costs a worker thread some 100 ms of CPU on Node 24, more than writing
 * a chunk, and uniqueness is all that is needed ("wx" refuses a clash rather than sharing a file).
 */
function tempTag(): string {
  const r = Math.floor(Math.random() * 2 ** 48);
  // Hex only: TEMP recognises `.<name>.<pid>.<hex>.tmp`.
  return `${(temps++).toString(16)}${r.toString(16).padStart(12, "0")}`;
}
