/** `parzarr info PATH[#inner]`: what zarr-python's `.info` shows, for an array or a group. */
import { Group, type JsonObject, type ZarrArray } from "../index.js";
import { flag, parse, parseTarget, requirePositionals, type Target } from "./args.js";
import { write, type CliIO, type Command } from "./command.js";
import { describeCodec, formatBytes, tuple } from "./format.js";
import { layoutOf } from "../hierarchy/layout.js";
import { openNode, walk } from "./nodes.js";
import { gridRows, logicalBytesText, orNull, type ArrayInfo } from "../hierarchy/info.js";
import { arrayInfo } from "../hierarchy/array-info.js";

// One function gives the library's `arr.info()` and this command's array facts.
export { arrayInfo, type ArrayInfo };

const HELP = `Usage: parzarr info PATH[#inner/path] [--json]

Shows an array's shape, chunks, shards (when sharded), data type, codecs, fill value, bytes
(logical and stored), compression ratio, chunks initialised and attributes; for a group, its
members and attributes.

PATH is a folder (data.zarr), a zip file or an http(s) URL; #inner/path names a node inside it.

Options:
  --json      print one JSON object instead of a table
  -h, --help  show this help`;

export interface GroupInfo {
  path: string;
  nodeType: "group";
  zarrFormat: 2 | 3;
  arrays: number;
  groups: number;
  unreadable: number;
  attributes: unknown;
}

export async function groupInfo(group: Group): Promise<GroupInfo> {
  let arrays = 0;
  let groups = 0;
  let unreadable = 0;
  // Consolidated metadata lists the hierarchy where the store cannot (plain HTTP).
  const count = async () => {
    for await (const e of walk(group)) {
      if (e.kind === "array") arrays++;
      else if (e.kind === "group") groups++;
      else unreadable++;
    }
    return true;
  };
  const counted = group.consolidated ? await count() : await orNull(group.store, count);
  return {
    path: group.name,
    nodeType: "group",
    zarrFormat: group.zarrFormat,
    arrays: counted ? arrays : -1,
    groups: counted ? groups : -1,
    unreadable,
    attributes: group.attrs,
  };
}

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)} : ${v}`).join("\n");
}

function withSize(n: number): string {
  return n < 1024 ? `${n}` : `${n} (${formatBytes(n)})`;
}

export function formatArrayInfo(info: ArrayInfo, arr: ZarrArray): string {
  const layout = layoutOf(arr);
  const rows: [string, string][] = [
    ["Name", info.path],
    ["Type", `array (Zarr v${info.zarrFormat})`],
    ["Data type", info.zarrFormat === 2 ? `${info.dtype} (${info.numpyDtype})` : info.dtype],
    ["Shape", tuple(info.shape)],
    ...gridRows(info),
  ];
  if (info.order) rows.push(["Order", info.order]);
  const v2 = arr.metadata.v2;
  if (v2) {
    // A v2 array is described as its .zarray says (zarr-python's info), not as the v3 chain.
    rows.push(["Compressor", v2.compressor ? describeV2(v2.compressor) : "None"]);
    rows.push(["Filters", v2.filters?.length ? v2.filters.map(describeV2).join(", ") : "None"]);
  } else {
    rows.push(["Codecs", layout.codecs.map(describeCodec).join(", ")]);
  }
  if (info.shards) rows.push(["Shard codecs", arr.codecs.map((c) => c.name).join(", ")]);
  rows.push(["Fill value", JSON.stringify(info.fillValue)]);
  rows.push(["No. bytes", logicalBytesText(info)]);
  rows.push(["No. bytes stored", info.nbytesStored === null ? "unknown (the store cannot list)" : withSize(info.nbytesStored)]);
  rows.push(["Storage ratio", info.compressionRatio === null ? "-" : info.compressionRatio.toFixed(1)]);
  const what = info.shards ? "Shards initialized" : "Chunks initialized";
  rows.push([what, info.chunksInitialized === null ? `?/${info.chunksTotal}` : `${info.chunksInitialized}/${info.chunksTotal}`]);
  if (Object.keys(arr.attrs).length > 0) rows.push(["Attributes", JSON.stringify(info.attributes)]);
  if (arr.metadata.dimensionNames) rows.push(["Dimension names", JSON.stringify(arr.metadata.dimensionNames)]);
  return table(rows);
}

/** A v2 compressor or filter with its settings in the order of its .zarray: `blosc(blocksize=0, clevel=5, ...)`. */
function describeV2(c: JsonObject): string {
  const { id, ...rest } = c;
  const parts = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  return `${String(id)}(${parts.join(", ")})`;
}

function formatGroupInfo(info: GroupInfo): string {
  const rows: [string, string][] = [
    ["Name", info.path],
    ["Type", `group (Zarr v${info.zarrFormat})`],
    ["Arrays (all levels)", info.arrays < 0 ? "unknown (the store cannot list)" : String(info.arrays)],
    ["Groups (all levels)", info.groups < 0 ? "unknown (the store cannot list)" : String(info.groups)],
  ];
  if (info.unreadable > 0) rows.push(["Unreadable", `${info.unreadable} (see parzarr tree)`]);
  if (Object.keys(info.attributes as object).length > 0) rows.push(["Attributes", JSON.stringify(info.attributes)]);
  return table(rows);
}

export async function runInfo(target: Target, json: boolean, io: CliIO): Promise<void> {
  const node = await openNode(target);
  if (node instanceof Group) {
    const info = await groupInfo(node);
    write(io.stdout, json ? JSON.stringify(info, null, 2) : formatGroupInfo(info));
    return;
  }
  const info = await arrayInfo(node);
  write(io.stdout, json ? JSON.stringify(info, null, 2) : formatArrayInfo(info, node));
}

export const infoCommand: Command = {
  name: "info",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, { json: { type: "boolean" } });
    if (p.help) return write(io.stdout, HELP), 0;
    const [path] = requirePositionals(p, ["PATH"]);
    await runInfo(parseTarget(path), flag(p, "json"), io);
    return 0;
  },
};
