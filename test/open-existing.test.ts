/**
 * Creating over an existing node is ALREADY_EXISTS before the creation options are looked at,
 * with a message that names where and says how to replace it. `openArray(path, { mode: "w-" })`
 * used to say `"shape" must be a list of integers`, and the message read "the store root already
 * holds a array".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { AlreadyExistsError, createArray, createGroup, openArray, openGroup } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

test("mode w- on an existing array or group is ALREADY_EXISTS naming the place and the way out", async () => {
  const dir = join(scratchDir("parzarr-w-"), "a.zarr");
  await createArray(dir, { shape: [4], chunks: [2], dtype: "int16" });
  const refused = (where: RegExp, what: string) => (e: unknown) =>
    e instanceof AlreadyExistsError && where.test(e.message) && e.message.includes(`already holds ${what}`) && /overwrite: true/.test(e.message);
  await assert.rejects(openArray(dir, { mode: "w-" }), refused(/^the root of .*a\.zarr/, "an array"));
  await assert.rejects(openArray(dir, { mode: "w-", shape: [4], dtype: "int16" }), refused(/a\.zarr/, "an array"));
  await assert.rejects(openGroup(dir, { mode: "w-" }), refused(/a\.zarr/, "an array"));
  const g = join(scratchDir("parzarr-w-"), "g.zarr");
  await createGroup(g, { zarrFormat: 2 });
  await createGroup(g, { path: "sub", zarrFormat: 2 });
  await assert.rejects(openArray(g, { path: "sub", mode: "w-" }), refused(/^"sub" in .*g\.zarr/, "a group"));
  await assert.rejects(createArray(g, { path: "sub", shape: [1], dtype: "int8", zarrFormat: 2 }), refused(/"sub"/, "a group"));
  // Replacing still works.
  const a = await openArray(g, { path: "sub", mode: "w", shape: [2], dtype: "int8", zarrFormat: 2 });
  assert.deepEqual(a.shape, [2]);
});
