/**
 * Strings given in place of a store (stores/routes.ts): the browser entry leaves the S3 and
 * kerchunk-reference stores to `parzarr/stores`, and its openArray imports them only when a string
 * names one, so that a page reading over HTTP never loads them; such strings still open there.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createArray, S3Store } from "../src/index.js";
import { readPageUpFront } from "./helpers/read-page.js";
import { resolvedInChild } from "./helpers/resolved-in-child.js";
import { startS3, type TestS3 } from "./helpers/s3.js";

/** The modules of the S3 and reference stores that only a string or class naming them needs. */
const ON_DEMAND = ["src/stores/s3.ts", "src/stores/s3-config.ts", "src/stores/reference.ts", "src/stores/reference-document.ts", "src/stores/reference-template.ts", "src/stores/reference-targets.ts"];

test("a page that reads an array on workers loads no S3 or reference store up front", async () => {
  const { modules } = await readPageUpFront();
  assert.ok(modules.some((m) => m.endsWith("src/stores/fetch.ts")), "the graph was read");
  assert.deepEqual(modules.filter((m) => ON_DEMAND.some((lazy) => m.endsWith(lazy))), []);
});

test("the browser entry exports neither store nor resolveStore; parzarr/stores (browser and Node) and the Node entry do", () => {
  const names = ["S3Store", "ReferenceStore", "resolveStore", "MAX_TRAVELLING_DOCUMENT_CHARS", "OPFSStore", "FileSystemStore"];
  const exported = (entry: string): string => {
    const code = `const m = await import(${JSON.stringify(entry)}); console.log(${JSON.stringify(names)}.filter((n) => n in m).join(" "));`;
    return resolvedInChild(code, /\/(src\/[^?]+)$/).stdout;
  };
  assert.equal(exported("./src/browser.ts"), "OPFSStore");
  assert.equal(exported("./src/stores/browser.ts"), "S3Store ReferenceStore resolveStore MAX_TRAVELLING_DOCUMENT_CHARS OPFSStore");
  assert.equal(exported("./src/stores/index.ts"), "S3Store ReferenceStore resolveStore MAX_TRAVELLING_DOCUMENT_CHARS FileSystemStore");
  assert.equal(exported("./src/index.ts"), "S3Store ReferenceStore resolveStore MAX_TRAVELLING_DOCUMENT_CHARS FileSystemStore");
});

describe("on the browser entry, openArray given an s3:// URL or a .json document", () => {
  let s3: TestS3;

  // Both in a bucket of s3rver (its own process: the child below runs while this one waits).
  before(async () => {
    s3 = await startS3("routes");
    const a = await createArray(new S3Store(`s3://${s3.bucket}/a.zarr`, s3.options), { shape: [6], chunks: [4], dtype: "int16", zarrFormat: 2, compressor: null });
    await a.set(null, [1, 2, 3, 4, 5, 6], { threads: 0 });
    // A kerchunk document: inline metadata, its one chunk in an object beside it (a relative target).
    const refs = new S3Store(`s3://${s3.bucket}/refs`, s3.options);
    await refs.set("chunk.bin", new Uint8Array(Int16Array.of(7, -8, 9).buffer));
    const zarray = { zarr_format: 2, shape: [3], chunks: [3], dtype: "<i2", compressor: null, filters: null, fill_value: 0, order: "C" };
    await refs.set("refs.json", new TextEncoder().encode(JSON.stringify({ version: 1, refs: { ".zarray": JSON.stringify(zarray), "0": ["chunk.bin"] } })));
  });
  after(() => s3?.close());

  test("opens it through the store it names, imported then", () => {
    // A fresh process on the browser entry: S3 reached through the environment, as on Node.
    const saved = { ...process.env };
    Object.assign(process.env, s3.env);
    try {
      const code = `const { openArray } = await import("./src/browser.ts");
        const read = async (url) => { const a = await openArray(url, { mode: "r" }); return a.store.constructor.name + " " + Array.from((await a.get(null, { threads: 0 })).data).join(","); };
        console.log(await read(${JSON.stringify(`s3://${s3.bucket}/a.zarr`)}));
        console.log(await read(${JSON.stringify(`s3://${s3.bucket}/refs/refs.json`)}));`;
      const { stdout, resolved } = resolvedInChild(code, /\/(src\/[^?]+)$/);
      assert.equal(stdout, "S3Store 1,2,3,4,5,6\nReferenceStore 7,-8,9");
      assert.ok(resolved.has("src/stores/routes.ts") && resolved.has("src/stores/s3.ts") && resolved.has("src/stores/reference.ts"), [...resolved].join(" "));
    } finally {
      process.env = saved;
    }
  });
});
