/** `parzarr tree PATH`: the hierarchy, each array with its shape and data type. */
import { Group, type ZarrArray } from "../index.js";
import { flag, parse, parseTarget, requirePositionals } from "./args.js";
import { write, type Command } from "./command.js";
import { tuple } from "./format.js";
import { dataTypeLabel } from "../metadata/dtype-names.js";
import { baseName, openNode, walk } from "./nodes.js";

const HELP = `Usage: parzarr tree PATH[#inner/path] [--json]

Prints the hierarchy below a group, as zarr-python's tree() does: each array with its shape and
data type. Nodes parzarr cannot read yet are listed with the reason.

Options:
  --json      one JSON line per node: {"path", "kind", "shape", "dtype", "error"}
  -h, --help  show this help`;

export const treeCommand: Command = {
  name: "tree",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, { json: { type: "boolean" } });
    if (p.help) return write(io.stdout, HELP), 0;
    const [path] = requirePositionals(p, ["PATH"]);
    const target = parseTarget(path);
    const root = await openNode(target);
    const json = flag(p, "json");
    if (!(root instanceof Group)) {
      if (json) write(io.stdout, JSON.stringify({ path: root.path, kind: "array", shape: root.shape, dtype: typeName(root) }));
      else write(io.stdout, `${baseName(root.path)} ${tuple(root.shape)} ${typeName(root)}`);
      return 0;
    }
    const lines: string[] = [json ? JSON.stringify({ path: root.path, kind: "group" }) : root.name];
    for await (const e of walk(root)) {
      if (json) {
        if (e.kind === "array") lines.push(JSON.stringify({ path: e.path, kind: "array", shape: e.node.shape, dtype: typeName(e.node) }));
        else if (e.kind === "group") lines.push(JSON.stringify({ path: e.path, kind: "group" }));
        else lines.push(JSON.stringify({ path: e.path, kind: "unreadable", error: `${e.error.code}: ${e.error.message}` }));
        continue;
      }
      // The rails: a "│" under every ancestor that has later siblings.
      const rails = e.last.slice(0, -1).map((l) => (l ? "    " : " │  ")).join("");
      const branch = e.last[e.last.length - 1] ? " └── " : " ├── ";
      const name = baseName(e.path);
      const what =
        e.kind === "array" ? ` ${tuple(e.node.shape)} ${typeName(e.node)}` : e.kind === "error" ? ` (cannot read: ${e.error.message})` : "";
      lines.push(`${rails}${branch}${name}${what}`);
    }
    write(io.stdout, lines.join("\n"));
    return 0;
  },
};

/**
 * The type as each format's own tools print it: the v3 name, and for v2 what numpy's str() gives,
 * which is the same name for a plain number or bool in native (little-endian) order (`float32`
 * for `<f4`, as `arr.dtype` says) and the type string otherwise (`>f4`, `|S7`, `<M8[ns]`).
 */
function typeName(a: ZarrArray): string {
  return a.zarrFormat === 2 && !/^[<|][biufc]\d+$/.test(a.numpyDtype) ? a.numpyDtype : dataTypeLabel(a.dataType);
}
