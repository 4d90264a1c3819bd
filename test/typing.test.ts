/**
 * Types a user sees under `strict`: every TypeScript snippet of the README compiles against the
 * package's sources, and `get`'s result type follows the call (NDArray for a selection that keeps
 * a dimension, the element type from the handle's data type). Before, `x.data` in the README did
 * not compile: `get` returned `NDArray | Scalar` whatever was asked.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { InvalidArgumentError, MemoryStore, createArray, openArray, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

/** The ```ts blocks of a markdown file (indented ones in lists too). */
function tsBlocks(markdown: string): string[] {
  const out: string[] = [];
  const re = /^([ \t]*)```ts\n([\s\S]*?)^\1```/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    const indent = m[1];
    out.push(m[2].split("\n").map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)).join("\n"));
  }
  return out;
}

/** Type-checks files as ES modules under strict, with "parzarr" resolved to src/index.ts. */
function typeErrors(files: Record<string, string>): string[] {
  const dir = scratchDir("parzarr-typing-");
  mkdirSync(dir, { recursive: true });
  const names = Object.entries(files).map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, `export {};\n${text}`);
    return path;
  });
  const program = ts.createProgram(names, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    typeRoots: [join(ROOT, "node_modules/@types")],
    skipLibCheck: true,
    paths: { parzarr: [join(ROOT, "src/index.ts")], "parzarr/zom": [join(ROOT, "src/zom.ts")], "parzarr/zarrita": [join(ROOT, "src/zarrita.ts")], zarrita: [join(ROOT, "node_modules/zarrita/dist/src/index.d.ts")], "@earthmover/icechunk": [join(ROOT, "node_modules/@earthmover/icechunk/index.d.ts")] },
    allowImportingTsExtensions: true,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || names.includes(d.file.fileName))
    .map((d) => {
      const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line}` : "";
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

const TYPE_CHECKS = `
import { MemoryStore, createArray, openArray, slice, type ArrayOf, type NDArray, type ZarrArray } from "parzarr";
const store = new MemoryStore();
const a = await createArray(store, { shape: [4, 4], dtype: "int32" });
const sliced: Int32Array = (await a.get("0:2, 1")).data;
const whole: Int32Array = (await a.get()).data;
const listed: Int32Array = (await a.get([slice(0, 2), null])).data;
const v = await a.get([1, 2]);
// @ts-expect-error integers alone may select a scalar
v.data;
const n: number | NDArray<Int32Array> = v;
const b = await openArray<"<i8">(store, { mode: "r" });
const big: BigInt64Array = (await b.get(null)).data;
const one: bigint | NDArray<BigInt64Array> = await b.get([0, 0]);
const c = (await openArray(store, { mode: "r" })).typed("float64");
const f: Float64Array = (await c.get(":")).data;
const s = await createArray(store, { path: "s", shape: [2], dtype: "string" });
const strings: string[] = (await s.get()).data;
const u = await openArray(store, { path: "s", mode: "r" });
// @ts-expect-error an untyped handle's data is any form
const notNarrowed: Float32Array = (await u.get()).data;
const anyForm = (await u.get()).data;
// A typed handle is a handle: it goes where an untyped one is expected.
const general: ZarrArray = a;
const named: ArrayOf<"int32"> = a;
export { sliced, whole, listed, n, big, one, f, strings, notNarrowed, anyForm, general, named };
`;

test("every TypeScript snippet of the README and docs/guide.md compiles under strict, and get's types follow the call", () => {
  const blocks = ["README.md", "docs/guide.md"].flatMap((f) => tsBlocks(readFileSync(join(ROOT, f), "utf8")));
  assert.ok(blocks.length >= 5, `found ${blocks.length} snippets`);
  assert.ok(blocks.some((b) => b.includes("x.data")), "the tour uses x.data");
  const files: Record<string, string> = { "types.mts": TYPE_CHECKS };
  blocks.forEach((b, i) => (files[`readme-${i}.mts`] = b));
  assert.deepEqual(typeErrors(files), []);
});

test("typed() checks the data type at run time; get() of a 0-d array is a 0-d NDArray, get([]) its scalar", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [3], chunks: [3], dtype: "<f4" });
  await a.set(null, 1.5);
  const f = (await openArray(store, { mode: "r" })).typed("float32");
  assert.ok((await f.get()).data instanceof Float32Array);
  assert.equal((await openArray(store, { mode: "r" })).typed("<f4").dtype, "float32");
  assert.throws(() => a.typed("int32"), (e: unknown) => e instanceof InvalidArgumentError && /holds float32, not int32/.test(e.message));
  assert.throws(() => a.typed("nonsense"), InvalidArgumentError);
  const z = await createArray(new MemoryStore(), { shape: [], dtype: "int16", fillValue: 7 });
  const whole = (await z.get()) as NDArray;
  assert.deepEqual([whole.shape, Array.from(whole.data as Int16Array)], [[], [7]]);
  assert.equal(await z.get([]), 7);
});

test("get with out is typed as an NDArray over out's own class, on a handle, oindex and vindex", () => {
  const snippet = `
import { MemoryStore, createArray, openArray, type NDArray } from "parzarr";
const store = new MemoryStore();
const a = await createArray(store, { shape: [4, 4], dtype: "float32" });
const out = new Float32Array(4);
// Integers alone would give the union without out: with it the result is always an NDArray.
const row: Float32Array = (await a.get([1, null], { out })).data;
const one: NDArray<Float32Array> = await a.get([1, 2], { out: new Float32Array(1) });
const u = await openArray(store, { mode: "r" });
const viaNd: Float64Array = (await u.get(null, { out: { data: new Float64Array(16), shape: [4, 4], stride: [4, 1] } })).data;
const o: NDArray<Float32Array> = await a.oindex.get([[0, 1], 0], { out: new Float32Array(2) });
const v: Int8Array = (await u.vindex.get([[0], [0]], { out: new Int8Array(1) })).data;
// Without out, integers alone still give the union.
// @ts-expect-error may be a scalar
const s: NDArray = await a.get([1, 2]);
export { row, one, viaNd, o, v, s };
`;
  assert.deepEqual(typeErrors({ "out.mts": snippet }), []);
});
