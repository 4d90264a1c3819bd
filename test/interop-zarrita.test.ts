/**
 * Round trips with zarrita.js 0.7.5: v3 arrays parzarr writes (every codec, both endians,
 * transpose, both chunk key encodings) read exactly in zarrita, and arrays zarrita writes read
 * exactly in parzarr.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { createArray, openArray, type CodecConfig, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const SHAPE = [13, 17];
const CHUNKS = [5, 6];

function sample(dtype: string, n: number): ArrayLike<number | bigint> {
  const out: (number | bigint)[] = [];
  for (let i = 0; i < n; i++) {
    const x = Math.round(40 * Math.sin(i / 7) + i / 3);
    if (dtype === "bool") out.push(i % 3 === 0 ? 1 : 0);
    else if (dtype.endsWith("int64")) out.push(BigInt(dtype.startsWith("u") ? Math.abs(x) : x) * 1000003n);
    else if (dtype.startsWith("uint")) out.push(Math.abs(x));
    else if (dtype.startsWith("float")) out.push(x / 8);
    else out.push(x);
  }
  return out;
}

/** zarrita's result, flattened in C order (it may hand back a transposed, strided view). */
async function zarritaRead(dir: string, path: string): Promise<{ shape: number[]; values: unknown[] }> {
  const store = new ZarritaFileSystemStore(dir);
  const arr = await zarrita.open(zarrita.root(store).resolve(path), { kind: "array" });
  const { data, shape, stride } = await zarrita.get(arr);
  // zarrita hands bool data back as a BoolArray, read with get(i).
  const src = data as unknown as { get?: (i: number) => unknown; [i: number]: unknown };
  const at = (i: number) => (typeof src.get === "function" ? src.get(i) : src[i]);
  const values: unknown[] = [];
  for (let i = 0; i < shape[0]; i++) for (let j = 0; j < shape[1]; j++) values.push(at(i * stride[0] + j * stride[1]));
  return { shape, values };
}

const blosc = (cname: string, shuffle: string): CodecConfig => ({ name: "blosc", configuration: { cname, clevel: 5, shuffle } });

const CHAINS: [string, CodecConfig[], ("default" | "v2")?, ("." | "/")?][] = [
  ["bytes-le", [{ name: "bytes", configuration: { endian: "little" } }]],
  ["bytes-be", [{ name: "bytes", configuration: { endian: "big" } }]],
  ["transpose-be-gzip", [{ name: "transpose", configuration: { order: [1, 0] } }, { name: "bytes", configuration: { endian: "big" } }, { name: "gzip", configuration: { level: 5 } }]],
  ["zstd", [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }]],
  ["crc32c", [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }]],
  ["gzip-crc32c-v2keys", [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }, { name: "crc32c" }], "v2", "."],
  ["dot-keys", [{ name: "bytes", configuration: { endian: "little" } }], "default", "."],
  ...(["lz4", "lz4hc", "blosclz", "zstd", "zlib"] as const).flatMap((cname) =>
    (["noshuffle", "shuffle", "bitshuffle"] as const).map(
      (shuffle): [string, CodecConfig[]] => [`blosc-${cname}-${shuffle}`, [{ name: "bytes", configuration: { endian: "little" } }, blosc(cname, shuffle)]],
    ),
  ),
];

for (const dtype of ["int16", "float32", "float64", "uint8", "int64", "bool"]) {
  test(`zarrita reads what parzarr writes: ${dtype}, every codec chain`, async () => {
    const dir = scratchDir();
    for (const [name, codecs, keyName, sep] of CHAINS) {
      const single = dtype === "uint8" || dtype === "bool";
      const chain = codecs.map((c) => (c.name === "bytes" && single ? { name: "bytes", configuration: {} } : c));
      const a = await createArray(dir, {
        path: name,
        shape: SHAPE,
        chunks: CHUNKS,
        dtype,
        fillValue: dtype === "bool" ? false : 3,
        codecs: chain,
        chunkKeyEncoding: keyName ? { name: keyName, separator: sep ?? "/" } : undefined,
      });
      const n = SHAPE[0] * SHAPE[1];
      const values = sample(dtype, n);
      await a.set(null, { data: values as never, shape: SHAPE });
      // leave one chunk missing so the fill value is exercised too
      await a.set("0:5, 0:6", dtype === "bool" ? false : 3);
      const mine = (await a.get()) as NDArray;
      const theirs = await zarritaRead(dir, name);
      assert.deepEqual(theirs.shape, SHAPE, name);
      const got = theirs.values.map((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v));
      assert.deepEqual(got, Array.from(mine.data as ArrayLike<unknown>), `${dtype} ${name}`);
    }
  });
}

test("parzarr reads what zarrita writes", async () => {
  const dir = scratchDir();
  const store = new ZarritaFileSystemStore(dir);
  // zarrita 0.7.5 cannot encode gzip or crc32c: those are checked in the other direction.
  const cases: [string, string, unknown[] | undefined][] = [
    ["plain", "float32", undefined],
    ["blosc", "int32", [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }]],
    ["big", "uint16", [{ name: "bytes", configuration: { endian: "big" } }]],
    ["transposed", "float64", [{ name: "transpose", configuration: { order: [1, 0] } }, { name: "bytes", configuration: { endian: "little" } }]],
    ["zstd", "int64", [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }]],
  ];
  for (const [name, dtype, codecs] of cases) {
    const arr = await zarrita.create(zarrita.root(store).resolve(name), {
      shape: SHAPE,
      chunkShape: CHUNKS,
      dtype: dtype as "float32",
      ...(codecs ? { codecs: codecs as never } : {}),
      fillValue: 0,
    });
    const n = SHAPE[0] * SHAPE[1];
    const Ctor = { float32: Float32Array, int32: Int32Array, uint16: Uint16Array, float64: Float64Array, int8: Int8Array, int64: BigInt64Array }[dtype]!;
    const data = new Ctor(n);
    const values = sample(dtype, n);
    for (let i = 0; i < n; i++) (data as unknown as (number | bigint)[])[i] = values[i];
    await zarrita.set(arr, [zarrita.slice(0, 10), null], { data: data.subarray(0, 10 * SHAPE[1]) as never, shape: [10, SHAPE[1]], stride: [SHAPE[1], 1] });
    const mine = await openArray(join(dir, name), { mode: "r" });
    const got = (await mine.get()) as NDArray;
    const expected = Array.from(data as unknown as ArrayLike<number | bigint>, (v, i) => (i < 10 * SHAPE[1] ? v : typeof v === "bigint" ? 0n : 0));
    assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), expected, name);
  }
});
