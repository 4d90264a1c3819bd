/**
 * The viewer page (`parzarr view`, or viewer.html hosted beside any data): the hierarchy, each
 * array's info, and any 2-d slice of an array as an image (colormap, contrast limits, sliders over
 * the other dimensions; an optional array's missing elements in their own colour), or as a table
 * of cells for strings and bytes, read on a pool of Web Workers with progress as chunks arrive.
 *
 * URL parameters: `store` (the data's URL, relative to the page or absolute), `tree` (optional:
 * a JSON listing of the hierarchy, as `parzarr view` serves; without it a group's children come
 * from its consolidated metadata), `array` (a path to show first), `cmap`, `lo`, `hi`.
 * When a slice is drawn, `document.body.dataset.state` becomes "rendered" (tests wait for it).
 */
import { Group, UnopenableNode, WorkerPool, ZarrArray, open, slice, type NDArray, type SelectionItem } from "../browser.js";
import { COLORMAPS, autoLimits, cellText, elementAt, isTextual, sliceNumbers, toRgba, type ColormapName } from "./render.js";
import type { ListedNode as TreeNode } from "./listing.js";

/** Pixels per side at most: larger slices are read with a step (every k-th element). */
const MAX_SIDE = 2048;
/** Cells per side of a table of strings or bytes: the slice's first ones. */
const TEXT_SIDE = 100;

const params = new URLSearchParams(location.search);
const storeUrl = new URL(params.get("store") ?? "./", location.href).href.replace(/\/$/, "");
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const status = (text: string): void => void ($("status").textContent = text);

const pool = new WorkerPool({
  threads: Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2)),
  workerUrl: new URL("./parzarr-worker.js", import.meta.url),
});

let current: ZarrArray | null = null;
let values: Float64Array = new Float64Array(0);
let missing: Uint8Array | null = null;
let view = { rows: 0, cols: 0, rowStride: 0, colStride: 0 };
let reading = 0;

async function listTree(): Promise<TreeNode[]> {
  const treeUrl = params.get("tree");
  if (treeUrl) return ((await (await fetch(treeUrl)).json()) as { nodes: TreeNode[] }).nodes;
  const root = await open(storeUrl, { mode: "r" });
  if (root instanceof ZarrArray) return [{ path: "", kind: "array", shape: root.shape, dtype: root.dtype }];
  const nodes: TreeNode[] = [{ path: "", kind: "group" }];
  // Over HTTP a group's children are known only from consolidated metadata.
  const walk = async (g: Group): Promise<void> => {
    let members: [string, ZarrArray | Group | UnopenableNode][];
    try {
      members = [...(await g.members())];
    } catch {
      return;
    }
    for (const [, node] of members.sort(([a], [b]) => a.localeCompare(b))) {
      if (node instanceof UnopenableNode) continue; // nothing in it can be shown
      if (node instanceof ZarrArray) nodes.push({ path: node.path, kind: "array", shape: node.shape, dtype: node.dtype });
      else {
        nodes.push({ path: node.path, kind: "group" });
        await walk(node);
      }
    }
  };
  await walk(root);
  return nodes;
}

function drawTree(nodes: TreeNode[]): void {
  const nav = $("tree");
  nav.replaceChildren();
  for (const n of nodes) {
    const div = document.createElement("div");
    const depth = n.path === "" ? 0 : n.path.split("/").length;
    div.style.paddingLeft = `${depth * 12}px`;
    div.className = n.kind;
    const name = n.path === "" ? "/" : n.path.slice(n.path.lastIndexOf("/") + 1);
    div.textContent = n.kind === "array" ? `${name} [${n.shape?.join(", ")}] ${n.dtype}` : n.kind === "unreadable" ? `${name} (${n.error})` : n.path === "" ? "/" : `${name}/`;
    div.dataset.path = n.path;
    if (n.kind === "array") {
      div.addEventListener("click", () => {
        nav.querySelectorAll(".selected").forEach((el) => el.classList.remove("selected"));
        div.classList.add("selected");
        void showArray(n);
      });
    }
    nav.append(div);
  }
}

