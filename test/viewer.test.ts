/**
 * The viewer: its colour mapping in Node, then `parzarr view DIR` for real: the command starts its
 * server, headless Chromium opens the page it prints, and the canvas holds the expected pixels at
 * probe points of a known array, for two positions of the slider over the third dimension and two
 * colormaps. A screenshot is kept in test-artifacts/viewer.png.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { createArray, createGroup, slice } from "../src/index.js";
import { MISSING_RGBA, autoLimits, cellText, colormapLut, elementAt, isTextual, levelOf, sliceNumbers, toRgba } from "../src/viewer/render.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import { chromiumSkip, launchChromium } from "./helpers/browser.js";
import { scratchDir } from "./helpers/paths.js";

test("levels: lo maps to 0, hi to 255, clamped; NaN is transparent; flat limits do not divide by zero", () => {
  assert.equal(levelOf(10, 10, 20), 0);
  assert.equal(levelOf(20, 10, 20), 255);
  assert.equal(levelOf(15, 10, 20), 128);
  assert.equal(levelOf(-5, 10, 20), 0);
  assert.equal(levelOf(99, 10, 20), 255);
  assert.equal(levelOf(NaN, 0, 1), -1);
  assert.equal(levelOf(3, 3, 3), 255);
  assert.deepEqual(autoLimits([NaN, 4, -2, Infinity, 7]), [-2, 7]);
  assert.deepEqual(autoLimits([NaN]), [0, 1]);
  // Row 0 = [0, 1], row 1 = [NaN, 0.5], read through strides (column-major here).
  const px = toRgba([0, NaN, 1, 0.5], 2, 2, 1, 2, 0, 1, "gray");
  assert.deepEqual(Array.from(px), [0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 0, 128, 128, 128, 255]);
  const viridis = colormapLut("viridis");
  assert.deepEqual(Array.from(viridis.subarray(0, 3)), [68, 1, 84]);
  assert.deepEqual(Array.from(viridis.subarray(765, 768)), [253, 231, 37]);
});

test("missing elements: NaN and marked in numbers, drawn in their own colour; cells of strings and bytes", () => {
  const nested = parseDataType({ name: "optional", configuration: { name: "optional", configuration: { name: "int16", configuration: {} } } });
  const { values, missing } = sliceNumbers([[4], null, [null], [7]], 4, nested);
  assert.deepEqual([Array.from(values), Array.from(missing!)], [[4, NaN, NaN, 7], [0, 1, 1, 0]]);
  assert.equal(sliceNumbers(Float32Array.of(1, 2), 2, parseDataType("float32")).missing, null);
  const px = toRgba(values, 2, 2, 2, 1, 4, 7, "gray", missing);
  assert.deepEqual(Array.from(px), [0, 0, 0, 255, ...MISSING_RGBA, ...MISSING_RGBA, 255, 255, 255, 255]);
  const optString = parseDataType({ name: "optional", configuration: { name: "string", configuration: {} } });
  assert.deepEqual([isTextual(optString), isTextual(nested), isTextual(parseDataType("bytes"))], [true, false, true]);
  assert.deepEqual([elementAt(["a", null], 0, optString), elementAt(["a", null], 1, optString)], ["a", null]);
  assert.deepEqual([cellText("hé"), cellText(Uint8Array.of(0, 255)), cellText({ a: 1n })], ["hé", "00 ff", '{"a":"1"}']);
});

const skip = chromiumSkip();
const SHAPE = [3, 40, 60] as const;
const value = (z: number, r: number, c: number): number => z * 1000 + r * 60 + c;
const LO = 0;
const HI = 4400;
/** The optional int16 array "opt" (4 x 5): every third element missing. */
const OPT_VALUES = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? null : i));

