/**
 * Where an HDF5 file keeps each dataset's bytes, read from the file format itself: h5wasm has no
 * H5Dget_chunk_info or H5Dget_offset. Only as much of the format as that needs: superblocks 0-3;
 * object headers v1 and v2 with continuations; groups as symbol tables (v1 B-tree + local heap),
 * compact link messages, or dense links in a fractal heap (its direct and indirect blocks walked
 * in order); the data layout message version 3 (compact, contiguous, chunked with a v1 B-tree
 * chunk index). Layout version 4 (HDF5 1.10's fixed/extensible array and v2 B-tree chunk
 * indexes, written only with libver v110 or later) is refused with UNSUPPORTED.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import { HDF5_SIGNATURE } from "./hdf5-model.js";
import { openSourceFile } from "./source-file.js";
import { SourceFileError, UnsupportedError } from "../errors.js";

export type DatasetStorage =
  | { kind: "compact"; data: Uint8Array }
  /** address undefined: never written (reads as the fill value). */
  | { kind: "contiguous"; address: number | undefined; size: number }
  | { kind: "chunked"; chunks: number[]; list: ChunkLocation[] };

export interface ChunkLocation {
  /** Element offsets of the chunk's first element. */
  offset: number[];
  address: number;
  size: number;
  /** Bit i set: filter i of the pipeline was skipped for this chunk. */
  filterMask: number;
}

const UNDEFINED = -1;

class FileReader {
  private readonly fd: number;
  readonly size: number;
  offsetSize = 8;
  lengthSize = 8;
  base = 0;
  constructor(readonly path: string) {
    this.fd = openSourceFile(path);
    this.size = fstatSync(this.fd).size;
  }
  close(): void {
    closeSync(this.fd);
  }
  bytes(at: number, n: number): Uint8Array {
    if (at < 0 || at + n > this.size) throw new SourceFileError(`${this.path}: HDF5 structure at byte ${at} runs past the end of the file (${this.size} bytes; truncated?)`);
    const out = new Uint8Array(n);
    readSync(this.fd, out, 0, n, at);
    return out;
  }
}

/** A little-endian cursor over a block of the file. */
class Cursor {
  pos = 0;
  readonly view: DataView;
  constructor(
    readonly buf: Uint8Array,
    private readonly f: FileReader,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new SourceFileError(`${this.f.path}: an HDF5 structure ends early (corrupt?)`);
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++];
  }
  uint(n: number): number {
    this.need(n);
    let v = 0;
    let allOnes = true;
    for (let i = n - 1; i >= 0; i--) {
      const b = this.buf[this.pos + i];
      if (b !== 0xff) allOnes = false;
      v = v * 256 + b;
    }
    this.pos += n;
    return allOnes && n >= 4 ? UNDEFINED : v;
  }
  addr(): number {
    const a = this.uint(this.f.offsetSize);
    return a === UNDEFINED ? UNDEFINED : a + this.f.base;
  }
  len(): number {
    return this.uint(this.f.lengthSize);
  }
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
  sig(s: string): boolean {
    this.need(s.length);
    const ok = [...s].every((c, i) => this.buf[this.pos + i] === c.charCodeAt(0));
    this.pos += s.length;
    return ok;
  }
}

interface Message {
  type: number;
  body: Uint8Array;
}

/** Reads dataset storage by path; one instance per file, closed with `close()`. */
export class Hdf5Layout {
  private readonly f: FileReader;
  private root = UNDEFINED;

  constructor(path: string) {
    this.f = new FileReader(path);
    try {
      this.readSuperblock();
    } catch (err) {
      this.f.close();
      throw err;
    }
  }

  close(): void {
    this.f.close();
  }

  private cursor(at: number, n: number): Cursor {
    return new Cursor(this.f.bytes(at, Math.min(n, this.f.size - at)), this.f);
  }

