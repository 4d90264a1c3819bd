/**
 * `parzarr view PATH|URL`: starts a local server with cross-origin isolation (COOP/COEP) for the
 * viewer page and, for a local PATH, the data itself and a listing of its hierarchy, then opens
 * the page. The page reads on Web Workers in the browser (src/viewer/main.ts).
 */
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Group } from "../index.js";
import { CliError, flag, intOpt, parse, parseTarget, requirePositionals, stringOpt } from "./args.js";
import { write, type Command } from "./command.js";
import { arrayInfo } from "./info.js";
import { dataTypeLabel } from "../metadata/dtype-names.js";
import { openNode, walk } from "./nodes.js";
import { startStaticServer } from "./static-server.js";
import type { ListedNode } from "../viewer/listing.js";

const HELP = `Usage: parzarr view PATH|URL[#inner/path] [--port N] [--host H] [--no-open]

Starts a local web server (cross-origin isolated, so the page's Web Workers share memory) and
opens a page that shows the hierarchy, each array's info, and any 2-d slice of an array as an
image: colormap, contrast limits, sliders over the other dimensions, read on Web Workers with
progress as chunks arrive. PATH is a folder served by this server; a URL is read by the page
directly (its server must allow this origin: CORS). Stop with Ctrl-C.

The page is also a static file: copy viewer.html, viewer.js and every parzarr*.js of dist/browser
(parzarr.js imports the parzarr-<hash>.js files beside it) beside your data and open
viewer.html?store=data.zarr on any static server.

Options:
  --port N    port to listen on (default: any free port)
  --host H    address to listen on (default 127.0.0.1)
  --no-open   print the page's URL only; do not open a browser
  -h, --help  show this help`;

/** The built page: dist/browser beside the package, or (running from the sources) built now. */
async function viewerAssets(): Promise<string> {
  const beside = fileURLToPath(new URL("../../browser/", import.meta.url));
  if (existsSync(join(beside, "viewer.html"))) return beside;
  const out = await mkdtemp(join(tmpdir(), "parzarr-viewer-"));
  // Only reached from a source checkout, where esbuild (a devDependency) is installed.
  const tools = "../../tools/build-browser.js";
  const { buildBrowser } = (await import(tools)) as { buildBrowser(out: string, o: { minify: boolean }): Promise<unknown> };
  await buildBrowser(out, { minify: true });
  return out;
}

/** The hierarchy below the target, with each array's info as `parzarr info --json` gives it. */
async function listing(text: string): Promise<ListedNode[]> {
  const root = await openNode(parseTarget(text));
  if (!(root instanceof Group)) return [{ path: root.path, kind: "array", shape: root.shape, dtype: dataTypeLabel(root.dataType), info: await arrayInfo(root) }];
  const nodes: ListedNode[] = [{ path: root.path, kind: "group" }];
  for await (const e of walk(root)) {
    if (e.kind === "array") nodes.push({ path: e.path, kind: "array", shape: e.node.shape, dtype: dataTypeLabel(e.node.dataType), info: await arrayInfo(e.node) });
    else if (e.kind === "group") nodes.push({ path: e.path, kind: "group" });
    else nodes.push({ path: e.path, kind: "unreadable", error: `${e.error.code}: ${e.error.message}` });
  }
  return nodes;
}

function openBrowser(url: string): void {
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  const child = spawn(cmd, [url], { detached: true, stdio: "ignore" });
  child.on("error", () => undefined); // no opener: the printed URL is enough
  child.unref();
}

export const viewCommand: Command = {
  name: "view",
  help: HELP,
  async run(argv, io) {
    const p = parse(argv, { port: { type: "string" }, host: { type: "string" }, "no-open": { type: "boolean" } });
    if (p.help) return write(io.stdout, HELP), 0;
    const [text] = requirePositionals(p, ["PATH|URL"]);
    const target = parseTarget(text);
    const remote = /^https?:\/\//i.test(target.store);
    if (!remote && !(existsSync(target.store) && statSync(target.store).isDirectory())) {
      throw new CliError(`${target.store} is not a folder (the viewer serves folders and reads http(s) URLs)`, 1);
    }
    const nodes = remote ? null : await listing(text);
    const assets = await viewerAssets();
    const server = await startStaticServer({
      mounts: { "/": assets, ...(remote ? {} : { "/data/": resolve(target.store) }) },
      documents: nodes ? { "/_parzarr/tree.json": { type: "application/json", body: JSON.stringify({ nodes }) } } : {},
      isolated: () => true,
      host: stringOpt(p, "host"),
      port: intOpt(p, "port", 0),
    });
    const query = new URLSearchParams({ store: remote ? target.store : "/data/" });
    if (nodes) query.set("tree", "/_parzarr/tree.json");
    if (target.path) query.set("array", target.path);
    const url = `${server.origin}/viewer.html?${query}`;
    write(io.stdout, `parzarr view: ${url}\n(Ctrl-C stops the server)`);
    if (!flag(p, "no-open")) openBrowser(url);
    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        done();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    await server.close();
    return 0;
  },
};
