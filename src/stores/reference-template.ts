/**
 * The part of Jinja that kerchunk reference documents (version 1) use: `{{ expression }}` inside
 * a string, where the expression is a name (a template or a `gen` dimension), an integer or quoted
 * string literal, or arithmetic over them (`+ - * / // %`, parentheses, unary minus), as in
 * `"{{ (i + 1) * 1000 }}"`. Filters, tests, statements and attribute access are refused rather
 * than guessed at, and so is an undefined name (Jinja would render it as "", silently giving a
 * wrong URL). Numbers render as Python does: `/` gives a float, written `5.0` when whole.
 */
import { InvalidReferenceError } from "../errors.js";

export type TemplateValue = string | number;

/** What names mean while rendering: a dimension's value, or a template (rendered on use). */
export interface TemplateContext {
  values: ReadonlyMap<string, TemplateValue>;
  /** Templates of the document; one containing `{{` is rendered in the same context when used. */
  templates: ReadonlyMap<string, string>;
}

/** Templates that name each other deeper than this are taken to be a cycle. */
const MAX_DEPTH = 16;

/** Renders a string; `key` (the reference being made) goes into every error. */
export function renderTemplate(template: string, ctx: TemplateContext, key: string, depth = 0): string {
  if (!template.includes("{{")) return template;
  if (depth > MAX_DEPTH) throw bad(key, template, `templates refer to each other more than ${MAX_DEPTH} deep (a cycle?)`);
  let out = "";
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf("{{", at);
    if (open === -1) break;
    const close = template.indexOf("}}", open + 2);
    if (close === -1) throw bad(key, template, "a {{ without its }}");
    out += template.slice(at, open);
    const value = new Parser(template.slice(open + 2, close), (name) => lookup(name, ctx, key, template, depth)).parseAll(key, template);
    out += show(value);
    at = close + 2;
  }
  return out + template.slice(at);
}

/** A rendered template that must be a non-negative integer (a `gen` offset or length). */
export function renderInteger(template: string, ctx: TemplateContext, key: string, field: string): number {
  const text = renderTemplate(template, ctx, key).trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new InvalidReferenceError(`reference "${key}": ${field} ${JSON.stringify(template)} renders as ${JSON.stringify(text)}, not a non-negative integer`, key);
  }
  return n;
}

function bad(key: string, template: string, why: string): InvalidReferenceError {
  return new InvalidReferenceError(`reference "${key}": cannot render template ${JSON.stringify(template)}: ${why}`, key);
}

function lookup(name: string, ctx: TemplateContext, key: string, template: string, depth: number): TemplateValue {
  const v = ctx.values.get(name);
  if (v !== undefined) return v;
  const t = ctx.templates.get(name);
  if (t !== undefined) return renderTemplate(t, ctx, key, depth + 1);
  throw bad(key, template, `"${name}" is neither a template nor a dimension`);
}

/** Python's str() of an int (floats arrive as text: see Parser.parseAll). */
function show(v: TemplateValue): string {
  return typeof v === "string" ? v : String(v);
}

/**
 * Numbers made by true division are floats in Python even when whole (`4 / 2` is `2.0`), so
 * floats travel boxed while evaluating, and render as Python writes them.
 */
class Float {
  constructor(readonly v: number) {}
}

type Val = string | number | Float;

function num(v: Val): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof Float) return v.v;
  return undefined;
}

/** A recursive-descent parser that evaluates as it goes (expressions are tiny). */
class Parser {
  private i = 0;
  private readonly tokens: string[];

  constructor(
    private readonly text: string,
    private readonly resolve: (name: string) => TemplateValue,
  ) {
    this.tokens = [];
    const re = /\s*(\d+|[A-Za-z_][A-Za-z0-9_]*|\/\/|"[^"]*"|'[^']*'|[-+*/%()]|\S)/gy;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) this.tokens.push(m[1]!);
  }

  parseAll(key: string, template: string): TemplateValue {
    if (this.tokens.length === 0) throw bad(key, template, "an empty {{ }}");
    let v: Val;
    try {
      v = this.expr();
    } catch (err) {
      if (err instanceof InvalidReferenceError) throw err;
      throw bad(key, template, (err as Error).message);
    }
    if (this.i < this.tokens.length) {
      throw bad(key, template, `unexpected ${JSON.stringify(this.tokens[this.i])} in {{${this.text}}} (only names, literals and + - * / // % are understood)`);
    }
    if (!(v instanceof Float)) return v;
    if (Number.isNaN(v.v)) return "nan";
    if (!Number.isFinite(v.v)) return v.v > 0 ? "inf" : "-inf";
    return Number.isInteger(v.v) ? `${v.v}.0` : String(v.v);
  }

  private peek(): string | undefined {
    return this.tokens[this.i];
  }

  private expr(): Val {
    let v = this.term();
    for (let op = this.peek(); op === "+" || op === "-"; op = this.peek()) {
      this.i++;
      v = arith(op, v, this.term());
    }
    return v;
  }

  private term(): Val {
    let v = this.unary();
    for (let op = this.peek(); op === "*" || op === "/" || op === "//" || op === "%"; op = this.peek()) {
      this.i++;
      v = arith(op, v, this.unary());
    }
    return v;
  }

  private unary(): Val {
    const op = this.peek();
    if (op === "-" || op === "+") {
      this.i++;
      return arith(op, 0, this.unary());
    }
    return this.primary();
  }

  private primary(): Val {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new Error("the expression ends too soon");
    if (t === "(") {
      const v = this.expr();
      if (this.tokens[this.i++] !== ")") throw new Error("a ( without its )");
      return v;
    }
    if (/^\d+$/.test(t)) return Number(t);
    if (/^(["']).*\1$/s.test(t)) return t.slice(1, -1);
    if (/^[A-Za-z_]/.test(t)) return this.resolve(t);
    throw new Error(`unexpected ${JSON.stringify(t)}`);
  }
}

function arith(op: string, a: Val, b: Val): Val {
  if (typeof a === "string" || typeof b === "string") {
    if (op === "+" && typeof a === "string" && typeof b === "string") return a + b;
    throw new Error(`cannot apply ${op} to ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
  }
  const x = num(a)!;
  const y = num(b)!;
  const float = a instanceof Float || b instanceof Float;
  const wrap = (v: number): Val => (float ? new Float(v) : v);
  switch (op) {
    case "+":
      return wrap(x + y);
    case "-":
      return wrap(x - y);
    case "*":
      return wrap(x * y);
    case "/":
      if (y === 0) throw new Error("division by zero");
      return new Float(x / y);
    case "//":
      if (y === 0) throw new Error("division by zero");
      return wrap(Math.floor(x / y));
    case "%":
      if (y === 0) throw new Error("division by zero");
      // Python's modulo takes the divisor's sign.
      return wrap(((x % y) + y) % y);
  }
  throw new Error(`unknown operator ${op}`);
}
