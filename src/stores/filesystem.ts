/**
 * FileSystemStore: one file per key under a root folder. Writes are atomic per key: the bytes go
 * to a temporary file in the same folder, then a rename puts them in place, so a reader (or a
 * crash) sees the old value or the new one, never half of one.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { ReadOnlyError, StoreError } from "../errors.js";
import { validateKey, validatePrefix } from "./keys.js";
import type { RangeRequest, StoreDescriptor, WritableStore } from "./types.js";

/** Temporary files start with "." and end with ".tmp~": no Zarr key looks like that. */
const TEMP = /^\..*\.tmp~$/;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

export class FileSystemStore implements WritableStore {
  readonly root: string;
  readonly readOnly: boolean;

  constructor(root: string, options: { readOnly?: boolean } = {}) {
    this.root = resolve(root);
    this.readOnly = options.readOnly ?? false;
  }

  private pathOf(key: string): string {
    const p = join(this.root, ...validateKey(key).split("/"));
    // Belt and braces: validation already refuses "..", but the path must stay under root.
    if (!p.startsWith(this.root + sep)) throw new StoreError(`key ${JSON.stringify(key)} resolves outside the store`);
    return p;
  }

  private fail(what: string, key: string, err: unknown): never {
    throw new StoreError(`${what} ${JSON.stringify(key)} in ${this.root}: ${(err as Error).message}`, { cause: err });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const p = this.pathOf(key);
    try {
      const b = await readFile(p);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "EISDIR" || errno(err) === "ENOTDIR") return undefined;
      this.fail("cannot read", key, err);
    }
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    const p = this.pathOf(key);
    let fh;
    try {
      fh = await open(p, "r");
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "EISDIR" || errno(err) === "ENOTDIR") return undefined;
      this.fail("cannot open", key, err);
    }
    try {
      const { size } = await fh.stat();
      const start = range.offset < 0 ? Math.max(0, size + range.offset) : Math.min(range.offset, size);
      const end = range.length === undefined ? size : Math.min(size, start + range.length);
      const out = new Uint8Array(end - start);
      let done = 0;
      while (done < out.length) {
        const { bytesRead } = await fh.read(out, done, out.length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return out.subarray(0, done);
    } catch (err) {
      if (errno(err) === "EISDIR") return undefined;
      this.fail("cannot read", key, err);
    } finally {
      await fh.close();
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "ENOTDIR") return false;
      this.fail("cannot stat", key, err);
    }
  }

  private async walk(dir: string, prefix: string, out: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "ENOTDIR") return;
      this.fail("cannot list", prefix, err);
    }
    for (const e of entries) {
      if (TEMP.test(e.name)) continue;
      if (e.isDirectory()) await this.walk(join(dir, e.name), `${prefix}${e.name}/`, out);
      else if (e.isFile()) out.push(prefix + e.name);
    }
  }

  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    const out: string[] = [];
    await this.walk(prefix === "" ? this.root : this.pathOf(prefix.slice(0, -1)), prefix, out);
    return out.sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    validatePrefix(prefix);
    const dir = prefix === "" ? this.root : this.pathOf(prefix.slice(0, -1));
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "ENOTDIR") return { keys: [], prefixes: [] };
      this.fail("cannot list", prefix, err);
    }
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (const e of entries) {
      if (TEMP.test(e.name)) continue;
      if (e.isDirectory()) prefixes.push(e.name);
      else if (e.isFile()) keys.push(e.name);
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
    const tmp = join(dir, `.${p.slice(dir.length + 1)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp~`);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(tmp, value);
      await rename(tmp, p);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      this.fail("cannot write", key, err);
    }
  }

  async delete(key: string): Promise<void> {
    this.writable();
    const p = this.pathOf(key);
    try {
      await unlink(p);
    } catch (err) {
      if (errno(err) === "ENOENT" || errno(err) === "ENOTDIR") return;
      this.fail("cannot delete", key, err);
    }
    // Empty folders left behind would look like groups without metadata to some tools.
    for (let dir = dirname(p); dir.startsWith(this.root + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.writable();
    validatePrefix(prefix);
    if (prefix === "") {
      let entries: string[] = [];
      try {
        entries = await readdir(this.root);
      } catch (err) {
        if (errno(err) === "ENOENT") return;
        this.fail("cannot list", prefix, err);
      }
      await Promise.all(entries.map((e) => rm(join(this.root, e), { recursive: true, force: true })));
      return;
    }
    await rm(this.pathOf(prefix.slice(0, -1)), { recursive: true, force: true });
  }

  descriptor(): StoreDescriptor {
    return { kind: "filesystem", root: this.root, readOnly: this.readOnly };
  }
}
