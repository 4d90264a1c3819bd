/**
 * Issues of a failed ZOM validation, per node and field. Apart from the schemas themselves, so
 * that reporting needs only zod's types: the library entry can then load zod on first use.
 */
import type { z } from "zod";

/** One problem a schema found: which node, which field, what is wrong. */
export interface ZomIssue {
  /** The node: "" for the root, else `a/b`. */
  path: string;
  /** The field inside the node's model, e.g. `attributes._ARRAY_DIMENSIONS` or `shape[1]`. */
  field: string;
  /** What is wrong with it. */
  message: string;
}

type RawIssue = z.core.$ZodIssue;

/**
 * A union of array and group schemas fails with one issue list per branch. The branch the node
 * was meant to match is the one with the fewest issues in the node's own fields (an array checked
 * as a group misses `members` and has a dozen unknown fields; a group's real problems sit deeper,
 * in its members), so that branch's issues are the ones to report.
 */
function flatten(issue: RawIssue, prefix: PropertyKey[]): { path: PropertyKey[]; message: string }[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branches = issue.errors.map((branch) => branch.flatMap((i) => flatten(i, path)));
    const shallow = (b: { path: PropertyKey[] }[]) => b.filter((i) => i.path.length <= path.length + 1).length;
    return branches.reduce((best, b) => {
      const d = shallow(b) - shallow(best);
      return d < 0 || (d === 0 && b.length < best.length) ? b : best;
    });
  }
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => ({ path: [...path, k], message: "is not a field of this node" }));
  }
  return [{ path, message: issue.message }];
}

function toZomIssue({ path, message }: { path: PropertyKey[]; message: string }): ZomIssue {
  const node: string[] = [];
  let i = 0;
  while (path[i] === "members" && i + 1 < path.length) {
    node.push(String(path[i + 1]));
    i += 2;
  }
  let field = "";
  for (const seg of path.slice(i)) {
    field += typeof seg === "number" ? `[${seg}]` : field === "" ? String(seg) : `.${String(seg)}`;
  }
  return { path: node.join("/"), field, message };
}

/** A zod error's issues, one per node and field. */
export function zomIssues(error: z.ZodError): ZomIssue[] {
  return error.issues.flatMap((i) => flatten(i as RawIssue, [])).map(toZomIssue);
}

/** One issue as a line: `"a/b": attributes._ARRAY_DIMENSIONS: is missing`. */
export function formatZomIssue(issue: ZomIssue): string {
  const where = issue.path === "" ? "the root" : `"${issue.path}"`;
  return issue.field === "" ? `${where}: ${issue.message}` : `${where}: ${issue.field}: ${issue.message}`;
}