function option(select: HTMLSelectElement, value: string, label: string): void {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  select.append(o);
}

async function showArray(node: TreeNode): Promise<void> {
  const a = await open(storeUrl, { path: node.path, mode: "r" });
  if (!(a instanceof ZarrArray)) return;
  current = a;
  $("info").textContent = JSON.stringify(
    node.info ?? { path: a.path, shape: a.shape, chunks: a.chunks, shards: a.shards, chunkShapes: a.chunkShapes, dtype: a.dtype, fillValue: a.fillValue, codecs: a.codecs, attributes: a.attrs },
    (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
    1,
  );
  const ydim = $<HTMLSelectElement>("ydim");
  const xdim = $<HTMLSelectElement>("xdim");
  ydim.replaceChildren();
  xdim.replaceChildren();
  a.shape.forEach((n, d) => {
    option(ydim, String(d), `dim ${d} (${n})`);
    option(xdim, String(d), `dim ${d} (${n})`);
  });
  ydim.value = String(Math.max(0, a.ndim - 2));
  xdim.value = String(a.ndim - 1);
  drawSliders();
  $<HTMLInputElement>("lo").value = params.get("lo") ?? "";
  $<HTMLInputElement>("hi").value = params.get("hi") ?? "";
  await readSlice();
}

function drawSliders(): void {
  const box = $("sliders");
  box.replaceChildren();
  if (!current) return;
  const y = Number($<HTMLSelectElement>("ydim").value);
  const x = Number($<HTMLSelectElement>("xdim").value);
  current.shape.forEach((n, d) => {
    if (d === y || d === x) return;
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "range";
    input.min = "0";
    input.max = String(n - 1);
    input.value = "0";
    input.dataset.dim = String(d);
    const shown = document.createElement("span");
    shown.textContent = ` dim ${d}: 0`;
    input.addEventListener("input", () => {
      shown.textContent = ` dim ${d}: ${input.value}`;
      void readSlice();
    });
    label.append(input, shown);
    box.append(label);
  });
}

async function readSlice(): Promise<void> {
  const a = current;
  if (!a) return;
  const y = Number($<HTMLSelectElement>("ydim").value);
  const x = Number($<HTMLSelectElement>("xdim").value);
  const ticket = ++reading;
  const index = new Map<number, number>();
  $("sliders")
    .querySelectorAll<HTMLInputElement>("input")
    .forEach((input) => index.set(Number(input.dataset.dim), Number(input.value)));
  const text = isTextual(a.dataType);
  const steps = a.shape.map((n) => Math.max(1, Math.ceil(n / MAX_SIDE)));
  const shown = (n: number, d: number): SelectionItem => (text ? slice(0, Math.min(n, TEXT_SIDE)) : slice(0, n, steps[d]));
  const selection: SelectionItem[] = a.shape.map((n, d) => (d === y || d === x ? shown(n, d) : index.get(d) ?? 0));
  const progress = $<HTMLProgressElement>("progress");
  progress.value = 0;
  document.body.dataset.state = "reading";
  status(`reading ${a.path || "/"} …`);
  const t0 = performance.now();
  let r: NDArray;
  try {
    r = (await a.get(selection, {
      pool,
      threads: pool.threads,
      onProgress: (done, total) => {
        if (ticket === reading) progress.value = done / total;
      },
    })) as NDArray;
  } catch (err) {
    status(`cannot read: ${err instanceof Error ? err.message : String(err)}`);
    document.body.dataset.state = "error";
    return;
  }
  if (ticket !== reading) return; // a newer slider position won
  const kept = a.shape.map((_, d) => d).filter((d) => d === y || d === x);
  const [rowsDim, colsDim] = y === x ? [y, y] : [y, x];
  const shape = r.shape;
  const dimShape = (d: number): number => (kept.length === 1 ? shape[0] : shape[kept.indexOf(d)]);
  const strideOf = (d: number): number => (kept.length === 1 ? 1 : r.stride[kept.indexOf(d)]);
  view = {
    rows: y === x ? 1 : dimShape(rowsDim),
    cols: dimShape(colsDim),
    rowStride: y === x ? 0 : strideOf(rowsDim),
    colStride: strideOf(colsDim),
  };
  const read = `${a.path || "/"}: ${view.rows} x ${view.cols} read in ${(performance.now() - t0).toFixed(0)} ms on ${pool.threads} workers`;
  if (text) {
    status(read);
    drawCells(r.data as ArrayLike<unknown>, a);
    return;
  }
  ({ values, missing } = sliceNumbers(r.data as ArrayLike<unknown>, shape.reduce((m, n) => m * n, 1), a.dataType));
  const nMissing = missing ? missing.reduce((m, b) => m + b, 0) : 0;
  status(nMissing ? `${read}; ${nMissing} missing (red)` : read);
  render();
}

/** A slice of strings or bytes as a table; a missing element reads "null", marked as missing. */
function drawCells(data: ArrayLike<unknown>, a: ZarrArray): void {
  const { rows, cols, rowStride, colStride } = view;
  const table = $<HTMLTableElement>("cells");
  table.replaceChildren();
  for (let r = 0; r < rows; r++) {
    const tr = table.insertRow();
    for (let c = 0; c < cols; c++) {
      const v = elementAt(data, r * rowStride + c * colStride, a.dataType);
      const td = tr.insertCell();
      td.textContent = v === null ? "null" : cellText(v);
      if (v === null) td.className = "missing";
    }
  }
  table.hidden = false;
  $("canvas").hidden = true;
  document.body.dataset.state = "rendered";
}

function render(): void {
  if (current && isTextual(current.dataType)) return; // a table of cells: no colours to change
  const lo = $<HTMLInputElement>("lo");
  const hi = $<HTMLInputElement>("hi");
  if (lo.value === "" || hi.value === "") {
    const [l, h] = autoLimits(values);
    if (lo.value === "") lo.value = String(l);
    if (hi.value === "") hi.value = String(h);
  }
  const cmap = $<HTMLSelectElement>("cmap").value as ColormapName;
  const { rows, cols, rowStride, colStride } = view;
  const canvas = $<HTMLCanvasElement>("canvas");
  $("cells").hidden = true;
  canvas.hidden = false;
  canvas.width = cols;
  canvas.height = rows;
  // Small slices are shown larger; pixels stay square and sharp (image-rendering: pixelated).
  const zoom = Math.max(1, Math.floor(512 / Math.max(rows, cols)));
  canvas.style.width = `${cols * zoom}px`;
  canvas.style.height = `${rows * zoom}px`;
  const rgba = toRgba(values, rows, cols, rowStride, colStride, Number(lo.value), Number(hi.value), cmap, missing);
  canvas.getContext("2d")!.putImageData(new ImageData(rgba, cols, rows), 0, 0);
  document.body.dataset.state = "rendered";
}

async function start(): Promise<void> {
  const cmap = $<HTMLSelectElement>("cmap");
  for (const c of COLORMAPS) option(cmap, c, c);
  cmap.value = params.get("cmap") ?? "gray";
  cmap.addEventListener("change", render);
  for (const id of ["lo", "hi"]) $(id).addEventListener("change", render);
  $("auto").addEventListener("click", () => {
    $<HTMLInputElement>("lo").value = "";
    $<HTMLInputElement>("hi").value = "";
    render();
  });
  for (const id of ["ydim", "xdim"]) {
    $(id).addEventListener("change", () => {
      drawSliders();
      void readSlice();
    });
  }
  const nodes = await listTree();
  drawTree(nodes);
  status(`${storeUrl}: ${nodes.filter((n) => n.kind === "array").length} arrays${crossOriginIsolated ? "" : " (page not cross-origin isolated: workers send chunks back)"}`);
  const first = nodes.find((n) => n.kind === "array" && n.path === (params.get("array") ?? n.path));
  if (first) {
    document.querySelector<HTMLElement>(`#tree div[data-path="${CSS.escape(first.path)}"]`)?.classList.add("selected");
    await showArray(first);
  }
}

start().catch((err: unknown) => {
  status(`error: ${err instanceof Error ? err.message : String(err)}`);
  document.body.dataset.state = "error";
});
