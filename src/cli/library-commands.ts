/**
 * Thin commands over one library call each: `consolidate` (consolidated metadata), `zom` (ZEP 6
 * models) and `bench` (the worker-pool comparison in bench/compare/compare.ts, which the package
 * builds and ships for it).
 */
import { flag, intOpt, parse, parseShape, parseTarget, requirePositionals, stringOpt } from "./args.js";
import { writeFile } from "node:fs/promises";
import { consolidateMetadata, fromZarr } from "../index.js";
import { write, type Command } from "./command.js";
import { storeOf } from "./nodes.js";

const CONSOLIDATE_HELP = `Usage: parzarr consolidate PATH[#inner/path]

Writes consolidated metadata for the hierarchy at PATH: .zmetadata for Zarr v2, and the
consolidated_metadata field of the root zarr.json for v3, so readers (and HTTP stores, which cannot
list) open every node with one request.

Options:
  -h, --help  show this help`;

export const consolidateCommand: Command = {
  name: "consolidate",
  help: CONSOLIDATE_HELP,
  async run(argv, io) {
    const p = parse(argv, {});
    if (p.help) return write(io.stdout, CONSOLIDATE_HELP), 0;
    const [path] = requirePositionals(p, ["PATH"]);
    const target = parseTarget(path);
    await consolidateMetadata(storeOf(target, false), { path: target.path });
    write(io.stdout, `consolidated ${target.text}`);
    return 0;
  },
};

const ZOM_HELP = `Usage: parzarr zom PATH[#inner/path] [--out FILE] [--compact]

Prints the hierarchy at PATH as a Zarr Object Model (ZEP 6): every node's metadata and attributes
as one JSON document, which toZarr() turns back into the same hierarchy.

Options:
  -o, --out FILE  write the JSON to FILE instead of stdout
  --compact       one line instead of indented JSON
  -h, --help      show this help`;

export const zomCommand: Command = {
  name: "zom",
  help: ZOM_HELP,
  async run(argv, io) {
    const p = parse(argv, { out: { type: "string", short: "o" }, compact: { type: "boolean" } });
    if (p.help) return write(io.stdout, ZOM_HELP), 0;
    const [path] = requirePositionals(p, ["PATH"]);
    const target = parseTarget(path);
    const out = stringOpt(p, "out");
    const indent = flag(p, "compact") ? undefined : 2;
    const model = await fromZarr(storeOf(target, true), { path: target.path });
    const text = JSON.stringify(model, null, indent) + "\n";
    if (out !== undefined) await writeFile(out, text);
    else io.stdout.write(text);
    return 0;
  },
};

const BENCH_HELP = `Usage: parzarr bench [options]

Generates the worker-pool dataset (a float32 random walk, Zarr v2, chunks 1024x1024) and prints
whole-array read and write times of parzarr (threads 0, 1, 2 and the default pool) against
zarrita.js and zarr-python 2 (skipped with a message where /usr/bin/python3 has no zarr).

Options:
  --size N           side of the square array (default 8192)
  --chunks C         chunk side (default 1024)
  --repeat N         runs per measurement, the median is shown (default 3)
  --dir PATH         where the generated data goes (default .bench-data)
  --json             print the results as JSON
  -h, --help         show this help`;

export interface BenchArgs {
  size: number;
  chunks: number;
  repeat: number;
  dir: string;
  json: boolean;
}

export const benchCommand: Command = {
  name: "bench",
  help: BENCH_HELP,
  async run(argv, io) {
    const p = parse(argv, {
      size: { type: "string" },
      chunks: { type: "string" },
      repeat: { type: "string" },
      dir: { type: "string" },
      json: { type: "boolean" },
    });
    if (p.help) return write(io.stdout, BENCH_HELP), 0;
    requirePositionals(p, []);
    const chunks = stringOpt(p, "chunks");
    const args: BenchArgs = {
      size: intOpt(p, "size", 1) ?? 8192,
      chunks: chunks === undefined ? 1024 : parseShape(chunks, "chunks")[0],
      repeat: intOpt(p, "repeat", 1) ?? 3,
      dir: stringOpt(p, "dir") ?? ".bench-data",
      json: flag(p, "json"),
    };
    // The table streams line by line as measurements finish (a full run takes minutes); with
    // --json only the final result is printed.
    // The benchmark code (and zarrita's comparison) loads only when asked for.
    const { runCompare } = await import("../../bench/compare/compare.js");
    const result = await runCompare({
      rows: args.size,
      cols: args.size,
      chunk: args.chunks,
      repeats: args.repeat,
      dir: args.dir,
      log: args.json ? () => undefined : (line) => write(io.stdout, line),
    });
    // runCompare logs the table and the targets itself at the end.
    if (args.json) write(io.stdout, JSON.stringify(result, null, 2));
    return 0;
  },
};