describe("parzarr view in headless Chromium", { skip }, () => {
  let browser: Browser;
  let child: ChildProcess;
  let pageUrl = "";

  before(async () => {
    const dir = scratchDir();
    const root = join(dir, "data.zarr");
    await createGroup(root);
    const img = await createArray(root, { path: "img", shape: [...SHAPE], chunks: [1, 16, 16], dtype: "float32" });
    const data = new Float32Array(SHAPE[0] * SHAPE[1] * SHAPE[2]);
    for (let z = 0; z < SHAPE[0]; z++) for (let r = 0; r < SHAPE[1]; r++) for (let c = 0; c < SHAPE[2]; c++) data[(z * SHAPE[1] + r) * SHAPE[2] + c] = value(z, r, c);
    await img.set(null, { data, shape: [...SHAPE] }, { threads: 0 });
    // A rectilinear grid: edges 7 then three of 11 down, 5, 25, 30 across.
    const uneven = await createArray(root, { path: "uneven", shape: [40, 60], chunks: [[7, [11, 3]], [5, 25, 30]], dtype: "float32" });
    await uneven.set(null, { data: data.subarray(0, 2400), shape: [40, 60] }, { threads: 0 });
    // Optional arrays: numbers with missing elements, and strings.
    const opt = await createArray(root, { path: "opt", shape: [4, 5], chunks: [2, 2], dtype: { name: "optional", configuration: { name: "int16", configuration: {} } } });
    await opt.set(null, OPT_VALUES as never, { threads: 0 });
    const optstr = await createArray(root, { path: "optstr", shape: [2, 3], chunks: [1, 2], dtype: { name: "optional", configuration: { name: "string", configuration: {} } } });
    await optstr.set(null, ["a", null, "hé", null, "", "z"], { threads: 0 });
    const line = await createArray(root, { path: "sub/line", shape: [50], chunks: [10], dtype: "int16", zarrFormat: 2 });
    await line.set([slice(0, 50)], { data: Int16Array.from({ length: 50 }, (_, i) => i), shape: [50] }, { threads: 0 });
    const main = new URL("../src/cli/main.ts", import.meta.url).pathname;
    child = spawn(process.execPath, ["--import", "tsx", main, "view", root, "--no-open"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (b: Buffer) => (stderr += b));
    pageUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (b: Buffer) => {
        out += b;
        const m = /parzarr view: (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`parzarr view exited (${code}): ${stderr}`)));
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    child?.kill("SIGTERM");
  });

  async function rendered(page: Page): Promise<void> {
    await page.waitForFunction(() => document.body.dataset.state === "rendered" || document.body.dataset.state === "error", { timeout: 60_000 });
    const state = await page.evaluate(() => [document.body.dataset.state, document.getElementById("status")!.textContent]);
    assert.equal(state[0], "rendered", `the page says: ${state[1]}`);
  }

  /** RGBA of canvas pixel (row, column). */
  function pixel(page: Page, r: number, c: number): Promise<number[]> {
    return page.evaluate(
      (r, c) => Array.from((document.getElementById("canvas") as HTMLCanvasElement).getContext("2d")!.getImageData(c, r, 1, 1).data),
      r,
      c,
    );
  }

  const PROBES: [number, number][] = [
    [0, 0],
    [0, 59],
    [17, 23],
    [39, 0],
    [39, 59],
  ];

  test("the page lists the hierarchy, shows the array's info and draws the expected pixels", async () => {
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1100, height: 760 });
      await page.goto(`${pageUrl}&array=img&cmap=gray&lo=${LO}&hi=${HI}`);
      await rendered(page);
      const tree = await page.evaluate(() => Array.from(document.querySelectorAll("#tree div"), (d) => d.textContent));
      assert.deepEqual(tree, ["/", "img [3, 40, 60] float32", "opt [4, 5] optional(int16)", "optstr [2, 3] optional(string)", "sub/", "line [50] int16", "uneven [40, 60] float32"]);
      const info = JSON.parse(await page.evaluate(() => document.getElementById("info")!.textContent!)) as { shape: number[]; chunks: number[] };
      assert.deepEqual(info.shape, [...SHAPE]);
      assert.deepEqual(info.chunks, [1, 16, 16]);
      assert.deepEqual(await page.evaluate(() => [crossOriginIsolated, (document.getElementById("canvas") as HTMLCanvasElement).width]), [true, 60]);
      const gray = (v: number): number[] => {
        const g = Math.round(((v - LO) / (HI - LO)) * 255);
        return [g, g, g, 255];
      };
      for (const [r, c] of PROBES) assert.deepEqual(await pixel(page, r, c), gray(value(0, r, c)), `z=0 (${r}, ${c})`);
      // The slider over dimension 0 to its last position: the slice is read again.
      await page.evaluate(() => {
        const s = document.querySelector<HTMLInputElement>('#sliders input[data-dim="0"]')!;
        s.value = "2";
        document.body.dataset.state = "moving";
        s.dispatchEvent(new Event("input"));
      });
      await rendered(page);
      for (const [r, c] of PROBES) assert.deepEqual(await pixel(page, r, c), gray(value(2, r, c)), `z=2 (${r}, ${c})`);
      // Another colormap redraws the same values.
      await page.select("#cmap", "viridis");
      const lut = colormapLut("viridis");
      for (const [r, c] of PROBES) {
        const g = Math.round(((value(2, r, c) - LO) / (HI - LO)) * 255);
        assert.deepEqual(await pixel(page, r, c), [lut[g * 3], lut[g * 3 + 1], lut[g * 3 + 2], 255], `viridis (${r}, ${c})`);
      }
      // A rectilinear array: its grid in the info, its values drawn through its uneven chunks.
      await page.goto(`${pageUrl}&array=uneven&cmap=gray&lo=${LO}&hi=${HI}`);
      await rendered(page);
      const grid = JSON.parse(await page.evaluate(() => document.getElementById("info")!.textContent!)) as { chunkShapes: unknown };
      assert.deepEqual(grid.chunkShapes, [[7, [11, 3]], [5, 25, 30]]);
      for (const [r, c] of [...PROBES, [6, 4], [7, 5], [18, 29], [29, 30]] as [number, number][]) assert.deepEqual(await pixel(page, r, c), gray(value(0, r, c)), `uneven (${r}, ${c})`);
      const artifacts = new URL("../test-artifacts/", import.meta.url).pathname;
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, "viewer.png") as `${string}.png` });
    } finally {
      await page.close();
    }
  });

  test("an optional array: values drawn, missing elements in their own colour; optional strings as cells, missing ones marked", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${pageUrl}&array=opt&cmap=gray&lo=0&hi=19`);
      await rendered(page);
      for (let r = 0; r < 4; r++) {
        for (let c = 0; c < 5; c++) {
          const v = OPT_VALUES[r * 5 + c];
          const g = v === null ? 0 : Math.round((v / 19) * 255);
          assert.deepEqual(await pixel(page, r, c), v === null ? [...MISSING_RGBA] : [g, g, g, 255], `(${r}, ${c}) = ${v}`);
        }
      }
      assert.match(await page.evaluate(() => document.getElementById("status")!.textContent!), /7 missing/);
      await page.goto(`${pageUrl}&array=optstr`);
      await rendered(page);
      const cells = await page.evaluate(() => Array.from(document.querySelectorAll("#cells tr"), (tr) => Array.from(tr.querySelectorAll("td"), (td) => [td.textContent, td.className])));
      assert.deepEqual(cells, [
        [["a", ""], ["null", "missing"], ["hé", ""]],
        [["null", "missing"], ["", ""], ["z", ""]],
      ]);
      assert.deepEqual(await page.evaluate(() => [document.getElementById("canvas")!.hidden, document.getElementById("cells")!.hidden]), [true, false]);
    } finally {
      await page.close();
    }
  });
});
