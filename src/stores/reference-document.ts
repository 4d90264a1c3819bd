/**
 * Kerchunk reference documents (https://fsspec.github.io/kerchunk/spec.html) into one map of
 * store key -> reference. Version 0 is the map itself; version 1 has `refs` (whose target URLs
 * may hold `{{template}}`s), `templates`, and `gen`: references generated over the product of
 * some dimensions. Every problem is an InvalidReferenceError naming the key it is in.
 */
import { InvalidReferenceError } from "../errors.js";
import { isJsonObject, type JsonValue } from "../metadata/json.js";
import { isValidKey } from "./keys.js";
import { renderInteger, renderTemplate, type TemplateContext, type TemplateValue } from "./reference-template.js";

/** What one key of the store holds. Target URLs are as the document wrote them (maybe relative). */
export type Reference =
  /** Inline data: text (`.zarray` JSON, say) or `base64:` bytes, both kept as bytes. */
  | { kind: "inline"; bytes: Uint8Array }
  /** `[url]`: the whole target file. */
  | { kind: "whole"; url: string }
  /** `[url, offset, length]`: bytes of a target file. */
  | { kind: "range"; url: string; offset: number; length: number };

/** A `gen` that would make more references than this is refused rather than run out of memory. */
export const MAX_GENERATED_REFERENCES = 50_000_000;

const encoder = new TextEncoder();

function fail(key: string, why: string): never {
  throw new InvalidReferenceError(key === "" ? `reference document: ${why}` : `reference "${key}": ${why}`, key);
}

/** The references of a parsed document (`source` names it in errors about the whole). */
export function parseReferences(doc: unknown, source: string): Map<string, Reference> {
  if (!isJsonObject(doc)) fail("", `${source} is not a JSON object`);
  if (!("version" in doc)) {
    // Version 0: the whole object is the map. A "refs" object here means a forgotten version.
    if (isJsonObject(doc.refs) && !("version" in doc)) {
      fail("refs", `${source} has "refs" but no "version": a version 1 document says "version": 1`);
    }
    const refs = new Map<string, Reference>();
    for (const [key, value] of Object.entries(doc)) refs.set(checkKey(key), plainReference(key, value, null));
    return refs;
  }
  if (doc.version !== 1) fail("version", `${source} has version ${JSON.stringify(doc.version)}: only versions 0 (no "version") and 1 are defined`);
  const templates = new Map<string, string>();
  const tpl = doc.templates ?? {};
  if (!isJsonObject(tpl)) fail("templates", `"templates" must be an object of strings`);
  for (const [name, t] of Object.entries(tpl)) {
    if (typeof t !== "string") fail("templates", `template "${name}" must be a string, not ${typeOf(t)}`);
    templates.set(name, t);
  }
  const refs = new Map<string, Reference>();
  const rawRefs = doc.refs ?? {};
  if (!isJsonObject(rawRefs)) fail("refs", `"refs" must be an object`);
  const ctx: TemplateContext = { values: new Map(), templates };
  for (const [key, value] of Object.entries(rawRefs)) refs.set(checkKey(key), plainReference(key, value, ctx));
  const gen = doc.gen ?? [];
  if (!Array.isArray(gen)) fail("gen", `"gen" must be a list`);
  gen.forEach((g, i) => generate(g, i, templates, refs));
  return refs;
}

function checkKey(key: string): string {
  if (!isValidKey(key)) fail(key, "not a valid store key (empty, absolute, or with empty, `.` or `..` segments)");
  return key;
}

function typeOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "a list" : typeof v;
}

/** A `refs` entry: a string, `[url]` or `[url, offset, length]`; version 1 renders the URL. */
function plainReference(key: string, value: JsonValue, ctx: TemplateContext | null): Reference {
  if (typeof value === "string") return { kind: "inline", bytes: inlineBytes(key, value) };
  if (!Array.isArray(value) || (value.length !== 1 && value.length !== 3)) {
    fail(key, `must be a string, [url] or [url, offset, length], not ${typeOf(value)}${Array.isArray(value) ? ` of ${value.length}` : ""}`);
  }
  const raw = value[0];
  if (raw === null || raw === undefined) {
    fail(key, "has no target URL (null): parzarr does not take a default target for references");
  }
  if (typeof raw !== "string" || raw === "") fail(key, `its target URL must be a non-empty string, not ${JSON.stringify(raw)}`);
  const url = ctx ? renderTemplate(raw, ctx, key) : raw;
  if (value.length === 1) return { kind: "whole", url };
  return { kind: "range", url, offset: count(key, value[1], "offset"), length: count(key, value[2], "length") };
}

