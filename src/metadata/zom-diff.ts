/**
 * Differences between two Zarr Object Models, node by node: what `want` (the first model) says
 * and what `got` (the second) has. Attributes are compared key by key so a difference names the
 * attribute; other fields (a codec list, a chunk grid) are compared whole.
 */
import type { JsonValue } from "./json.js";
import { type NodeSpec, isGroupSpec } from "./zom-types.js";

/** One difference between two models, as diffZarr reports it. */
export interface ZomDifference {
  /** The node: "" for the root, else `a/b`. */
  path: string;
  /**
   * The field that differs (`shape`, `attributes.units`), or `node` when the node is missing on
   * one side or is of another kind or version there (then want/got say `array (v2)`, `group (v3)`).
   */
  field: string;
  /** The first model's value; undefined where it has none. */
  want: JsonValue | undefined;
  /** The second model's value; undefined where it has none. */
  got: JsonValue | undefined;
}

/** JSON equality: object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    // NaN is not a JSON value, but a model built by hand may hold one.
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => k in bo && jsonEqual(ao[k], bo[k]));
}

function describe(node: NodeSpec): string {
  return `${isGroupSpec(node) ? "group" : "array"} (v${node.zarr_format})`;
}

const join = (path: string, name: string) => (path === "" ? name : `${path}/${name}`);
const sortedUnion = (a: object, b: object) => [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();

function diffNode(want: NodeSpec, got: NodeSpec, path: string, out: ZomDifference[]): void {
  if (isGroupSpec(want) !== isGroupSpec(got) || want.zarr_format !== got.zarr_format) {
    out.push({ path, field: "node", want: describe(want), got: describe(got) });
    return;
  }
  const w = want as unknown as Record<string, JsonValue | undefined>;
  const g = got as unknown as Record<string, JsonValue | undefined>;
  for (const key of sortedUnion(w, g)) {
    if (key === "members" || key === "attributes") continue;
    if (!jsonEqual(w[key], g[key])) out.push({ path, field: key, want: w[key], got: g[key] });
  }
  const wa = (w.attributes ?? {}) as Record<string, JsonValue | undefined>;
  const ga = (g.attributes ?? {}) as Record<string, JsonValue | undefined>;
  for (const key of sortedUnion(wa, ga)) {
    if (!jsonEqual(wa[key], ga[key])) out.push({ path, field: `attributes.${key}`, want: wa[key], got: ga[key] });
  }
  if (!isGroupSpec(want) || !isGroupSpec(got)) return;
  const wm = want.members as Record<string, NodeSpec>;
  const gm = got.members as Record<string, NodeSpec>;
  for (const name of sortedUnion(wm, gm)) {
    const child = join(path, name);
    const a = wm[name];
    const b = gm[name];
    if (a && b) diffNode(a, b, child, out);
    else out.push({ path: child, field: "node", want: a && describe(a), got: b && describe(b) });
  }
}

/** Every difference between two models, parents before children, fields in name order. */
export function diffSpecs(want: NodeSpec, got: NodeSpec): ZomDifference[] {
  const out: ZomDifference[] = [];
  diffNode(want, got, "", out);
  return out;
}
