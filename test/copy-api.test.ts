/**
 * `copy` / `copyAll` against zarr-python 2: a hierarchy zarr-python wrote is copied between
 * stores (folder, zip, HTTP, S3, memory) in each `ifExists` mode, with new chunks and codecs,
 * inline and on the pool; zarr-python reads the result back and its values must equal the
 * source's element for element, and its own `zarr.copy_all(dry_run=True)` must count the same
 * copied and skipped nodes.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  AbortError,
  AlreadyExistsError,
  FetchStore,
  FileSystemStore,
  InvalidArgumentError,
  MemoryStore,
  S3Store,
  WorkerPool,
  ZipStore,
  copy,
  copyAll,
  createGroup,
  openArray,
  openGroup,
  type CopyReport,
  type NDArray,
} from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { startS3, type TestS3 } from "./helpers/s3.js";

/** The source: groups with attributes, int64, float32 with NaN, a partly stored array, strings. */
const MAKE = `
import sys, zarr, numpy as np, numcodecs
store = zarr.DirectoryStore(sys.argv[1])
root = zarr.open_group(store, mode='w')
root.attrs['title'] = 'copy source'
foo = root.create_group('foo')
foo.attrs['level'] = 1
bar = foo.create_group('bar')
rng = np.random.default_rng(14)
baz = bar.create_dataset('baz', data=rng.integers(-1000, 1000, 100), chunks=30, dtype='i8')
baz.attrs['units'] = 'm'
spam = rng.standard_normal((37, 23)).astype('f4')
spam[3, 4] = np.nan
root.create_dataset('spam', data=spam, chunks=(10, 7), compressor=numcodecs.Blosc('lz4', 5, 1), fill_value=np.nan)
sparse = root.create_dataset('sparse', shape=(50,), chunks=(10,), dtype='u2', fill_value=7)
sparse[12:27] = np.arange(15)
root.create_dataset('names', data=np.array(['a', 'b\\u00e9', 'ccc'], dtype=object), object_codec=numcodecs.VLenUTF8())
zarr.consolidate_metadata(store)
`;

/** Every node zarr-python sees under a folder or zip, values flattened (NaN as "nan"). */
const DUMP = `
import sys, json, zarr, numpy as np
p = sys.argv[1]
store = zarr.ZipStore(p, mode='r') if p.endswith('.zip') else zarr.DirectoryStore(p)
root = zarr.open_group(store, mode='r')
out = {'attrs': root.attrs.asdict(), 'groups': {}, 'arrays': {}}
def conv(v):
    return 'nan' if isinstance(v, float) and v != v else v
def visit(name, node):
    if isinstance(node, zarr.Array):
        out['arrays'][name] = {'shape': list(node.shape), 'chunks': list(node.chunks), 'dtype': str(node.dtype),
            'compressor': node.compressor.codec_id if node.compressor else None, 'attrs': node.attrs.asdict(),
            'values': [conv(x) for x in np.asarray(node[...]).ravel().tolist()]}
    else:
        out['groups'][name] = node.attrs.asdict()
root.visititems(visit)
print(json.dumps(out))
`;

/** zarr-python's own answer: copy_all(dry_run=True) counts, or the error it raises. */
const DRY_RUN = `
import sys, json, zarr
src = zarr.open_group(zarr.DirectoryStore(sys.argv[1]), mode='r')
# r+: zarr-python's copy_all updates the destination's attributes even in a dry run.
dst = zarr.open_group(zarr.DirectoryStore(sys.argv[2]), mode='r+')
try:
    shallow = len(sys.argv) > 4 and sys.argv[4] == 'shallow'
    print(json.dumps(list(zarr.copy_all(src, dst, if_exists=sys.argv[3], dry_run=True, shallow=shallow))))
except zarr.errors.CopyError as e:
    print(json.dumps('CopyError'))
`;

interface Dump {
  attrs: Record<string, unknown>;
  groups: Record<string, Record<string, unknown>>;
  arrays: Record<string, { shape: number[]; chunks: number[]; dtype: string; compressor: string | null; attrs: Record<string, unknown>; values: unknown[] }>;
}