  private readSuperblock(): void {
    let at = 0;
    for (;;) {
      if (at + 8 > this.f.size) throw new SourceFileError(`${this.f.path}: no HDF5 superblock`);
      const head = this.f.bytes(at, 8);
      if (HDF5_SIGNATURE.every((b, i) => head[i] === b)) break;
      at = at === 0 ? 512 : at * 2;
    }
    const c = this.cursor(at, 128);
    c.skip(8);
    const version = c.u8();
    if (version === 0 || version === 1) {
      c.skip(4); // free-space, root symbol table, reserved, shared header versions
      this.f.offsetSize = c.u8();
      this.f.lengthSize = c.u8();
      c.skip(1 + 4 + 4 + (version === 1 ? 4 : 0));
      this.f.base = c.uint(this.f.offsetSize);
      c.skip(this.f.offsetSize * 3); // free space, end of file, driver information
      // The root group's symbol table entry: link name offset, then its object header.
      c.skip(this.f.offsetSize);
      this.root = c.addr();
    } else if (version === 2 || version === 3) {
      this.f.offsetSize = c.u8();
      this.f.lengthSize = c.u8();
      c.skip(1);
      this.f.base = c.uint(this.f.offsetSize);
      c.skip(this.f.offsetSize * 2); // superblock extension, end of file
      this.root = c.addr();
    } else {
      throw new UnsupportedError(`${this.f.path}: HDF5 superblock version ${version} is not read here`);
    }
  }

  /** The messages of the object header at `at` (v1 or v2), continuation blocks included. */
  private messages(at: number): Message[] {
    const out: Message[] = [];
    const head = this.cursor(at, 48);
    if (head.sig("OHDR")) {
      const version = head.u8();
      if (version !== 2) throw new SourceFileError(`${this.f.path}: object header version ${version} at ${at}`);
      const flags = head.u8();
      if (flags & 0x20) head.skip(16);
      if (flags & 0x10) head.skip(4);
      const sizeBytes = 1 << (flags & 3);
      const size = head.uint(sizeBytes);
      const start = at + head.pos;
      const blocks: { at: number; size: number }[] = [{ at: start, size: size }];
      for (let i = 0; i < blocks.length; i++) {
        const b = blocks[i];
        const c = this.cursor(b.at, b.size);
        const end = b.size - (i === 0 ? 0 : 4); // checksum after the messages (inside for continuations)
        if (i > 0 && !c.sig("OCHK")) throw new SourceFileError(`${this.f.path}: bad object header continuation at ${b.at}`);
        while (c.pos + 4 + ((flags & 4) ? 2 : 0) <= end - (i === 0 ? 0 : 0)) {
          const type = c.u8();
          const len = c.uint(2);
          const mflags = c.u8();
          if (flags & 4) c.skip(2);
          if (c.pos + len > c.buf.length) break;
          const body = c.buf.subarray(c.pos, c.pos + len);
          c.skip(len);
          if (mflags & 2) continue; // shared: never a layout, link or symbol table here
          if (type === 0x10) blocks.push(this.continuation(body));
          else out.push({ type, body });
        }
      }
      return out;
    }
    // Version 1: 16-byte prefix, messages aligned to 8 bytes.
    const c = this.cursor(at, 16);
    const version = c.u8();
    if (version !== 1) throw new SourceFileError(`${this.f.path}: no object header at byte ${at} (corrupt?)`);
    c.skip(1);
    const count = c.uint(2);
    c.skip(4);
    const size = c.uint(4);
    const blocks: { at: number; size: number }[] = [{ at: at + 16, size }];
    for (let i = 0; i < blocks.length && out.length < count; i++) {
      const m = this.cursor(blocks[i].at, blocks[i].size);
      while (m.pos + 8 <= m.buf.length) {
        const type = m.uint(2);
        const len = m.uint(2);
        const mflags = m.u8();
        m.skip(3);
        if (m.pos + len > m.buf.length) break;
        const body = m.buf.subarray(m.pos, m.pos + len);
        m.skip(len);
        if (mflags & 2) continue;
        if (type === 0x10) blocks.push(this.continuation(body));
        else out.push({ type, body });
      }
    }
    return out;
  }

  private continuation(body: Uint8Array): { at: number; size: number } {
    const c = new Cursor(body, this.f);
    return { at: c.addr(), size: c.len() };
  }

