/**
 * Hostile and leftover input: metadata nested thousands deep is INVALID_METADATA (not a raw
 * RangeError); a zip archive's member names that are no valid keys ("../evil") are never listed;
 * temporary files left by killed writers are swept on the next write into their folder (zarr-python
 * would count them as keys); a ZipStore dropped without close() closes its file itself.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { InvalidMetadataError, MemoryStore, ZipStore, createArray, openArray } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

const deep = (n: number): string => "[".repeat(n) + "]".repeat(n);

test("metadata nested 5000 deep is INVALID_METADATA naming the file, in a fill value or a codec", async () => {
  const store = new MemoryStore();
  await createArray(store, { shape: [2], chunks: [2], dtype: "int32", fillValue: 0 });
  const text = new TextDecoder().decode(await store.get("zarr.json"));
  const doc = JSON.parse(text) as { fill_value: unknown; codecs: { name: string; configuration?: unknown }[] };
  const cases = [
    JSON.stringify({ ...doc, fill_value: "@" }).replace('"@"', deep(5000)),
    JSON.stringify({ ...doc, codecs: [{ name: "bytes", configuration: { endian: "@" } }] }).replace('"@"', deep(5000)),
  ];
  for (const bad of cases) {
    await store.set("zarr.json", new TextEncoder().encode(bad));
    const err = await openArray(store, { mode: "r" }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof InvalidMetadataError, `expected INVALID_METADATA, got ${String(err)}`);
    assert.match(err.message, /zarr\.json: nested 500\d deep/);
  }
  // Moderate nesting in attributes stays fine.
  await store.set("zarr.json", new TextEncoder().encode(JSON.stringify({ ...doc, attributes: { a: "@" } }).replace('"@"', deep(100))));
  assert.equal(JSON.stringify((await openArray(store, { mode: "r" })).attrs).length, 206);
});

test("ZipStore never lists member names that are not valid keys", { skip: zarrPythonSkip() }, async () => {
  const zip = join(scratchDir(), "hostile.zip");
  const r = runPython(
    String.raw`
import sys, zipfile, json
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("zarr.json", json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))
    z.writestr("../evil", b"x")
    z.writestr("/etc/abs", b"x")
    z.writestr("a//b", b"x")
    z.writestr("ok/key", b"x")
`,
    zip,
  );
  assert.equal(r.status, 0, r.stderr);
  const store = new ZipStore(zip, { mode: "r" });
  try {
    assert.deepEqual(await store.list(""), ["ok/key", "zarr.json"]);
    assert.deepEqual(await store.listDir(""), { keys: ["zarr.json"], prefixes: ["ok"] });
  } finally {
    await store.close();
  }
});

test("temporary files of killed writers are swept on the next write into their folder", async () => {
  const root = scratchDir();
  await createArray(root, { shape: [4], chunks: [2], dtype: "uint8", zarrFormat: 2, compressor: null, fillValue: 0 });
  // A pid that certainly ran and is gone.
  const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
  const old = new Date(Date.now() - 120_000);
  const leftovers = {
    deadOld: `.0.${dead}.0a1b2c.tmp`,
    deadFresh: `.1.${dead}.0a1b2d.tmp`,
    liveOld: `.1.${process.pid}.0a1b2e.tmp`,
    ancient: `.0.${process.pid}.0a1b2f.tmp~`,
  };
  for (const name of Object.values(leftovers)) writeFileSync(join(root, name), "partial");
  for (const name of [leftovers.deadOld, leftovers.liveOld]) utimesSync(join(root, name), old, old);
  utimesSync(join(root, leftovers.ancient), new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
  // A later writer (a new process, as after a crash) opens the array and writes.
  const a = await openArray(root, { mode: "r+" });
  await a.set(null, 3);
  const names = readdirSync(root).sort();
  assert.deepEqual(names, [".zarray", leftovers.deadFresh, leftovers.liveOld, "0", "1"].sort());
});

test("a ZipStore reader dropped without close() closes its file itself (no GC warning)", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const dir = scratchDir();
  const path = join(dir, "a.zip");
  const w = new ZipStore(path, { mode: "w" });
  await w.set("k", Uint8Array.of(1, 2, 3));
  await w.close();
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.message);
  process.on("warning", onWarning);
  try {
    await (async () => {
      const r = new ZipStore(path, { mode: "r" });
      assert.deepEqual(await r.get("k"), Uint8Array.of(1, 2, 3));
    })();
    for (let i = 0; i < 10; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings.filter((m) => /file descriptor|FileHandle/i.test(m)), []);
});
