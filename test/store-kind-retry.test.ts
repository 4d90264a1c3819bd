/**
 * A user's store kind whose module fails to load once is not remembered as failed: the next
 * loadStoreKind imports it again (as the error's "the next call tries again" promises).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import "../src/index.js"; // installs the platform (lazy-features.ts loads through it)
import { StoreError } from "../src/errors.js";
import { loadStoreKind } from "../src/stores/kinds.js";
import { scratchDir } from "./helpers/paths.js";

test("a store kind whose first load fails loads on the next call", async () => {
  const dir = scratchDir("parzarr-store-kind-retry-");
  const file = join(dir, "late-store.mjs");
  rmSync(file, { force: true });
  const url = pathToFileURL(file).href;
  await assert.rejects(loadStoreKind("late-kind", url), (e: unknown) => e instanceof StoreError && /did not load/.test(e.message));
  writeFileSync(file, "export function openStore(d) { return { get: async () => undefined, descriptor: () => d }; }\n");
  const open = await loadStoreKind("late-kind", url);
  assert.equal(typeof open, "function");
});
