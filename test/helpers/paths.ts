/** Where the committed fixtures live, and scratch folders for tests. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

export function scratchDir(prefix = "parzarr-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
