/**
 * src/codecs/pipeline-run.ts: what a codec chain does with chunks loads with the first chunk a
 * thread decodes or encodes, so a page whose workers decode opens arrays and plans reads with the
 * chain alone (pipeline.ts builds and checks it: an unknown codec is still reported at open).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolvedInChild } from "./helpers/resolved-in-child.js";
import { readPageUpFront } from "./helpers/read-page.js";

test("a page that reads on workers holds no chunk decoding or encoding of the chain up front (esbuild --splitting)", async () => {
  const { modules, text } = await readPageUpFront();
  assert.ok(modules.some((m) => m.endsWith("src/codecs/pipeline.ts")), "the graph was read");
  assert.deepEqual(modules.filter((m) => m.endsWith("src/codecs/pipeline-run.ts")), []);
  assert.ok(!text.includes("decoded to shape"), "the page decodes whole chunks up front");
});

test("the first chunk decoded on the page's own thread loads it; an unknown codec is still reported before any chunk is read", () => {
  const { stdout, resolved } = resolvedInChild(
    `const { openArray, createArray, MemoryStore } = await import("./src/browser.ts");
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [4], chunks: [2], dtype: "int16", codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] });
    await a.set(null, 7);
    const got = await (await openArray(store, { mode: "r" })).get(null, { threads: 0 });
    const doc = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
    doc.codecs.push({ name: "no-such-codec" });
    await store.set("zarr.json", new TextEncoder().encode(JSON.stringify(doc)));
    const opened = await openArray(store, { mode: "r" }).then((b) => b.get(null, { threads: 0 })).then(() => "read", (e) => e.code);
    console.log(Array.from(got.data).join(","), opened);`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(stdout, "7,7,7,7 UNKNOWN_CODEC");
  assert.ok(resolved.has("src/codecs/pipeline-run.ts"));
});
