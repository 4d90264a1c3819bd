/**
 * package.json's "sideEffects": bundlers (esbuild, Rollup/Vite, webpack) drop a module of the
 * package that nothing uses unless the field names it, so the list must hold every module whose
 * loading does something others rely on. The answer is derived here from the sources the package
 * build compiles and from the browser and Node worker bundles, never written down: a new
 * registration or a new `import "./x.js"` fails this test until the field names it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { buildBrowser } from "../tools/build-browser.js";
import { bundleNodeWorkers } from "../tools/bundle-node-workers.js";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

/** Calls whose name says they register or install something for others (as a const's initialiser too). */
const REGISTERS = /^(register|install|add[A-Z]|define|expose)/;

/** Whether a node runs code as its module loads: a call or `new` outside any function body. */
function runsCode(node: ts.Node, callee?: RegExp): boolean {
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false;
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    if (!callee) return true;
    const name = node.expression.getText().split(".").pop() ?? "";
    if (callee.test(name)) return true;
  }
  return ts.forEachChild(node, (child) => runsCode(child, callee) || undefined) ?? false;
}

/**
 * The package's compiled sources whose loading matters: those that run a statement at top level
 * (an expression or control flow that calls something: an install, a registration, a worker's
 * expose, a script's main) or register something as a const's initialiser, those that another
 * module imports for effect (`import "./x.js"`), and those that do so themselves (an entry that a
 * page imports one binding of must still run its `import "./platform/…"`).
 */
function effectSources(): Map<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(String(d.messageText)) })!;
  const why = new Map<string, string>();
  for (const file of config.fileNames) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const rel = relative(ROOT, file);
    for (const s of source.statements) {
      if (ts.isImportDeclaration(s) && !s.importClause && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text.startsWith(".")) {
        const target = relative(ROOT, resolve(dirname(file), s.moduleSpecifier.text.replace(/\.js$/, ".ts")));
        why.set(target, `is imported for effect by ${rel}`);
        why.set(rel, `imports ${target} for effect`);
      } else if (ts.isVariableStatement(s) ? runsCode(s, REGISTERS) : !ts.isImportDeclaration(s) && !ts.isExportDeclaration(s) && runsCode(s)) {
        why.set(rel, `runs \`${s.getText().split("\n")[0]!.slice(0, 60)}\` as it loads`);
      }
    }
  }
  // tsc writes src/x.ts to dist/src/x.js (and workers/, browser/, bench/ likewise). The field
  // covers the sources too: the package's own builds (tools/build-browser.ts, the Node workers'
  // bundle) and tests bundle them, and esbuild reads this package.json for them as well.
  return new Map([...why].flatMap(([src, reason]) => [[src, reason], [`dist/${src.replace(/\.ts$/, ".js")}`, reason]]));
}

/**
 * The bundles' files that matter: those holding a module above (esbuild's unminified output opens
 * each module with a `// src/….ts` line), and the shared chunks that other files import for effect
 * (its splitting writes `import "./chunk-….js"`).
 */
function effectBundleFiles(outdir: string, distDir: string, sources: Map<string, string>): Map<string, string> {
  const why = new Map<string, string>();
  for (const name of readdirSync(outdir).filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(join(outdir, name), "utf8");
    for (const m of text.matchAll(/^import\s*["']\.\/([^"']+\.js)["'];?$/gm)) why.set(`${distDir}/${m[1]}`, `is imported for effect by ${distDir}/${name}`);
    for (const m of text.matchAll(/^\/\/ ((?:src|workers|browser)\/\S+)\.ts$/gm)) {
      const reason = sources.get(`${m[1]}.ts`);
      if (reason) why.set(`${distDir}/${name}`, `holds ${m[1]}.ts, which ${reason}`);
    }
  }
  return why;
}

/**
 * How the three bundlers read a sideEffects pattern: relative to the package, a leading "./"
 * ignored, a pattern without "/" matched in any folder, `*` within one folder, `**` across them.
 */
function matches(pattern: string, path: string): boolean {
  let p = pattern.replace(/^\.\//, "");
  if (!p.includes("/")) p = `**/${p}`;
  const source = p.split(/(\*\*\/|\*)/).map((part) => (part === "**/" ? "(?:.*/)?" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))).join("");
  return new RegExp(`^${source}$`).test(path);
}

test("package.json's sideEffects names every module whose loading others rely on, and nothing else by name", async () => {
  const declared = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { sideEffects?: unknown }).sideEffects;
  // true (or no field) keeps every module, which is safe but lets bundlers drop none; false names none.
  assert.ok(declared === false || Array.isArray(declared), `sideEffects is the list of the files with effects: ${JSON.stringify(declared)}`);
  const patterns = declared === false ? [] : (declared as string[]);

  const sources = effectSources();
  // The audit found them: the platform installs and the modules that import them for effect.
  assert.ok(sources.has("dist/src/platform/browser-install.js") && sources.has("dist/src/browser.js"), `derived: ${[...sources.keys()].join(", ")}`);

  const browserDir = scratchDir("parzarr-side-effects-browser-");
  const workersDir = scratchDir("parzarr-side-effects-workers-");
  await Promise.all([buildBrowser(browserDir, { sourcemap: false }), bundleNodeWorkers(ROOT, workersDir)]);
  const required = new Map([
    ...sources,
    ...effectBundleFiles(browserDir, "dist/browser", sources),
    ...effectBundleFiles(workersDir, "dist/workers", sources),
  ]);

  const missing = [...required].filter(([file]) => !patterns.some((p) => matches(p, file)));
  assert.deepEqual(missing.map(([file, reason]) => `${file}: ${reason}`), [], "files with effects that sideEffects leaves out");
  // Every pattern names something: a stale one would keep a module for nothing.
  const stale = patterns.filter((p) => ![...required.keys()].some((file) => matches(p, file)));
  assert.deepEqual(stale, [], "sideEffects patterns that match no file with effects");
});
