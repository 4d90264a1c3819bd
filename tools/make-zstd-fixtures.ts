/**
 * Writes test/fixtures/zstd-cli: frames made by the zstd command (Debian's zstd 1.5) from the
 * inputs of test/helpers/zstd-inputs.ts with a spread of options, and manifest.json naming each
 * frame's input and options. They let the decoder's tests run against libzstd's frames on
 * runtimes without native zstd (Node 20). Needs the `zstd` command.
 *
 *   npx tsx tools/make-zstd-fixtures.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ZSTD_INPUTS } from "../test/helpers/zstd-inputs.js";

const OUT = resolve(import.meta.dirname, "../test/fixtures/zstd-cli");
const CASES: [string, string[]][] = [
  ["text", ["-1"]],
  ["text", ["-3", "--no-check"]],
  ["text", ["-19"]],
  ["text", ["--ultra", "-22", "--no-content-size"]],
  ["text", ["--fast=5"]],
  ["walk", ["-1"]],
  ["walk", ["-19", "--no-check"]],
  ["ramps", ["-3"]],
  ["ramps", ["-19", "--long=24"]],
  ["noise", ["-3"]],
  ["mixed", ["-3", "--no-content-size"]],
  ["mixed", ["-12", "-B65536"]],
  ["empty", ["-3"]],
  ["byte", ["-3"]],
  ["periods", ["-3"]],
  ["periods", ["-19"]],
];

const dir = mkdtempSync(join(tmpdir(), "zstd-fixtures-"));
try {
  const manifest: { file: string; input: string; options: string[]; version: string }[] = [];
  const version = execFileSync("zstd", ["--version"], { encoding: "utf8" }).trim();
  CASES.forEach(([input, options], i) => {
    const src = join(dir, input);
    writeFileSync(src, ZSTD_INPUTS[input]());
    const file = `${String(i).padStart(2, "0")}-${input}.zst`;
    execFileSync("zstd", ["-q", "-f", ...options, src, "-o", join(OUT, file)]);
    manifest.push({ file, input, options, version });
  });
  // Two frames back to back: the decoded content is both inputs, one after the other.
  const a = readFileSync(join(OUT, "00-text.zst"));
  const b = readFileSync(join(OUT, "07-ramps.zst"));
  writeFileSync(join(OUT, "two-frames.zst"), Buffer.concat([a, b]));
  writeFileSync(join(OUT, "manifest.json"), JSON.stringify({ frames: manifest, concatenated: { file: "two-frames.zst", inputs: ["text", "ramps"] } }, null, 1) + "\n");
  console.log(`wrote ${manifest.length + 1} frames to ${OUT}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
