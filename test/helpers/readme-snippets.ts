/**
 * README snippets that tests run as written (test/zarrita-adapter.test.ts) and compile under
 * strict (test/typing.test.ts): read from README.md itself, so the README cannot drift from them.
 */
import { readFileSync } from "node:fs";

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
