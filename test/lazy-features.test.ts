/**
 * src/lazy-features.ts: what a page that only reads never uses (ZarrArray's writes, S3Store's
 * requests, ReferenceStore's reads, createArray's options made metadata, how write tasks write
 * chunks, point, mask and block selections) loads on first use. Each case runs in a fresh process, where nothing has loaded it yet.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { resolvedInChild } from "./helpers/resolved-in-child.js";

const LAZY = ["src/lazy-features.ts", "src/hierarchy/array-writes.ts", "src/stores/s3-requests.ts", "src/stores/reference-reads.ts", "src/hierarchy/create-options.ts", "src/parallel/chunk-io/chunk-writes.ts", "src/indexing/fancy.ts"];

test("opening, reading and naming S3Store load none of it; the first array made and written loads it", async () => {
  // Made here: the child only opens it.
  const dir = scratchDir("parzarr-lazy-");
  await createArray(dir, { shape: [4], chunks: [2], dtype: "int32" });
  const { stdout, resolved } = resolvedInChild(
    `const { openArray, S3Store } = await import("./src/index.ts");
    const a = await openArray(${JSON.stringify(dir)}, { mode: "r" });
    const got = await a.get(null, { threads: 0 });
    new S3Store("s3://bucket/prefix", { region: "us-east-1", useEnvironment: false });
    console.log(Array.from(got.data).join(","));`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(stdout, "0,0,0,0");
  assert.deepEqual(LAZY.filter((f) => resolved.has(f)), []);
  const wrote = resolvedInChild(
    `const { createArray, MemoryStore } = await import("./src/index.ts");
    const a = await createArray(new MemoryStore(), { shape: [4], chunks: [2], dtype: "int32" });
    await a.set(null, 7);
    console.log(Array.from((await a.get(null, { threads: 0 })).data).join(","));`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(wrote.stdout, "7,7,7,7");
  assert.deepEqual(LAZY.filter((f) => !wrote.resolved.has(f)), []);
});

test("the first setAttrs and updateAttrs write the attributes as they were at the call, not after the module loaded", () => {
  const { stdout } = resolvedInChild(
    `const { createArray, openArray, MemoryStore } = await import("./src/index.ts");
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [4], chunks: [2], dtype: "int32" });
    const attrs = { units: "m" };
    const setting = a.setAttrs(attrs);
    attrs.units = "changed after the call";
    await setting;
    const update = { scale: 2 };
    const updating = a.updateAttrs(update);
    update.scale = 3;
    await updating;
    console.log(JSON.stringify((await openArray(store, { mode: "r" })).attrs));`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(stdout, JSON.stringify({ units: "m", scale: 2 }));
});
