/**
 * README snippets that tests run as written (test/zarrita-adapter.test.ts) and compile under
 * strict (test/typing.test.ts): read from README.md itself, so the README cannot drift from them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** The README's TypeScript block that contains `marker`. */
export function readmeBlock(marker: string): string {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes(marker));
  if (block === undefined) throw new Error(`README.md has no TypeScript block containing ${marker}`);
  return block;
}

/** README's parzarr/zarrita snippet. */
export const ZARRITA_README_SNIPPET = readmeBlock('from "parzarr/zarrita"');

/** README's Icechunk snippet. */
export const ICECHUNK_README_SNIPPET = readmeBlock('from "@earthmover/icechunk"');

/**
 * Runs a README snippet as a user's script in `dir` (under tsx), its package imports pointed at
 * `modules` (specifier -> URL: parzarr's sources, the installed peers); stdout, stderr, exit code.
 */
export function runSnippet(snippet: string, modules: Record<string, string>, dir: string): { stdout: string; stderr: string; status: number | null } {
  let text = snippet;
  for (const [specifier, url] of Object.entries(modules)) text = text.replaceAll(`from "${specifier}"`, `from ${JSON.stringify(url)}`);
  const file = join(dir, "snippet.mts");
  writeFileSync(file, text);
  return spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), file], { encoding: "utf8", cwd: dir, timeout: 120_000 });
}
