#!/usr/bin/env node
/**
 * The `parzarr` command line. Each command is one entry in COMMANDS; this file only dispatches
 * and turns errors into messages and exit codes: 0 success, 1 a ZarrError or failed operation
 * (its code and message), 2 a usage error, 3 an unexpected failure (a bug: set PARZARR_DEBUG=1
 * for the stack).
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ZarrError } from "../errors.js";
import { CliError, UsageError } from "./args.js";
import { keepsAlive } from "./keeps-alive.js";
import type { CliIO, Command } from "./command.js";
import { endAsRerun, followParent, reexecWithHugePages } from "./hugepages.js";

/**
 * The commands, each loaded on first use: `parzarr --help` and one command's run load only what
 * that command needs (the library, zod, the bench code), which keeps start-up short.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "info", summary: "show an array's or group's metadata, sizes and attributes", load: async () => (await import("./info.js")).infoCommand },
  { name: "tree", summary: "print the hierarchy with each array's shape and data type", load: async () => (await import("./tree.js")).treeCommand },
  { name: "get", summary: "print or save a selection of an array's values", load: async () => (await import("./get.js")).getCommand },
  {
    name: "cp",
    summary: "copy, rechunk, recompress or convert arrays and hierarchies within a memory budget",
    load: async () => (await import("./cp.js")).cpCommand,
  },
  {
    name: "refs",
    summary: "write the kerchunk reference document (chunk byte ranges) of a NetCDF/HDF5 file",
    load: async () => (await import("./refs.js")).refsCommand,
  },
  {
    name: "worker",
    summary: "run the slab jobs of `cp --queue` from a Redis queue, on any number of machines",
    load: async () => (await import("./worker.js")).workerCommand,
  },
  {
    name: "view",
    summary: "open a browser page that shows the hierarchy and draws 2-d slices of arrays",
    load: async () => (await import("./view.js")).viewCommand,
  },
  { name: "consolidate", summary: "write consolidated metadata for a hierarchy", load: async () => (await import("./library-commands.js")).consolidateCommand },
  { name: "zom", summary: "print a hierarchy as a Zarr Object Model (ZEP 6) JSON document", load: async () => (await import("./library-commands.js")).zomCommand },
  {
    name: "bench",
    summary: "compare read/write speed with zarr-python and zarrita.js on generated data",
    load: async () => (await import("./library-commands.js")).benchCommand,
  },
];

function mainHelp(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Usage: parzarr COMMAND [options]",
    "",
    "Inspect, copy, rechunk, recompress and convert Zarr v2 and v3 stores.",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    "",
    "Paths are folders (data.zarr), zip files, http(s) URLs or s3://bucket/prefix (configured by",
    "AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); PATH#a/b names a node inside.",
    "Run `parzarr COMMAND --help` for a command's options.",
  ].join("\n");
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    io.stdout.write(`${mainHelp()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V") {
    io.stdout.write("parzarr 0.1.0\n");
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`parzarr: unknown command ${JSON.stringify(name)}\n\n${mainHelp()}\n`);
    return 2;
  }
  const command = await entry.load();
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      const usage = command.help.split("\n")[0];
      io.stderr.write(`parzarr ${command.name}: ${err.message}\n${usage}\n(see parzarr ${command.name} --help)\n`);
      return 2;
    }
    if (err instanceof ZarrError) {
      io.stderr.write(`parzarr ${command.name}: ${err.code}: ${err.message}\n`);
      return 1;
    }
    if (err instanceof CliError) {
      io.stderr.write(`parzarr ${command.name}: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    io.stderr.write(`parzarr ${command.name}: unexpected error: ${e.message}\n`);
    if (io.env.PARZARR_DEBUG === "1" && e.stack) io.stderr.write(`${e.stack}\n`);
    return 3;
  }
}

/** True when this file is the program (node main.js, the npm bin link, tsx), not an import. */
function isEntry(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

async function runEntry(): Promise<number> {
  // The re-run below is already running with huge pages: it only has to die with its parent.
  if (followParent()) return runMain();
  try {
    const rerun = await reexecWithHugePages((line) => {
      if (process.env.PARZARR_DEBUG === "1") process.stderr.write(`${line}\n`);
    });
    if (rerun !== null) return endAsRerun(rerun);
  } catch {
    // The re-run could not start (no execPath to spawn?): go on in this process, without huge pages.
  }
  return runMain();
}

function runMain(): Promise<number> {
  // A closed pipe (`parzarr get ... | head`) is not an error worth a stack trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
  });
  return main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
}

if (isEntry()) {
  // exitCode rather than exit(): pending stdout writes to a pipe are flushed first.
  process.exitCode = await runEntry();
  // Icechunk's WebAssembly build keeps the event loop alive once a repository's storage exists
  // (its callbacks' dispatchers never stop): leave once the output is flushed.
  if (keepsAlive()) {
    for (const s of [process.stdout, process.stderr]) await new Promise((done) => s.write("", done));
    process.exit();
  }
}