  /** Hard links of the group whose object header is at `at`: name -> object header address. */
  private links(at: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of this.messages(at)) {
      if (m.type === 0x06) this.linkMessage(new Cursor(m.body, this.f), out);
      else if (m.type === 0x11) {
        const c = new Cursor(m.body, this.f);
        const btree = c.addr();
        const heap = c.addr();
        this.symbolTable(btree, this.localHeap(heap), out);
      } else if (m.type === 0x02) {
        const c = new Cursor(m.body, this.f);
        c.skip(1);
        const flags = c.u8();
        if (flags & 1) c.skip(8);
        const heap = c.addr();
        if (heap !== UNDEFINED) this.denseLinks(heap, out);
      }
    }
    return out;
  }

  private linkMessage(c: Cursor, out: Map<string, number>): boolean {
    if (c.pos >= c.buf.length || c.buf[c.pos] !== 1) return false;
    c.skip(1);
    const flags = c.u8();
    const type = flags & 8 ? c.u8() : 0;
    if (flags & 4) c.skip(8);
    if (flags & 0x10) c.skip(1);
    const nameLen = c.uint(1 << (flags & 3));
    if (nameLen === 0 || c.pos + nameLen > c.buf.length) return false;
    const name = new TextDecoder().decode(c.buf.subarray(c.pos, c.pos + nameLen));
    c.skip(nameLen);
    if (type === 0) out.set(name, c.addr());
    else c.skip(c.uint(2));
    return true;
  }

  private localHeap(at: number): Uint8Array {
    const c = this.cursor(at, 8 + 3 * this.f.lengthSize + this.f.offsetSize);
    if (!c.sig("HEAP")) throw new SourceFileError(`${this.f.path}: no local heap at byte ${at}`);
    c.skip(4);
    const size = c.len();
    c.len();
    const data = c.addr();
    return this.f.bytes(data, size);
  }

  private symbolTable(btree: number, heap: Uint8Array, out: Map<string, number>): void {
    const name = (offset: number) => {
      const end = heap.indexOf(0, offset);
      return new TextDecoder().decode(heap.subarray(offset, end < 0 ? heap.length : end));
    };
    const visit = (at: number) => {
      const c = this.cursor(at, 24 + 2 * this.f.offsetSize + 64 * (this.f.lengthSize + this.f.offsetSize) * 2);
      if (!c.sig("TREE")) throw new SourceFileError(`${this.f.path}: no group B-tree node at byte ${at}`);
      c.skip(1);
      const level = c.u8();
      const used = c.uint(2);
      c.skip(2 * this.f.offsetSize);
      const children: number[] = [];
      for (let i = 0; i < used; i++) {
        c.len();
        children.push(c.addr());
      }
      for (const child of children) {
        if (level > 0) visit(child);
        else this.symbolNode(child, name, out);
      }
    };
    visit(btree);
  }

  private symbolNode(at: number, name: (offset: number) => string, out: Map<string, number>): void {
    const c = this.cursor(at, 8);
    if (!c.sig("SNOD")) throw new SourceFileError(`${this.f.path}: no symbol table node at byte ${at}`);
    c.skip(2);
    const n = c.uint(2);
    const entrySize = 2 * this.f.offsetSize + 24;
    const e = this.cursor(at + 8, n * entrySize);
    for (let i = 0; i < n; i++) {
      const nameOffset = e.uint(this.f.offsetSize);
      const header = e.addr();
      e.skip(24);
      out.set(name(nameOffset), header);
    }
  }

  /** Links kept as objects of a fractal heap: its blocks walked in order, link after link. */
  private denseLinks(at: number, out: Map<string, number>): void {
    const c = this.cursor(at, 256);
    if (!c.sig("FRHP")) throw new SourceFileError(`${this.f.path}: no fractal heap at byte ${at}`);
    c.skip(1);
    c.skip(2); // heap ID length
    const filtersLen = c.uint(2);
    if (filtersLen > 0) throw new UnsupportedError(`${this.f.path}: a group's link heap is filtered`);
    const flags = c.u8();
    c.skip(4); // max managed object size
    c.len(); // next huge object id
    c.addr(); // huge objects' B-tree
    c.len(); // free space
    c.addr(); // free-space manager
    c.len(); // managed space
    c.len(); // allocated managed space
    c.len(); // direct block allocation iterator
    c.len(); // managed objects
    c.len(); // huge size
    c.len(); // huge count
    c.len(); // tiny size
    c.len(); // tiny count
    const width = c.uint(2);
    const startSize = c.len();
    const maxDirect = c.len();
    const maxHeapBits = c.uint(2);
    c.uint(2); // starting rows
    const rootAddr = c.addr();
    const rows = c.uint(2);
    const offsetBytes = Math.ceil(maxHeapBits / 8);
    const checksummed = (flags & 2) !== 0;
    const directRows = Math.log2(maxDirect) - Math.log2(startSize) + 2;
    const blockSize = (row: number) => startSize * (row <= 1 ? 1 : 2 ** (row - 1));
    const direct = (addr: number, size: number) => {
      const b = this.cursor(addr, size);
      if (!b.sig("FHDB")) throw new SourceFileError(`${this.f.path}: no fractal heap direct block at byte ${addr}`);
      b.skip(1 + this.f.offsetSize + offsetBytes + (checksummed ? 4 : 0));
      while (this.linkMessage(b, out));
    };
    const indirect = (addr: number, nrows: number) => {
      const b = this.cursor(addr, 64 + nrows * width * (this.f.offsetSize + 16));
      if (!b.sig("FHIB")) throw new SourceFileError(`${this.f.path}: no fractal heap indirect block at byte ${addr}`);
      b.skip(1 + this.f.offsetSize + offsetBytes);
      const blocks: { addr: number; row: number }[] = [];
      for (let r = 0; r < nrows; r++) {
        for (let k = 0; k < width; k++) {
          const child = b.addr();
          if (r < directRows && filtersLen > 0) b.skip(this.f.lengthSize + 4);
          if (child !== UNDEFINED) blocks.push({ addr: child, row: r });
        }
      }
      for (const x of blocks) {
        if (x.row < directRows) direct(x.addr, blockSize(x.row));
        else indirect(x.addr, Math.log2(blockSize(x.row)) - Math.log2(startSize * width) + 1);
      }
    };
    if (rootAddr === UNDEFINED) return;
    if (rows === 0) direct(rootAddr, startSize);
    else indirect(rootAddr, rows);
  }

  /** The object header address of the object at `path` ("a/b/c"). */
  private find(path: string): number {
    let at = this.root;
    for (const part of path.split("/").filter((p) => p !== "")) {
      const next = this.links(at).get(part);
      if (next === undefined) throw new SourceFileError(`${this.f.path}: no link ${part} on the way to ${path}`);
      at = next;
    }
    return at;
  }

  /** Where the dataset at `path` keeps its bytes. */
  storage(path: string): DatasetStorage {
    const layout = this.messages(this.find(path)).find((m) => m.type === 0x08);
    if (!layout) throw new SourceFileError(`${this.f.path}: dataset ${path} has no layout message`);
    const c = new Cursor(layout.body, this.f);
    const version = c.u8();
    if (version !== 3) {
      throw new UnsupportedError(`${this.f.path}: dataset ${path} uses layout message version ${version}; chunk indexes of HDF5 1.10+ (libver v110/latest) are not read here`);
    }
    const cls = c.u8();
    if (cls === 0) {
      const size = c.uint(2);
      return { kind: "compact", data: layout.body.slice(c.pos, c.pos + size) };
    }
    if (cls === 1) {
      const address = c.addr();
      const size = c.len();
      return { kind: "contiguous", address: address === UNDEFINED ? undefined : address, size };
    }
    if (cls !== 2) throw new UnsupportedError(`${this.f.path}: dataset ${path} has layout class ${cls} (virtual datasets are not referenced)`);
    const ndims = c.u8(); // chunk rank + 1 (the last is the element size)
    const btree = c.addr();
    const dims = Array.from({ length: ndims }, () => c.uint(4));
    const list: ChunkLocation[] = [];
    if (btree !== UNDEFINED) this.chunkTree(btree, ndims, list);
    return { kind: "chunked", chunks: dims.slice(0, -1), list };
  }

  private chunkTree(at: number, ndims: number, list: ChunkLocation[]): void {
    const head = this.cursor(at, 8 + 2 * this.f.offsetSize);
    if (!head.sig("TREE")) throw new SourceFileError(`${this.f.path}: no chunk B-tree node at byte ${at}`);
    const type = head.u8();
    if (type !== 1) throw new SourceFileError(`${this.f.path}: B-tree node at ${at} is not a chunk index`);
    const level = head.u8();
    const used = head.uint(2);
    const keySize = 8 + 8 * ndims;
    const c = this.cursor(at + 8 + 2 * this.f.offsetSize, used * (keySize + this.f.offsetSize) + keySize);
    for (let i = 0; i < used; i++) {
      const size = c.uint(4);
      const filterMask = c.uint(4);
      const offset: number[] = [];
      for (let d = 0; d < ndims; d++) offset.push(c.uint(8));
      const child = c.addr();
      if (level > 0) this.chunkTree(child, ndims, list);
      else list.push({ offset: offset.slice(0, -1), address: child, size, filterMask });
    }
  }
}
