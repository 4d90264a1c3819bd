/**
 * onFirstUse (src/first-use.ts), how codec implementations, pako and aws4fetch load: one import
 * for any number of calls, calls straight through once loaded, and a failed import is tried again.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { onFirstUse } from "../src/first-use.js";

test("onFirstUse: one import shared by concurrent first calls, synchronous once loaded, a failed import tried again", async () => {
  let imports = 0;
  let fail = true;
  const use = onFirstUse(async () => {
    imports++;
    if (fail) throw new Error("network down");
    return { twice: (n: number) => 2 * n };
  });
  const twice = use((m, n: number) => m.twice(n));
  await assert.rejects(Promise.resolve(twice(1)), /network down/);
  fail = false;
  const first = [twice(1), twice(2), twice(3)];
  assert.ok(first.every((r) => r instanceof Promise), "before the import, calls wait for it");
  assert.deepEqual(await Promise.all(first), [2, 4, 6]);
  assert.equal(imports, 2, "the failed import, then one for three calls");
  assert.equal(twice(5), 10, "loaded: the call returns its value itself");
  assert.equal(imports, 2);
});

test("a module that fails to load is a typed error (MISSING_DEPENDENCY), which a chunk read passes on as it is, never CORRUPT_CHUNK", async () => {
  const { asCorrupt } = await import("../src/codecs/view.js");
  const use = onFirstUse(async (): Promise<{ f(): number }> => {
    throw new TypeError("Failed to fetch dynamically imported module: https://example.test/parzarr-abc.js");
  });
  const err = await Promise.resolve(use((m) => m.f())()).then(
    () => assert.fail("resolved"),
    (e: unknown) => e,
  );
  assert.equal((err as { code?: string }).code, "MISSING_DEPENDENCY");
  assert.match((err as Error).message, /Failed to fetch dynamically imported module/);
  assert.equal(asCorrupt(err, 'chunk "c/0"'), err);
});