function count(key: string, v: JsonValue | undefined, field: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) fail(key, `its ${field} must be a non-negative integer, not ${JSON.stringify(v)}`);
  return v;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Text as UTF-8 bytes, or the bytes of `base64:` data (strictly: padded, standard alphabet). */
function inlineBytes(key: string, text: string): Uint8Array {
  if (!text.startsWith("base64:")) return encoder.encode(text);
  const b64 = text.slice(7);
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) fail(key, `its base64: data is not valid base64 (${b64.length} characters)`);
  let bin: string;
  try {
    bin = atob(b64);
  } catch (err) {
    fail(key, `its base64: data does not decode: ${(err as Error).message}`);
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** One `gen` entry: a reference for every combination of its dimensions' values. */
function generate(g: JsonValue, index: number, templates: ReadonlyMap<string, string>, refs: Map<string, Reference>): void {
  const where = `gen[${index}]`;
  if (!isJsonObject(g)) fail(where, "must be an object with key, url and dimensions");
  const text = (field: string, required: boolean): string | undefined => {
    const v = g[field];
    if (v === undefined && !required) return undefined;
    // Offsets and lengths may be plain numbers too: they render to themselves.
    if (typeof v === "number" && (field === "offset" || field === "length")) return String(v);
    if (typeof v !== "string") fail(where, `"${field}" must be a string (a template), not ${typeOf(v)}`);
    return v;
  };
  const keyT = text("key", true)!;
  const urlT = text("url", true)!;
  const offT = text("offset", false);
  const lenT = text("length", false);
  if ((offT === undefined) !== (lenT === undefined)) fail(where, `"offset" and "length" go together: it has only "${offT === undefined ? "length" : "offset"}"`);
  const dims = g.dimensions;
  if (!isJsonObject(dims) || Object.keys(dims).length === 0) fail(where, `"dimensions" must be an object of one or more dimensions`);
  const names = Object.keys(dims);
  const axes = names.map((name) => dimensionValues(where, name, dims[name]!));
  const total = axes.reduce((n, a) => n * a.length, 1);
  if (total > MAX_GENERATED_REFERENCES) fail(where, `would make ${total} references, more than the ${MAX_GENERATED_REFERENCES} parzarr holds`);
  if (total === 0) return;
  const values = new Map<string, TemplateValue>();
  const ctx: TemplateContext = { values, templates };
  const at = axes.map(() => 0);
  for (let n = 0; n < total; n++) {
    names.forEach((name, d) => values.set(name, axes[d]![at[d]!]!));
    const key = renderTemplate(keyT, ctx, where);
    checkKey(key);
    const url = renderTemplate(urlT, ctx, key);
    if (url === "") fail(key, `${where}'s url renders empty`);
    if (offT === undefined) refs.set(key, { kind: "whole", url });
    else refs.set(key, { kind: "range", url, offset: renderInteger(offT, ctx, key, "offset"), length: renderInteger(lenT!, ctx, key, "length") });
    // The next combination, the last dimension fastest (as itertools.product).
    for (let d = axes.length - 1; d >= 0; d--) {
      if (++at[d]! < axes[d]!.length) break;
      at[d] = 0;
    }
  }
}

/** A dimension's values: `{start?, stop, step?}` as Python's range, or a list of integers. */
function dimensionValues(where: string, name: string, spec: JsonValue): number[] {
  const int = (v: JsonValue | undefined, field: string, dflt?: number): number => {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "number" || !Number.isSafeInteger(v)) fail(where, `dimension "${name}": ${field} must be an integer, not ${JSON.stringify(v)}`);
    return v;
  };
  if (Array.isArray(spec)) return spec.map((v, i) => int(v, `[${i}]`));
  if (!isJsonObject(spec)) fail(where, `dimension "${name}" must be {start, stop, step} or a list of integers, not ${typeOf(spec)}`);
  const start = int(spec.start, "start", 0);
  const stop = int(spec.stop, "stop");
  const step = int(spec.step, "step", 1);
  if (step === 0) fail(where, `dimension "${name}": step cannot be 0`);
  const n = Math.max(0, Math.ceil((stop - start) / step));
  if (n > MAX_GENERATED_REFERENCES) fail(where, `dimension "${name}" has ${n} values, more than the ${MAX_GENERATED_REFERENCES} parzarr holds`);
  return Array.from({ length: n }, (_, i) => start + i * step);
}
