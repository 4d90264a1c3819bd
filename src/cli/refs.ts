/** `parzarr refs FILE`: the kerchunk reference document of a NetCDF/HDF5 file, on stdout. */
import { writeFileSync } from "node:fs";
import { referencesFor } from "../archival/refs.js";
import { UsageError, flag, parse, requirePositionals, stringOpt } from "./args.js";
import { write, type Command } from "./command.js";

const HELP = `Usage: parzarr refs FILE [options] > FILE.refs.json

Writes the kerchunk reference document of a NetCDF-4/HDF5 or NetCDF-3 file: Zarr v2 metadata for
every group and variable, and each chunk key as [url, offset, length] in FILE, so Zarr readers
(kerchunk/fsspec, zarrita.js, parzarr's reference store) read FILE without copying it.
HDF5 chunks become their byte ranges with shuffle/deflate as numcodecs shuffle and zlib;
contiguous datasets are one chunk; compact datasets and variable-length strings are inlined;
NetCDF-3 record variables are one chunk per record. Other HDF5 filters (szip, fletcher32, ...)
and HDF5 1.10+ chunk indexes are refused (UNSUPPORTED).

Options:
  --url URL                the target written into each reference (default: FILE as given)
  --version 0|1            reference document version (default 1)
  -o, --output PATH        write the document to PATH instead of stdout
  --skip-unreferenceable   leave out (and list on stderr) variables that cannot be referenced
  -h, --help               show this help`;

export const refsCommand: Command = {
  name: "refs",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, {
      url: { type: "string" },
      version: { type: "string" },
      output: { type: "string", short: "o" },
      "skip-unreferenceable": { type: "boolean" },
    });
    if (p.help) return write(io.stdout, HELP), 0;
    const [file] = requirePositionals(p, ["FILE"]);
    const versionText = stringOpt(p, "version") ?? "1";
    if (versionText !== "0" && versionText !== "1") throw new UsageError(`--version must be 0 or 1, got ${JSON.stringify(versionText)}`);
    const { document, skipped } = await referencesFor(file, {
      url: stringOpt(p, "url"),
      version: Number(versionText) as 0 | 1,
      skipUnreferenceable: flag(p, "skip-unreferenceable"),
    });
    for (const s of skipped) io.stderr.write(`refs: skipping ${s.path}: ${s.reason}\n`);
    const text = JSON.stringify(document);
    const output = stringOpt(p, "output");
    if (output !== undefined) writeFileSync(output, text + "\n");
    else write(io.stdout, text);
    return 0;
  },
};
