/**
 * The shape of the hierarchy's modules: runtime imports run one way (nodes.ts above array.ts and
 * group.ts, info.ts below the handles), and the copy engine does not reach into the CLI. Type-only
 * imports are erased by the compiler, so they are not edges here (as madge's skipTypeImports).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The relative modules `file` imports at runtime (static imports and re-exports). */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const s of source.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(s)) {
      const clause = s.importClause;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        (clause.isTypeOnly || (!clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      if (!onlyTypes) spec = s.moduleSpecifier;
    } else if (ts.isExportDeclaration(s) && s.moduleSpecifier) {
      const c = s.exportClause;
      const onlyTypes = s.isTypeOnly || (c !== undefined && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) spec = s.moduleSpecifier;
    }
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith(".")) {
      const target = resolve(dirname(file), spec.text.replace(/\.js$/, ".ts"));
      if (existsSync(target)) out.push(target);
    }
  }
  return out;
}

/** The modules reachable from `start` through runtime imports, `start` included. */
function reachable(start: string, graph = new Map<string, string[]>()): Set<string> {
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length) {
    const file = todo.pop()!;
    if (!graph.has(file)) graph.set(file, runtimeImports(file));
    for (const next of graph.get(file)!) {
      if (!seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return seen;
}

const rel = (f: string) => relative(root, f);
const hierarchy = ["array.ts", "group.ts", "info.ts", "nodes.ts", "open.ts", "walk.ts", "consolidated.ts", "zom.ts"].map((f) => join(root, "src/hierarchy", f));

test("no hierarchy module imports itself back at runtime", () => {
  const graph = new Map<string, string[]>();
  const cycles: string[] = [];
  for (const file of hierarchy) {
    // A module is on a cycle when one of its imports leads back to it.
    for (const next of runtimeImports(file)) {
      if (reachable(next, graph).has(file)) cycles.push(`${rel(file)} > ${rel(next)}`);
    }
  }
  assert.deepEqual(cycles, []);
});

test("info.ts formats nodes without importing their handles at runtime", () => {
  const deps = [...reachable(join(root, "src/hierarchy/info.ts"))].map(rel);
  for (const handle of ["src/hierarchy/array.ts", "src/hierarchy/group.ts", "src/hierarchy/nodes.ts"]) {
    assert.ok(!deps.includes(handle), `info.ts reaches ${handle}`);
  }
});

test("the copy engine takes its formatting from a neutral module, not the CLI", () => {
  const deps = [...reachable(join(root, "src/copy/engine.ts"))].map(rel);
  assert.deepEqual(
    deps.filter((d) => d.startsWith("src/cli/") || d === "src/index.ts" || d === "src/api.ts"),
    [],
  );
});
