/**
 * CLI defects a new user hit: sharded arrays shown and copied with the inner chunk as the shard,
 * consolidated hierarchies over HTTP that `tree`/`info`/`cp` could not list, and `get PATH -1`
 * (the example in its own help) taken for an option.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { createArray, openArray, openGroup, type NDArray } from "../src/index.js";
import { cliInProcess } from "./helpers/cli-in-process.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";

const HIER = join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr");

const cli = cliInProcess;

function ok(r: { code: number; stderr: string }, what: string) {
  assert.equal(r.code, 0, `${what}: ${r.stderr}`);
  return r as { code: number; stdout: string; stderr: string };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => statSync(join(dir, f)).isFile());
}

test("info shows a sharded array's shard shape, and cp without options keeps its shards", async () => {
  const dir = scratchDir("parzarr-shard-layout-");
  const src = join(dir, "s.zarr");
  const a = await createArray(src, { shape: [40, 40], chunks: [5, 5], shards: [20, 20], dtype: "int32", codecs: undefined });
  await a.set(null, Int32Array.from({ length: 1600 }, (_, i) => i));
  const info = ok(await cli(["info", src, "--json"]), "info");
  const doc = JSON.parse(info.stdout);
  assert.deepEqual([doc.chunks, doc.shards], [[5, 5], [20, 20]]);
  assert.match(ok(await cli(["info", src]), "info").stdout, /Shard shape\s+: \(20, 20\)/);
  const dst = join(dir, "copy.zarr");
  ok(await cli(["cp", src, dst, "-q"]), "cp");
  const b = await openArray(dst, { mode: "r" });
  assert.deepEqual([b.chunks, b.shards], [[5, 5], [20, 20]]);
  // 4 shards of 20x20 and the metadata: not 64 files of 5x5.
  assert.equal(filesUnder(dst).length, 5, filesUnder(dst).join(" "));
  assert.deepEqual(Array.from(((await b.get()) as NDArray).data as Int32Array), Array.from({ length: 1600 }, (_, i) => i));
});

test("tree, info and cp walk a consolidated hierarchy over HTTP", async () => {
  assert.ok(existsSync(join(HIER, ".zmetadata")));
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).slice(1);
    const file = join(HIER, rel);
    if (!file.startsWith(HIER) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const overHttp = ok(await cli(["tree", url, "--json"]), "tree over http").stdout;
    const local = ok(await cli(["tree", HIER, "--json"]), "tree").stdout;
    const paths = (t: string) => t.split("\n").filter(Boolean).map((l) => JSON.parse(l).path);
    assert.deepEqual(paths(overHttp), paths(local));
    assert.ok(paths(overHttp).length > 20);
    const info = JSON.parse(ok(await cli(["info", url, "--json"]), "info over http").stdout);
    const localInfo = JSON.parse(ok(await cli(["info", HIER, "--json"]), "info").stdout);
    assert.equal(info.arrays, localInfo.arrays);
    assert.ok(info.arrays > 0);
    const dst = join(scratchDir("parzarr-http-cp-"), "c.zarr");
    ok(await cli(["cp", `${url}#compressors`, dst, "-q", "--skip-unreadable"]), "cp over http");
    const want = await openGroup(join(HIER, "compressors"), { mode: "r", consolidated: false });
    const got = await openGroup(dst, { mode: "r" });
    const names = async (g: typeof got) => (await g.members()).map(([n]) => n);
    const copied = await names(got);
    assert.ok(copied.length > 5);
    for (const n of copied) {
      const x = (await (await openArray(dst, { path: n, mode: "r" })).get()) as NDArray;
      const y = (await ((await want.get(n)) as Awaited<ReturnType<typeof openArray>>).get()) as NDArray;
      assert.deepEqual(x.data, y.data, n);
    }
  } finally {
    server.close();
  }
});

test("get PATH -1 and other negative selections are selections, not options", async () => {
  const dir = join(scratchDir("parzarr-get-neg-"), "a.zarr");
  const a = await createArray(dir, { shape: [5], chunks: [2], dtype: "int32" });
  await a.set(null, Int32Array.from([10, 20, 30, 40, 50]));
  assert.equal(ok(await cli(["get", dir, "-1"]), "get -1").stdout.trim(), "50");
  assert.equal(ok(await cli(["get", dir, "-2:", "--threshold", "10"]), "get -2:").stdout.trim(), "[40 50]");
  assert.equal(ok(await cli(["get", "--threads", "0", dir, "-3:-1"]), "get -3:-1").stdout.trim(), "[30 40]");
  // An unknown option is still one.
  assert.match((await cli(["get", dir, "-x"])).stderr, /Unknown option '-x'/);
});

test("info: a v2 array shows its compressor and filters, group counts say they cover every level", async () => {
  const strings = ok(await cli(["info", `${HIER}#filters/vlen_utf8`]), "info strings").stdout;
  assert.match(strings, /^Filters +: vlen-utf8\(\)$/m);
  assert.match(strings, /^Compressor +: /m);
  const group = ok(await cli(["info", `${HIER}#filters`]), "group info").stdout;
  const arrays = readdirSync(join(HIER, "filters")).filter((d) => existsSync(join(HIER, "filters", d, ".zarray"))).length;
  assert.match(group, new RegExp(`^Arrays \\(all levels\\) +: ${arrays}$`, "m"));
});
