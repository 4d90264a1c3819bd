/**
 * Non-finite numbers in attributes. Python's json (zarr-python, xarray's `_FillValue` and
 * `missing_value`) writes the bare literals NaN, Infinity and -Infinity; such a node used to be
 * lost to parzarr ("not valid JSON"). parzarr reads them in every metadata document and writes
 * them the way zarr-python does.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { InvalidMetadataError, createArray, createGroup, openArray, openGroup } from "../src/index.js";
import { parseJsonText } from "../src/metadata/json-lenient.js";
import { cliInProcess } from "./helpers/cli-in-process.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const NON_FINITE = { missing_value: NaN, hi: Infinity, lo: -Infinity, list: [NaN, 1.5, -Infinity], text: "NaN and Infinity", nested: { x: NaN } };

function assertNonFinite(attrs: Record<string, unknown>): void {
  assert.ok(Number.isNaN(attrs.missing_value));
  assert.equal(attrs.hi, Infinity);
  assert.equal(attrs.lo, -Infinity);
  assert.deepEqual(attrs.list, [NaN, 1.5, -Infinity]);
  assert.equal(attrs.text, "NaN and Infinity");
  assert.deepEqual(attrs.nested, { x: NaN });
}

const cli = cliInProcess;

test("the JSON reader takes the bare literals outside strings and nothing else", () => {
  const v = parseJsonText('{"a": NaN, "b": [Infinity,-Infinity], "NaN": "NaN", "c": "x\\" NaN"}', "doc") as Record<string, unknown>;
  assert.ok(Number.isNaN(v.a));
  assert.deepEqual(v.b, [Infinity, -Infinity]);
  assert.equal(v.NaN, "NaN");
  assert.equal(v.c, 'x" NaN');
  for (const bad of ['{"a": NaNa}', '{"a": nan}', '{"a": NaN', '{"a": xNaN}']) {
    assert.throws(() => parseJsonText(bad, "doc.json"), (e: unknown) => e instanceof InvalidMetadataError && /doc\.json: not valid JSON/.test(e.message));
  }
});

test("arrays and groups zarr-python writes with NaN and Infinity attributes open, also consolidated, and the CLI shows them", async (t) => {
  const skip = zarrPythonSkip();
  if (skip) return t.skip(skip);
  const dir = join(scratchDir("parzarr-nan-"), "x.zarr");
  const r = runPython(
    `import sys, zarr, numpy as np
g = zarr.open_group(sys.argv[1], mode='w')
a = g.create_dataset('t', shape=(4,), chunks=(2,), dtype='f4', fill_value=np.nan)
a[:] = [1, np.nan, 3, 4]
attrs = dict(missing_value=float('nan'), hi=float('inf'), lo=float('-inf'), list=[float('nan'), 1.5, float('-inf')], text='NaN and Infinity', nested=dict(x=float('nan')))
a.attrs.update(attrs)
g.attrs.update(attrs)
zarr.consolidate_metadata(sys.argv[1])`,
    dir,
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(join(dir, "t", ".zattrs"), "utf8"), /"missing_value": NaN/);
  for (const consolidated of [true, false]) {
    const g = await openGroup(dir, { mode: "r", consolidated });
    assertNonFinite(g.attrs);
    const a = await openArray(dir, { path: "t", mode: "r", consolidated });
    assertNonFinite(a.attrs);
    assert.ok(Number.isNaN(a.fillValue));
  }
  const info = await cli(["info", `${dir}#t`]);
  assert.equal(info.code, 0, info.stderr);
  assert.match(info.stdout, /missing_value/);
  const tree = await cli(["tree", dir]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.doesNotMatch(tree.stdout + tree.stderr, /cannot read/);
  const dst = join(scratchDir("parzarr-nan-"), "copy.zarr");
  const cp = await cli(["cp", dir, dst, "--format", "3", "--codec", "zstd:1", "-q"]);
  assert.equal(cp.code, 0, cp.stderr);
  assertNonFinite((await openArray(dst, { path: "t", mode: "r" })).attrs);
});

test("v2 attributes parzarr writes with NaN and Infinity are what zarr-python reads", async (t) => {
  const dir = join(scratchDir("parzarr-nan-"), "w.zarr");
  const a = await createArray(dir, { shape: [3], chunks: [3], dtype: "<f8", zarrFormat: 2 });
  await a.updateAttrs(NON_FINITE);
  assertNonFinite((await openArray(dir, { mode: "r" })).attrs);
  // Python's json.dumps form: the bare literal.
  assert.match(readFileSync(join(dir, ".zattrs"), "utf8"), /"missing_value": NaN/);
  const skip = zarrPythonSkip();
  if (skip) return t.skip(skip);
  const r = runPython(
    `import sys, json, math, zarr
a = zarr.open_array(sys.argv[1], mode='r')
at = dict(a.attrs)
print(json.dumps([math.isnan(at['missing_value']), str(at['hi']), str(at['lo']), math.isnan(at['list'][0]), [str(x) for x in at['list'][1:]], math.isnan(at['nested']['x']), at['text']]))`,
    dir,
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [true, "inf", "-inf", true, ["1.5", "-inf"], true, "NaN and Infinity"]);
});

test("v3: parzarr writes non-finite attributes as the bare literal (as zarr-python 3 does) and reads them back; zarrita, on JSON.parse, cannot", async () => {
  const dir = join(scratchDir("parzarr-nan-"), "v3.zarr");
  const g = await createGroup(dir, { zarrFormat: 3 });
  const a = await createArray(dir, { path: "a", shape: [2], chunks: [2], dtype: "float32", fillValue: NaN });
  await a.set(null, Float32Array.from([1, 2]));
  await a.updateAttrs(NON_FINITE);
  await g.updateAttrs({ plain: 1 });
  const text = readFileSync(join(dir, "a", "zarr.json"), "utf8");
  assert.match(text, /"missing_value": NaN/);
  // The fill value keeps the spec's string form.
  assert.match(text, /"fill_value": "NaN"/);
  assertNonFinite((await openArray(dir, { path: "a", mode: "r" })).attrs);
  // zarrita parses metadata with JSON.parse: the documented limit of the bare literal. An array
  // whose attributes are finite stays readable by it.
  const store = new ZarritaFileSystemStore(dir);
  await assert.rejects(zarrita.open(zarrita.root(store).resolve("a"), { kind: "array" }), /Failed to decode JSON/);
  await a.setAttrs({ missing_value: -1 });
  const z = await zarrita.open(zarrita.root(store).resolve("a"), { kind: "array" });
  assert.deepEqual(z.attrs, { missing_value: -1 });
});
