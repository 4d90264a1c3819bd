/**
 * Runs `code` as an ES module in a fresh Node (with tsx) and names what it resolved: a resolve hook
 * in the child writes the first group of `pattern` for each module URL it resolves. The hook writes
 * with writeSync on fd 2: on Node 22+ hooks run on their own thread, whose process.stderr is
 * forwarded to the main thread and was lost when the child exited first (a flaky missing "zod").
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const ROOT = new URL("../../", import.meta.url).pathname;

export function resolvedInChild(code: string, pattern: RegExp): { stdout: string; resolved: Set<string> } {
  const hook = `import { writeSync } from "node:fs";
  export async function resolve(s, c, next) {
    const r = await next(s, c);
    const m = r.url.match(${pattern.toString()});
    if (m) writeSync(2, "RESOLVED " + m[1] + "\\n");
    return r;
  }`;
  const register = `import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return { stdout: r.stdout.trim(), resolved: new Set([...r.stderr.matchAll(/^RESOLVED (\S+)$/gm)].map((m) => m[1]!)) };
}
