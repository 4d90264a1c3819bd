/** Where the committed fixtures live, and scratch folders for tests. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

const made: string[] = [];
// The test runner gives each file its own process: its scratch folders go when it exits, so a
// suite run leaves nothing in /tmp (set PARZARR_KEEP_SCRATCH=1 to keep them for a post-mortem).
process.on("exit", () => {
  if (process.env.PARZARR_KEEP_SCRATCH === "1") return;
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
});

export function scratchDir(prefix = "parzarr-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
