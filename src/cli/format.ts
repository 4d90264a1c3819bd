/**
 * Text forms of values for the terminal: sizes, durations, scalars, and n-d arrays printed the
 * way numpy prints them (aligned columns, `...` past a threshold).
 */
import type { CodecConfig, NDArray, Scalar } from "../index.js";
import { unwrapPresent, wrapPresent, type DataType } from "../metadata/dtype.js";
import { fillValueToJson } from "../metadata/fill-value-json.js";
import { plainJson } from "../metadata/json-write.js";

export { formatBytes, tuple } from "../format.js";

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "--:--";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (x: number) => String(x).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${pad(m)}:${pad(s % 60)}`;
}

/**
 * A float as numpy prints array elements: the shortest text that reads back as the same value of
 * its own width (float32 values are not shown with float64 digits), at most 8 decimals, and a
 * trailing "." for whole numbers.
 */
export function pyFloat(x: number, single = false): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  let text = String(x);
  if (single) {
    for (let p = 1; p <= 9; p++) {
      const t = x.toPrecision(p);
      if (Math.fround(Number(t)) === x) {
        text = String(Number(t));
        break;
      }
    }
  }
  if (/e/.test(text)) return text;
  const dot = text.indexOf(".");
  if (dot === -1) return `${text}.`;
  if (text.length - dot - 1 > 8) text = Number(text).toFixed(8).replace(/0+$/, "");
  return text;
}

export function formatScalar(v: Scalar, dtype = ""): string {
  const single = dtype === "float32" || dtype === "complex64" || dtype === "float16";
  if (typeof v === "number" && dtype.startsWith("float")) return pyFloat(v, single);
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return v.toString();
  if (v === null) return "None";
  // A vlen-array element (a typed array of numbers other than bytes).
  if (ArrayBuffer.isView(v) && !(v instanceof Uint8Array)) return `[${Array.from(v as ArrayLike<number | bigint>, (x) => formatScalar(x, dtype)).join(" ")}]`;
  if (Array.isArray(v) && v.length === 1) return `[${formatScalar(v[0], dtype)}]`;
  if (Array.isArray(v)) {
    const [re, im] = v as [number, number];
    const sign = im < 0 || Object.is(im, -0) ? "-" : "+";
    return `${pyFloat(re, single)}${sign}${pyFloat(Math.abs(im), single)}j`;
  }
  return String(v);
}

/** A scalar as JSON can hold it: big integers beyond 2^53 and non-finite floats as strings. */
function scalarJson(v: Scalar | null): unknown {
  if (v === null) return null;
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map((x) => scalarJson(x));
  if (typeof v === "number" && !Number.isFinite(v)) return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  return v;
}

/**
 * An element as JSON, in the form zarr.json gives a fill value of its type (fillValueToJson: NaN
 * and infinities as strings, bytes as base64, ...), except that an optional's present value is
 * not wrapped at its own level and a vlen-array element is a typed array of its numbers.
 */
export function valueJson(v: Scalar, dt: DataType, zarrFormat: 2 | 3): unknown {
  if (v === null) return null;
  if (dt.kind === "optional") return wrapPresent(valueJson(unwrapPresent(v, dt)!, dt.inner, zarrFormat) as Scalar, dt);
  if (dt.kind === "vlen_array") return Array.from(v as unknown as ArrayLike<number | bigint>, (x) => scalarJson(x));
  return plainJson(fillValueToJson(v, dt, zarrFormat));
}

export function describeCodec(c: CodecConfig): string {
  const conf = c.configuration ?? {};
  const parts = Object.entries(conf)
    .filter(([k, v]) => !(c.name === "sharding_indexed" && (k === "codecs" || k === "index_codecs")) && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  if (c.name === "sharding_indexed") {
    const inner = Array.isArray(conf.codecs) ? (conf.codecs as unknown as CodecConfig[]).map(describeCodec).join(", ") : "";
    parts.push(`codecs=[${inner}]`);
  }
  return parts.length ? `${c.name}(${parts.join(", ")})` : c.name;
}

/** Element `i` of a C-order array as a scalar of the named type. */
export function elementAt(arr: NDArray, dtype: string, i: number): Scalar {
  if (dtype.startsWith("complex")) return [arr.data[2 * i] as number, arr.data[2 * i + 1] as number];
  if (dtype === "bool") return arr.data[i] !== 0;
  return arr.data[i] as number | bigint;
}

export interface PrintOptions {
  /** Past this many elements, print only `edgeItems` at each end of every axis. */
  threshold: number;
  edgeItems: number;
}

/**
 * numpy's `print(a)` layout: nested brackets, values right-aligned to one width, rows wrapped at
 * 75 columns, and `...` for the middle of long axes when the array is large.
 */
export function formatArray(
  arr: NDArray,
  dtype: string,
  opts: PrintOptions = { threshold: 1000, edgeItems: 3 },
  /** Axes already cut to their two edges (a preview): "..." goes between the halves. */
  cut?: boolean[],
): string {
  const { shape } = arr;
  const size = shape.reduce((a, b) => a * b, 1);
  const summarise = size > opts.threshold;
  const keptAt = (dim: number): (number | null)[] => {
    const n = shape[dim];
    if (cut) {
      if (!cut[dim]) return [...Array(n).keys()];
      const h = n / 2;
      return [...[...Array(h).keys()], null, ...[...Array(h).keys()].map((k) => h + k)];
    }
    if (!summarise || n <= 2 * opts.edgeItems) return [...Array(n).keys()];
    const e = opts.edgeItems;
    return [...[...Array(e).keys()], null, ...[...Array(e).keys()].map((k) => n - e + k)];
  };
  const strides = arr.stride;
  const cells: string[] = [];
  const fmt = (i: number) => formatScalar(elementAt(arr, dtype, i), dtype);
  // First pass: the width every printed element gets.
  const visit = (dim: number, offset: number): void => {
    if (dim === shape.length) {
      cells.push(fmt(offset));
      return;
    }
    for (const k of keptAt(dim)) if (k !== null) visit(dim + 1, offset + k * strides[dim]);
  };
  visit(0, 0);
  const width = cells.reduce((w, c) => Math.max(w, c.length), 0);
  if (shape.length === 0) return fmt(0);
  if (size === 0) return `[]`;
  const render = (dim: number, offset: number, indent: string): string => {
    const idx = keptAt(dim);
    if (dim === shape.length - 1) {
      const items = idx.map((k) => (k === null ? "..." : fmt(offset + k * strides[dim]).padStart(width)));
      const lines: string[] = [];
      let line = "";
      for (const item of items) {
        if (line !== "" && indent.length + 1 + line.length + 1 + item.length > 75) {
          lines.push(line);
          line = item;
        } else line = line === "" ? item : `${line} ${item}`;
      }
      lines.push(line);
      return `[${lines.join(`\n${indent} `)}]`;
    }
    const sep = `\n${"\n".repeat(shape.length - dim - 2)}${indent} `;
    const parts = idx.map((k) => (k === null ? "..." : render(dim + 1, offset + k * strides[dim], `${indent} `)));
    return `[${parts.join(sep)}]`;
  };
  return render(0, 0, "");
}

/** Nested lists of `valueJson`s for JSON output. */
export function nestedJson(arr: NDArray, dt: DataType, zarrFormat: 2 | 3): unknown {
  const build = (dim: number, offset: number): unknown => {
    if (dim === arr.shape.length) return valueJson(elementAt(arr, dt.name, offset), dt, zarrFormat);
    return Array.from({ length: arr.shape[dim] }, (_, k) => build(dim + 1, offset + k * arr.stride[dim]));
  };
  return build(0, 0);
}
