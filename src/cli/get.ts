/** `parzarr get PATH SELECTION`: prints values numpy-style, or writes them to .npy/.bin/.json. */
import { writeFile } from "node:fs/promises";
import { extname } from "node:path";
import type { NDArray, Scalar } from "../index.js";
import { CliError, UsageError, intOpt, parse, parseTarget, requirePositionals, stringOpt } from "./args.js";
import { write, type Command } from "./command.js";
import { formatArray, formatScalar, nestedJson, valueJson } from "./format.js";
import { npyHeader, rawBytes } from "./npy.js";
import { openArrayTarget } from "./nodes.js";
import { readPreview } from "./preview.js";
import type { Component, DataType } from "../metadata/dtype.js";
import { allocElements, isTypedArray } from "../metadata/elements.js";
import { scalarToComponents } from "../metadata/scalars.js";

/** Items printed at each end of a summarised axis, as numpy's edgeitems. */
const EDGE = 3;

const HELP = `Usage: parzarr get PATH[#inner/path] [SELECTION] [--out FILE] [--threads N]

Reads a selection of an array and prints it as numpy prints arrays (the middle of big results is
shown as ...), or writes it to a file.

SELECTION is numpy's basic indexing: "0:10, ::2", "5, ...", "-1" (default: everything).

Options:
  --out FILE       write the values instead of printing them; the ending picks the format:
                     .npy   numpy's format (np.load reads it), little-endian
                     .bin   raw little-endian values in C order
                     .json  {"shape", "dtype", "data"} with nested lists; NaN and
                            infinities as strings, bytes as base64 (as info shows
                            a bytes fill value), a missing optional value as null
  --threshold N    print every element up to N elements (default 1000)
  --threads N      worker threads (0: this thread)
  -h, --help       show this help`;

function asNDArray(v: NDArray | Scalar): NDArray | null {
  return v !== null && typeof v === "object" && "shape" in v ? v : null;
}

export const getCommand: Command = {
  name: "get",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, { out: { type: "string", short: "o" }, threshold: { type: "string" }, threads: { type: "string" } });
    if (p.help) return write(io.stdout, HELP), 0;
    const [path, selection] = requirePositionals(p, ["PATH"], ["SELECTION"]);
    const out = stringOpt(p, "out");
    const format = out === undefined ? "print" : extname(out).toLowerCase();
    if (out !== undefined && ![".npy", ".bin", ".json"].includes(format)) {
      throw new UsageError(`--out ${out}: the file must end in .npy, .bin or .json`);
    }
    const threshold = intOpt(p, "threshold", 0) ?? 1000;
    const threads = intOpt(p, "threads", 0);
    const arr = await openArrayTarget(parseTarget(path));
    const op = threads === undefined ? {} : { threads };
    if (format === "print") {
      // A big selection: read only the corners that will be printed.
      const preview = await readPreview(arr, selection ?? null, threshold, EDGE, op);
      if (preview) {
        write(io.stdout, formatArray(preview.array, arr.dtype, { threshold, edgeItems: EDGE }, preview.summarised));
        return 0;
      }
    }
    const result = await arr.get(selection ?? null, op);
    const nd = asNDArray(result);
    if (format === "print") {
      write(io.stdout, nd ? formatArray(nd, arr.dtype, { threshold, edgeItems: EDGE }) : formatScalar(result as Scalar, arr.dtype));
      return 0;
    }
    // A scalar result (every axis an integer) is written as a 0-d array.
    const value: NDArray = nd ?? { data: rawScalar(result as Scalar, arr.dataType), shape: [], stride: [] };
    let parts: Uint8Array[];
    if (format === ".json") {
      const doc = { shape: value.shape, dtype: arr.dtype, data: nd ? nestedJson(nd, arr.dataType, arr.zarrFormat) : valueJson(result as Scalar, arr.dataType, arr.zarrFormat) };
      parts = [new TextEncoder().encode(`${JSON.stringify(doc)}\n`)];
    } else {
      const body = rawBytes(value.data, arr.dtype);
      parts = format === ".npy" ? [npyHeader(arr.dtype, value.shape), body] : [body];
    }
    try {
      await writeFile(out!, Buffer.concat(parts));
    } catch (err) {
      throw new CliError(`cannot write ${out}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return 0;
  },
};

/** A scalar as memory holds one element of its type (complex as re, im), for writing a 0-d result. */
function rawScalar(v: Scalar, dt: DataType): NDArray["data"] {
  const data = allocElements(dt, 1);
  // Strings and byte strings stay JS values: rawBytes refuses them with a clear message.
  if (!isTypedArray(data)) return [v] as string[];
  scalarToComponents(v, dt).forEach((c, k) => ((data as unknown as Component[])[k] = c));
  return data;
}
