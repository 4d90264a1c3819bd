/**
 * Argument parsing shared by every command: node:util's parseArgs with usage errors that carry
 * exit code 2, and readers for the value forms the commands take (sizes, shapes, targets).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A mistake in how the command was called: exit code 2, and the command's usage line. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A failure that is neither a usage error nor a ZarrError (a file we cannot write, say). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Marks a negative number given as a positional while parseArgs runs (it never starts with "-"). */
const NEGATIVE = "\u0000negative:";

/**
 * Arguments such as `-1` or `-3:` are negative numbers (a selection), not options: no command
 * has a digit as an option letter. Those that are not the value of a string option are hidden
 * from parseArgs, which would report "Unknown option '-1'", and put back among the positionals.
 */
function protectNegatives(argv: string[], options: OptionSpec): string[] {
  const takesValue = (arg: string) => {
    if (arg.startsWith("--")) return !arg.includes("=") && options[arg.slice(2)]?.type === "string";
    return /^-[a-zA-Z]$/.test(arg) && Object.values(options).some((o) => o.short === arg[1] && o.type === "string");
  };
  return argv.map((arg, i) => (/^-[\d.]/.test(arg) && !(i > 0 && takesValue(argv[i - 1])) ? NEGATIVE + arg : arg));
}

/** parseArgs, strict, with `--help`/`-h` added; node's own errors become usage errors. */
export function parse(argv: string[], options: OptionSpec): Parsed & { help: boolean } {
  try {
    const parsed = parseArgs({
      args: protectNegatives(argv, options),
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    const values = parsed.values;
    const positionals = parsed.positionals.map((a) => (a.startsWith(NEGATIVE) ? a.slice(NEGATIVE.length) : a));
    const flat: Record<string, string | boolean | undefined> = {};
    for (const [k, v] of Object.entries(values)) flat[k] = Array.isArray(v) ? v.join(",") : v;
    return { values: flat, positionals, help: flat.help === true };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message.replace(/\. To specify a positional.*$/s, "") : String(err));
  }
}

export function requirePositionals(p: Parsed, names: string[], optional: string[] = []): string[] {
  if (p.positionals.length < names.length) throw new UsageError(`missing ${names.slice(p.positionals.length).join(" and ")}`);
  if (p.positionals.length > names.length + optional.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(p.positionals[names.length + optional.length])}`);
  }
  return p.positionals;
}

export function stringOpt(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === "string" ? v : undefined;
}

export function flag(p: Parsed, name: string): boolean {
  return p.values[name] === true;
}

/** A positive integer option (`--threads 4`); 0 allowed when `min` is 0. */
export function intOpt(p: Parsed, name: string, min: number): number | undefined {
  const v = stringOpt(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** `512,512` or `512x512` into [512, 512]. */
export function parseShape(text: string, name: string): number[] {
  const parts = text.split(/[,x]/).map((s) => s.trim());
  if (parts.length === 0 || parts.some((s) => !/^\d+$/.test(s) || Number(s) < 1)) {
    throw new UsageError(`--${name} must be positive integers separated by commas (e.g. 512,512), got ${JSON.stringify(text)}`);
  }
  return parts.map(Number);
}

/**
 * A chunk grid option: `512,512`; a dimension given as edges joined by `:` (`10:20:30,64`) makes
 * the grid rectilinear; or the metadata's own `chunk_shapes` JSON (`[[[10,3],5],64]`, runs too).
 * The edges' values are checked where the array's shape is known.
 */
export function parseGrid(text: string, name: string): (number | number[])[] {
  const t = text.trim();
  if (t.startsWith("[")) {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      v = undefined;
    }
    if (!Array.isArray(v)) throw new UsageError(`--${name} is not a JSON list: ${JSON.stringify(text)}`);
    return v as (number | number[])[];
  }
  return t.split(/[,x]/).map((dim) => {
    const edges = dim.split(":").map((s) => s.trim());
    if (edges.some((s) => !/^\d+$/.test(s) || Number(s) < 1)) {
      throw new UsageError(`--${name} must be positive integers separated by commas, edges of one dimension joined by ":" (e.g. 512,512 or 10:20:30,64), got ${JSON.stringify(text)}`);
    }
    return edges.length === 1 ? Number(edges[0]) : edges.map(Number);
  });
}

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 2 ** 10,
  m: 1e6,
  mb: 1e6,
  mib: 2 ** 20,
  g: 1e9,
  gb: 1e9,
  gib: 2 ** 30,
  t: 1e12,
  tb: 1e12,
  tib: 2 ** 40,
};

/** `512MiB`, `1.5GB`, `800000` into bytes. */
export function parseBytes(text: string, name: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new UsageError(`--${name} must be a size such as 512MiB, 2GiB or 100000000, got ${JSON.stringify(text)}`);
  }
  const n = Math.floor(Number(m[1]) * unit);
  if (n < 1) throw new UsageError(`--${name} must be at least one byte`);
  return n;
}

/** A store location with an optional node inside it: `data.zarr#a/b` (the last `#` splits). */
export interface Target {
  store: string;
  path: string;
  /** The text as given, for messages. */
  text: string;
}

export function parseTarget(text: string): Target {
  if (text.trim() === "") throw new UsageError("an empty path was given");
  const at = text.lastIndexOf("#");
  if (at === -1) return { store: text, path: "", text };
  return { store: text.slice(0, at), path: text.slice(at + 1).replace(/^\/+|\/+$/g, ""), text };
}