function python(script: string, ...args: string[]): string {
  const r = runPython(script, ...args);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const dump = (path: string): Dump => JSON.parse(python(DUMP, path)) as Dump;

/** Every file below a folder with a hash of its bytes: what "nothing was written" compares. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const visit = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else out[p.slice(dir.length)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  visit(dir);
  return out;
}

const counts = (r: CopyReport) => [r.copied, r.skipped];

describe("copy and copyAll against zarr-python", { skip: zarrPythonSkip() }, () => {
  let tmp: string;
  let src: string;
  let source: Dump;
  const srcStore = () => new FileSystemStore(src, { readOnly: true });

  before(() => {
    tmp = scratchDir("parzarr-copy-api-");
    src = join(tmp, "src.zarr");
    python(MAKE, src);
    source = dump(src);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  test("copyAll into a zip archive with a new codec, inline: zarr-python reads every value back", async () => {
    const zipPath = join(tmp, "all.zip");
    const zip = new ZipStore(zipPath, { mode: "w" });
    const report = await copyAll(await openGroup(srcStore(), { mode: "r" }), { store: zip }, { codec: "zstd:3", threads: 0 });
    await zip.close();
    // zarr-python's count for the same copy into an empty group, and its bytes (size * itemsize).
    const fresh = join(tmp, "fresh-py.zarr");
    const py = JSON.parse(python(`import sys, json, zarr\nprint(json.dumps(list(zarr.copy_all(zarr.open_group(sys.argv[1], mode='r'), zarr.open_group(sys.argv[2], mode='w')))))`, src, fresh));
    assert.deepEqual([report.copied, report.skipped, report.bytesCopied], py);
    assert.deepEqual(report.entries.map((e) => `${e.action} ${e.source}`), ["copy /foo", "copy /foo/bar", "copy /foo/bar/baz", "copy /names", "copy /spam", "copy /sparse"]);
    const back = dump(zipPath);
    assert.deepEqual(back.attrs, source.attrs);
    assert.deepEqual(back.groups, source.groups);
    for (const [name, a] of Object.entries(source.arrays)) {
      const b = back.arrays[name];
      assert.deepEqual({ ...b, compressor: a.compressor }, a, name);
      assert.equal(b.compressor, "zstd", name);
    }
  });

  test("copy one array from HTTP to S3 with new chunks and codec on the pool, in slabs, and on to a folder", async () => {
    let server: StaticServer | undefined;
    let s3: TestS3 | undefined;
    const pool = new WorkerPool({ threads: 2 });
    try {
      server = await startStaticServer({ mounts: { "/": tmp } });
      s3 = await startS3();
      // The server cannot list: the array is found through zarr-python's consolidated metadata.
      const http = new FetchStore(`${server.origin}/src.zarr/`);
      const bucket = new S3Store(`s3://${s3.bucket}/copies`, s3.options);
      let last = { chunks: 0, totalChunks: -1 };
      const report = await copy({ store: http, path: "spam" }, { store: bucket, path: "data" }, {
        chunks: [16, 5],
        codec: "gzip:1",
        memory: 40_000,
        pool,
        threads: 2,
        onProgress: (p) => (last = p),
      });
      assert.deepEqual(counts(report), [1, 0]);
      assert.equal(report.bytesCopied, 37 * 23 * 4);
      assert.deepEqual(last, { chunks: 3 * 5, bytes: 37 * 23 * 4, totalChunks: 3 * 5, totalBytes: 37 * 23 * 4 });
      const onS3 = await openArray(bucket, { path: "data/spam", mode: "r" });
      assert.deepEqual(onS3.chunks, [16, 5]);
      // S3 to a folder, inline, under another name: zarr-python reads it.
      const out = join(tmp, "from-s3.zarr");
      await copy(onS3, { store: new FileSystemStore(out) }, { name: "spam", threads: 0 });
      const back = dump(out).arrays.spam;
      assert.deepEqual(back.chunks, [16, 5]);
      assert.equal(back.compressor, "gzip");
      assert.deepEqual(back.values, source.arrays.spam.values);
    } finally {
      await pool.close();
      await server?.close();
      await s3?.close();
    }
  });

  test("inline and on the pool write the same bytes", async () => {
    const pool = new WorkerPool({ threads: 2 });
    try {
      const a = join(tmp, "inline.zarr");
      const b = join(tmp, "pooled.zarr");
      await copy({ store: srcStore(), path: "foo" }, { store: new FileSystemStore(a) }, { chunks: [7], codec: "blosc:zstd:3:bitshuffle", threads: 0 });
      await copy({ store: srcStore(), path: "foo" }, { store: new FileSystemStore(b) }, { chunks: [7], codec: "blosc:zstd:3:bitshuffle", pool, threads: 2 });
      assert.deepEqual(listing(b), listing(a));
      assert.equal(Object.keys(listing(a)).filter((k) => /baz\/\d+$/.test(k)).length, 15);
      assert.deepEqual(dump(a).arrays["foo/bar/baz"].values, source.arrays["foo/bar/baz"].values);
    } finally {
      await pool.close();
    }
  });

  test("ifExists: raise, skip, skip_initialized and replace, each counted as zarr-python counts it", async () => {
    const dst = join(tmp, "modes.zarr");
    const store = new FileSystemStore(dst);
    await copyAll({ store: srcStore() }, { store });
    // The destination drifts: one stored chunk of baz changed and another deleted, one value of
    // spam changed (all its chunks still stored), and an array the source does not have.
    const baz = await openArray(store, { path: "foo/bar/baz", mode: "r+" });
    await baz.set([0], 999_999);
    unlinkSync(join(dst, "foo/bar/baz/1"));
    await (await openArray(store, { path: "spam", mode: "r+" })).set([0, 0], 1234);
    await (await openGroup(store, { mode: "r+" })).createArray("extra", { shape: [2], chunks: [2], dtype: "int8" });
    const values = async (path: string) => Array.from(((await (await openArray(store, { path, mode: "r" })).get()) as NDArray).data as ArrayLike<number | bigint>, Number);

    for (const mode of ["raise", "skip", "skip_initialized", "replace"] as const) {
      const py = JSON.parse(python(DRY_RUN, src, dst, mode)) as [number, number, number] | "CopyError";
      const before = listing(dst);
      // A dry run: zarr-python's counts, and not one file touched.
      const dry = copyAll({ store: srcStore() }, { store }, { ifExists: mode, dryRun: true });
      if (py === "CopyError") {
        await assert.rejects(dry, AlreadyExistsError);
        await assert.rejects(copyAll({ store: srcStore() }, { store }, { ifExists: mode }), (err: AlreadyExistsError) => err.code === "ALREADY_EXISTS" && /spam|foo/.test(err.message));
        assert.deepEqual(listing(dst), before, "raise writes nothing");
        continue;
      }
      assert.deepEqual([...counts(await dry), (await dry).bytesCopied], py, `${mode} dry run`);
      assert.deepEqual(listing(dst), before, `${mode} dry run writes nothing`);
      const report = await copyAll({ store: srcStore() }, { store }, { ifExists: mode });
      assert.deepEqual(counts(report), py.slice(0, 2), mode);
      if (mode === "skip") assert.deepEqual(listing(dst), before, "skip leaves every node as it was");
      if (mode === "skip_initialized") {
        // The missing chunk is filled in; the stored ones, changed or not, are left.
        const want = source.arrays["foo/bar/baz"].values as number[];
        assert.deepEqual(await values("foo/bar/baz"), [999_999, ...want.slice(1)]);
        assert.equal((await values("spam"))[0], 1234);
        assert.deepEqual(await values("sparse"), source.arrays.sparse.values);
      }
    }
    // After replace, zarr-python reads the source's values everywhere; the extra array stays.
    const back = dump(dst);
    for (const [name, a] of Object.entries(source.arrays)) assert.deepEqual(back.arrays[name], a, name);
    assert.ok(back.arrays.extra);
  });

  test("a dry run into a missing destination creates nothing", async () => {
    const dst = join(tmp, "never.zarr");
    const report = await copy({ store: srcStore(), path: "foo" }, { store: new FileSystemStore(dst) }, { dryRun: true, chunks: [5] });
    assert.deepEqual([...counts(report), report.bytesCopied], [3, 0, 0]);
    assert.deepEqual(report.entries.map((e) => e.dest), ["foo", "foo/bar", "foo/bar/baz"]);
    assert.equal(report.entries[2].bytes, 800);
    assert.ok(!existsSync(dst));
    // shallow: the children that are arrays, not the groups (zarr-python does not recurse).
    const empty = join(tmp, "empty.zarr");
    await createGroup(new FileSystemStore(empty), { zarrFormat: 2 });
    const shallow = await copyAll({ store: srcStore() }, { store: new FileSystemStore(empty) }, { shallow: true, dryRun: true });
    assert.deepEqual([...counts(shallow), shallow.bytesCopied], JSON.parse(python(DRY_RUN, src, empty, "raise", "shallow")));
    assert.deepEqual(shallow.entries.map((e) => e.source), ["/names", "/spam", "/sparse"]);
  });

  test("an aborted signal stops the copy with ABORTED", async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(copy({ store: srcStore(), path: "spam" }, { store: new MemoryStore() }, { signal: ac.signal }), (err: AbortError) => err.code === "ABORTED");
  });

  test("withoutAttrs copies no user attributes", async () => {
    const mem = new MemoryStore();
    await copy({ store: srcStore(), path: "foo" }, { store: mem }, { withoutAttrs: true });
    assert.deepEqual((await openGroup(mem, { path: "foo", mode: "r" })).attrs, {});
    const baz = await openArray(mem, { path: "foo/bar/baz", mode: "r" });
    assert.deepEqual(baz.attrs, {});
    assert.deepEqual(Array.from(((await baz.get()) as NDArray).data as BigInt64Array, Number), source.arrays["foo/bar/baz"].values);
  });

  test("overlapping source and destination are refused before anything is written", async () => {
    const before = listing(src);
    const writable = new FileSystemStore(src);
    const foo = await openGroup(writable, { path: "foo", mode: "r" });
    // Onto itself (replace would delete what it reads), and into a folder inside the source.
    await assert.rejects(copy(foo, { store: writable }, { ifExists: "replace" }), InvalidArgumentError);
    await assert.rejects(copyAll({ store: srcStore() }, { store: new FileSystemStore(join(src, "foo")) }), InvalidArgumentError);
    await assert.rejects(copy({ store: srcStore() }, { store: writable, path: "foo" }, { name: "inside" }), InvalidArgumentError);
    assert.deepEqual(listing(src), before);
  });

  test("bad options are INVALID_ARGUMENT", async () => {
    const mem = new MemoryStore();
    await assert.rejects(copy({ store: srcStore() }, { store: mem }), /has no name; pass options.name/);
    await assert.rejects(copy({ store: srcStore(), path: "spam" }, { store: mem }, { ifExists: "overwrite" as never }), InvalidArgumentError);
    await assert.rejects(copy({ store: srcStore(), path: "spam" }, { store: mem }, { chunks: [3] }), /chunks has 1 dimensions/);
    await assert.rejects(copy({ store: srcStore(), path: "spam" }, { store: mem }, { codec: "brotli" }), InvalidArgumentError);
    await assert.rejects(copy({ store: srcStore(), path: "spam" }, { store: mem }, { thread: 2 } as never), /unknown option "thread"/);
    assert.deepEqual(await mem.list(""), []);
  });

  test("copy converts to v3 with shards in memory; values as zarr-python wrote them", async () => {
    const mem = new MemoryStore();
    await copy({ store: srcStore(), path: "spam" }, { store: mem }, { format: 3, chunks: [8, 8], shards: [16, 16], codec: "zstd:1" });
    const arr = await openArray(mem, { path: "spam", mode: "r" });
    assert.equal(arr.zarrFormat, 3);
    assert.deepEqual(arr.shards, [16, 16]);
    const got = Array.from(((await arr.get()) as NDArray).data as Float32Array, (x) => (Number.isNaN(x) ? "nan" : x));
    assert.deepEqual(got, source.arrays.spam.values);
  });
});
