/**
 * ZipStore: archives zarr-python 2 wrote (stored, deflate, ZIP64) read exactly; archives parzarr
 * writes open in zarr-python 2's ZipStore with exact values; writes appear only on close();
 * damaged archives fail with a clear StoreError.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ReadOnlyError,
  StoreError,
  ZipStore,
  createArray,
  createGroup,
  openArray,
  resolveStore,
  type NDArray,
} from "../src/index.js";
import { storeFromDescriptor } from "../src/stores/kinds.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

const skip = zarrPythonSkip();
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

describe("ZipStore", () => {
  test("zarr-python 2 opens the zip store parzarr writes and reads exact values", { skip }, async () => {
    const dir = scratchDir();
    const path = join(dir, "out.zip");
    const store = new ZipStore(path, { mode: "w" });
    await createGroup(store, { zarrFormat: 2 });
    const a = await createArray(store, { path: "g/a", shape: [9, 11], chunks: [4, 5], dtype: "<f8", zarrFormat: 2, fillValue: -1 });
    const values = Float64Array.from({ length: 99 }, (_, i) => i / 4 - 3);
    await a.set(null, { data: values, shape: [9, 11] });
    await a.set([2, 3], 1e300); // a chunk written twice: the archive keeps the latest
    await a.set("4:8, 5:10", -1); // an all-fill chunk is deleted again
    values[2 * 11 + 3] = 1e300;
    for (let i = 4; i < 8; i++) for (let j = 5; j < 10; j++) values[i * 11 + j] = -1;
    assert.equal(existsSync(path), false, "nothing at the path before close()");
    await store.close();
    assert.deepEqual(readdirSync(dir), ["out.zip"], "no temporary file left");
    const r = runPython(
      `import sys, json, zarr, zipfile
s = zarr.ZipStore(sys.argv[1], mode="r")
a = zarr.open_array(s, path="g/a", mode="r")
print(json.dumps({"values": a[:].ravel().tolist(), "names": sorted(s.zf.namelist()),
  "stored": all(i.compress_type == zipfile.ZIP_STORED for i in s.zf.infolist()),
  "test": zipfile.ZipFile(sys.argv[1]).testzip()}))`,
      path,
    );
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout);
    assert.deepEqual(got.values, Array.from(values));
    assert.equal(got.stored, true);
    assert.equal(got.test, null, "every member passes its CRC check");
    assert.ok(!got.names.includes("g/a/1.1"), "the deleted chunk is not in the directory");
    assert.equal(new Set(got.names).size, got.names.length, "no duplicate names");
  });

  test("reads what zarr-python 2 writes with deflate members", { skip }, async () => {
    const path = join(scratchDir(), "py.zip");
    const r = runPython(
      `import sys, zarr, zipfile, numpy as np
s = zarr.ZipStore(sys.argv[1], mode="w", compression=zipfile.ZIP_DEFLATED)
a = zarr.open_array(s, mode="w", shape=(50, 7), chunks=(8, 7), dtype=">u2", fill_value=7, compressor=None)
a[:] = (np.arange(350) * 37 % 65521).reshape(50, 7).astype(">u2")
s.close()`,
      path,
    );
    assert.equal(r.status, 0, r.stderr);
    const store = new ZipStore(path);
    const a = await openArray(store, { mode: "r" });
    const got = (await a.get()) as NDArray;
    assert.deepEqual(Array.from(got.data as Uint16Array), Array.from({ length: 350 }, (_, i) => (i * 37) % 65521));
    // A range of a deflate member: inflated, then cut.
    assert.deepEqual(await store.getRange("0.0", { offset: 2, length: 2 }), new Uint8Array([0, 37]));
    await store.close();
  });

  test("reads an archive with ZIP64 end records (more than 65535 members, written by Python's zipfile)", { skip }, async () => {
    const path = join(scratchDir(), "many.zip");
    const r = runPython(
      `import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for i in range(66000):
        z.writestr(f"k/{i}", str(i))`,
      path,
    );
    assert.equal(r.status, 0, r.stderr);
    const tail = readFileSync(path).subarray(-98);
    assert.equal(new DataView(tail.buffer, tail.byteOffset).getUint32(0, true), 0x06064b50, "the archive has a ZIP64 end record");
    const store = new ZipStore(path);
    assert.equal((await store.list("k/")).length, 66000);
    for (const i of [0, 65534, 65535, 65999]) assert.equal(text(await store.get(`k/${i}`)), String(i));
    await store.close();
  });

  test("ZIP64 records parzarr writes open in Python's zipfile and in ZipStore", { skip }, async () => {
    const path = join(scratchDir(), "z64.zip");
    const w = new ZipStore(path, { mode: "w", forceZip64: true });
    await w.set("a/b", new TextEncoder().encode("hello"));
    await w.set("c", new Uint8Array(1000).fill(3));
    await w.close();
    const r = runPython(
      `import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(z.testzip(), z.read("a/b").decode(), len(z.read("c")), sorted(z.namelist()))`,
      path,
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "None hello 1000 ['a/b', 'c']");
    const z = new ZipStore(path);
    assert.equal(text(await z.get("a/b")), "hello");
    assert.equal(text(await z.getRange("a/b", { offset: -3 })), "llo");
    await z.close();
  });

  test("mode \"a\" adds to an archive; reads while writing see the new members; read-only refuses writes", async () => {
    const path = join(scratchDir(), "app.zip");
    const w = new ZipStore(path, { mode: "w" });
    await w.set("x", new TextEncoder().encode("one"));
    await w.set("y", new TextEncoder().encode("two"));
    await w.close();
    const a = new ZipStore(path, { mode: "a" });
    await a.set("x", new TextEncoder().encode("ONE!"));
    await a.set("z/w", new TextEncoder().encode("three"));
    await a.delete("y");
    assert.equal(text(await a.get("x")), "ONE!");
    assert.deepEqual(await a.listDir(""), { keys: ["x"], prefixes: ["z"] });
    // The old archive is untouched until close().
    const before = new ZipStore(path);
    assert.equal(text(await before.get("y")), "two");
    await before.close();
    await a.close();
    const r = new ZipStore(path);
    assert.deepEqual(await r.list(""), ["x", "z/w"]);
    assert.equal(text(await r.get("z/w")), "three");
    assert.equal(await r.get("y"), undefined);
    await assert.rejects(r.set("q", new Uint8Array(1)), ReadOnlyError);
    await r.close();
    await assert.rejects(r.get("x"), (e: unknown) => e instanceof StoreError && /closed/.test(e.message));
  });

  test("a path ending in .zip opens a ZipStore", async () => {
    const path = join(scratchDir(), "p.zip");
    const a = await createArray(path, { shape: [3], chunks: [2], dtype: "int8", zarrFormat: 3 });
    await a.set(null, { data: new Int8Array([1, 2, 3]), shape: [3] });
    assert.ok(a.store instanceof ZipStore);
    await (a.store as ZipStore).close();
    const b = await openArray(path, { mode: "r" });
    assert.ok(b.store instanceof ZipStore);
    assert.deepEqual(Array.from(((await b.get()) as NDArray).data as Int8Array), [1, 2, 3]);
    assert.ok(resolveStore(path, { readOnly: true }) instanceof ZipStore);
    const d = b.store.descriptor();
    assert.ok(d.kind === "zip" && d.path === path && d.id === undefined, "a reader's descriptor opens the file by path");
  });

  test("a task's descriptor reopens a reader from its path and finds a writer only in its own thread", async () => {
    const path = join(scratchDir(), "d.zip");
    const w = new ZipStore(path, { mode: "w" });
    await w.set("k", new TextEncoder().encode("v"));
    const wd = w.descriptor();
    assert.equal(storeFromDescriptor(wd), w);
    await w.close();
    assert.throws(() => storeFromDescriptor(wd), (e: unknown) => e instanceof StoreError && /another thread/.test(e.message));
    const r = new ZipStore(path);
    const again = storeFromDescriptor(r.descriptor());
    assert.ok(again instanceof ZipStore && again !== r && again.readOnly);
    assert.equal(text(await again.get("k")), "v");
    await again.close();
  });

  test("damaged archives fail with a StoreError that says what is wrong", async () => {
    const dir = scratchDir();
    const good = join(dir, "good.zip");
    const w = new ZipStore(good, { mode: "w" });
    await w.set("k", new TextEncoder().encode("some bytes"));
    await w.set("l", new TextEncoder().encode("more bytes"));
    await w.close();
    const bytes = readFileSync(good);
    const cases: [string, Uint8Array, RegExp][] = [
      ["not a zip", new TextEncoder().encode("just some text, long enough to hold an end record if it were one"), /no end of central directory record/],
      ["cut short", bytes.subarray(0, bytes.length - 30), /no end of central directory record|central directory/],
      [
        "directory signature broken",
        (() => {
          const b = new Uint8Array(bytes);
          const cdOffset = new DataView(b.buffer).getUint32(b.length - 6, true);
          b[cdOffset] ^= 0xff;
          return b;
        })(),
        /central directory entry 0 .*malformed/,
      ],
      [
        "directory past the end record",
        (() => {
          const b = new Uint8Array(bytes);
          new DataView(b.buffer).setUint32(b.length - 6, b.length, true);
          return b;
        })(),
        /runs past/,
      ],
      [
        // A ZIP64 field claiming 16 bytes in an extra area of 4: its sizes would come from the comment.
        "ZIP64 field past its extra area",
        (() => {
          const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          const cdOffset = dv.getUint32(bytes.length - 6, true);
          const first = 46 + dv.getUint16(cdOffset + 28, true) + dv.getUint16(cdOffset + 30, true) + dv.getUint16(cdOffset + 32, true);
          const entry = new Uint8Array(46 + 1 + 4 + 16);
          entry.set(bytes.subarray(cdOffset, cdOffset + 47));
          const e = new DataView(entry.buffer);
          e.setUint32(20, 0xffffffff, true);
          e.setUint32(24, 0xffffffff, true);
          e.setUint16(30, 4, true);
          e.setUint16(32, 16, true);
          e.setUint32(47, 0x00100001, true); // id 1, length 16
          e.setBigUint64(51, 10n, true); // the true sizes, in the comment
          e.setBigUint64(59, 10n, true);
          const rest = bytes.subarray(cdOffset + first, bytes.length);
          const b = new Uint8Array(cdOffset + entry.length + rest.length);
          b.set(bytes.subarray(0, cdOffset));
          b.set(entry, cdOffset);
          b.set(rest, cdOffset + entry.length);
          const v = new DataView(b.buffer);
          v.setUint32(b.length - 10, v.getUint32(b.length - 10, true) + entry.length - first, true);
          return b;
        })(),
        /ZIP64 field of "k" is too short/,
      ],
    ];
    for (const [name, content, why] of cases) {
      const p = join(dir, `${name.replace(/ /g, "-")}.zip`);
      writeFileSync(p, content);
      const z = new ZipStore(p);
      await assert.rejects(z.get("k"), (e: unknown) => {
        assert.ok(e instanceof StoreError, `${name}: got ${String(e)}`);
        assert.match(e.message, /bad zip file/, name);
        assert.match(e.message, why, name);
        assert.ok(e.message.includes(p), `${name}: the message names the file`);
        return true;
      });
    }
    // A member whose bytes changed fails its CRC.
    const b = new Uint8Array(bytes);
    b[30 + 1 + 2] ^= 1; // inside the data of "k", after its 30-byte header and 1-byte name
    const p = join(dir, "crc.zip");
    writeFileSync(p, b);
    const z = new ZipStore(p);
    await assert.rejects(z.get("k"), (e: unknown) => e instanceof StoreError && /CRC-32/.test(e.message));
    assert.equal(text(await z.get("l")), "more bytes");
    await z.close();
  });
});
