/**
 * What a page that opens an array and reads it on workers loads up front, built by esbuild with
 * --splitting from the browser entry: the modules with code in its static closure, and its text.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { scratchDir } from "./paths.js";

const ROOT = new URL("../../", import.meta.url).pathname;

export async function readPageUpFront(): Promise<{ modules: string[]; text: string }> {
  const dir = scratchDir("parzarr-read-page-");
  writeFileSync(join(dir, "main.js"), `import { openArray } from ${JSON.stringify(join(ROOT, "src/browser.ts"))};\nglobalThis.read = async (url) => (await openArray(url, { mode: "r" })).get(null, { threads: 2 });\n`);
  const page = await build({ absWorkingDir: ROOT, entryPoints: [join(dir, "main.js")], outdir: join(dir, "app"), bundle: true, splitting: true, format: "esm", platform: "browser", metafile: true, logLevel: "silent" });
  const outputs = page.metafile.outputs;
  const seen = new Set<string>();
  const visit = (out: string): void => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of outputs[out].imports) if (i.kind === "import-statement") visit(i.path);
  };
  visit(Object.keys(outputs).find((o) => o.endsWith("/main.js"))!);
  return {
    modules: [...seen].flatMap((out) => Object.entries(outputs[out].inputs).filter(([, i]) => i.bytesInOutput > 0).map(([m]) => m)),
    text: [...seen].map((out) => readFileSync(join(ROOT, out), "utf8")).join("\n"),
  };
}
