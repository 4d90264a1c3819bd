/**
 * Decompression bombs and lzma integrity. Every decoder is capped at the chunk's expected size
 * (twice it plus 1 MiB, room for any sane codec chain): bz2, xz, zstd (with and without a declared
 * size) and zip members that inflate past their directory entry are refused from their headers or
 * stopped at the cap, as CORRUPT_CHUNK, instead of inflating 256 MiB first. lzma chunks written
 * here carry the CRC64 that numcodecs writes, so a flipped byte fails in parzarr and zarr-python.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CorruptChunkError, ZarrError, createArray, openArray } from "../src/index.js";
import type { JsonObject } from "../src/metadata/json.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

const skip = zarrPythonSkip();

/** A 4 KiB-chunk array with `compressor`, whose chunk 0 holds the bytes Python makes of 256 MiB of zeros. */
async function bombArray(compressor: JsonObject, pythonExpr: string): Promise<string> {
  const root = scratchDir();
  await createArray(root, { shape: [8192], chunks: [4096], dtype: "uint8", zarrFormat: 2, compressor, fillValue: 0 });
  const r = runPython(
    `import sys, bz2, lzma, numcodecs\nzeros = bytes(256 << 20)\nopen(sys.argv[1], "wb").write(${pythonExpr})`,
    join(root, "0"),
  );
  assert.equal(r.status, 0, r.stderr);
  return root;
}

async function assertRefused(root: string, pattern: RegExp): Promise<void> {
  const a = await openArray(root, { mode: "r" });
  const before = process.memoryUsage().arrayBuffers;
  const err = await a.get(null, { threads: 0 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof CorruptChunkError, `expected CORRUPT_CHUNK, got ${String(err)}`);
  assert.match(err.message, /chunk "0"/);
  assert.match(err.message, pattern);
  // Nothing near 256 MiB was held (the cap for a 4 KiB chunk is about 1 MiB).
  assert.ok(process.memoryUsage().arrayBuffers - before < 64 << 20);
}

test("a bz2 bomb stops at the chunk's cap", { skip }, async () => {
  const root = await bombArray({ id: "bz2", level: 1 }, "bz2.compress(zeros, 9)");
  assert.ok(readFileSync(join(root, "0")).length < 4096, "a few hundred bytes that inflate to 256 MiB");
  await assertRefused(root, /limit/);
});

test("an xz bomb is refused from its LZMA2 chunk headers", { skip }, async () => {
  const root = await bombArray({ id: "lzma", format: 1, check: -1, preset: null, filters: null }, "lzma.compress(zeros)");
  await assertRefused(root, /limit/);
});

test("a zstd bomb is refused: with a declared size, and without one (RLE blocks)", { skip }, async () => {
  const root = await bombArray({ id: "zstd", level: 1 }, "numcodecs.Zstd(1).encode(zeros)");
  // A whole chunk decodes into its place, so the declared size is checked against the chunk's.
  await assertRefused(root, /declares 268435456 bytes, 4096 expected/);
  // A frame that declares no size: header, window descriptor, then 2048 RLE blocks of 128 KiB.
  const blocks = 2048;
  const frame = new Uint8Array(6 + blocks * 4);
  frame.set([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58]);
  for (let i = 0; i < blocks; i++) {
    const header = (131072 << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    frame.set([header & 0xff, (header >>> 8) & 0xff, header >>> 16, 0], 6 + i * 4);
  }
  writeFileSync(join(root, "0"), frame);
  await assertRefused(root, /limit/);
});

test("a zstd frame that declares its size reads, however many small compressed blocks it has", { skip }, async () => {
  // libzstd writes 4 MiB chunks of uint16 data in hundreds of compressed blocks of a few KiB. The
  // bomb bound of 128 KiB per compressed block must not refuse such a frame when its size is
  // declared: the decoders hold it to that size. Hand-built: 200 compressed blocks, each 100 raw
  // literals and no sequences, in a frame declaring 20000 bytes.
  const blocks = 200;
  const frame = new Uint8Array(9 + blocks * 106);
  frame.set([0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0x20, 0x4e, 0x00, 0x00]); // single segment, 4-byte size 20000
  const expected = new Uint8Array(blocks * 100);
  for (let i = 0; i < blocks; i++) {
    const at = 9 + i * 106;
    const header = (103 << 3) | (2 << 1) | (i === blocks - 1 ? 1 : 0);
    frame.set([header & 0xff, (header >>> 8) & 0xff, header >>> 16], at);
    frame.set([(1 << 2) | ((100 & 0xf) << 4), 100 >>> 4], at + 3); // raw literals, 12-bit size 100
    for (let k = 0; k < 100; k++) frame[at + 5 + k] = expected[i * 100 + k] = (i * 7 + k) & 0xff;
    frame[at + 105] = 0; // no sequences
  }
  const root = scratchDir();
  await createArray(root, { shape: [20000], chunks: [20000], dtype: "uint8", zarrFormat: 2, compressor: { id: "zstd", level: 1 }, fillValue: 0 });
  writeFileSync(join(root, "0"), frame);
  const got = await (await openArray(root)).get(null);
  assert.deepEqual(new Uint8Array(got.data as Uint8Array), expected);
  // And zarr-python reads the same frame to the same bytes.
  const r = runPython(`import sys, zarr\nsys.stdout.write(bytes(zarr.open_array(sys.argv[1], mode="r")[:]).hex())`, root);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, Buffer.from(expected).toString("hex"));
});

test("a zip member that inflates past its directory entry stops at that size", { skip }, async () => {
  const dir = scratchDir();
  const zip = join(dir, "bomb.zip");
  const src = join(dir, "src.zarr");
  await createArray(src, { shape: [4096], chunks: [4096], dtype: "uint8", zarrFormat: 2, compressor: null, fillValue: 0 });
  // Zip the array with a 64 MiB member "0", then make its directory entries claim 4096 bytes.
  const r = runPython(
    String.raw`
import sys, zipfile, struct
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    z.write(src + "/.zarray", ".zarray")
    z.writestr("0", bytes(64 << 20))
b = bytearray(open(out, "rb").read())
i = 0
while True:
    i = b.find(b"PK\x01\x02", i)
    if i < 0: break
    if b[i + 46:i + 46 + struct.unpack_from("<H", b, i + 28)[0]] == b"0":
        struct.pack_into("<I", b, i + 24, 4096)
        off = struct.unpack_from("<I", b, i + 42)[0]
        struct.pack_into("<I", b, off + 22, 4096)
    i += 4
open(out, "wb").write(b)
`,
    src,
    zip,
  );
  assert.equal(r.status, 0, r.stderr);
  const a = await openArray(zip, { mode: "r" });
  const err = await a.get(null, { threads: 0 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
  // Before the cap the whole 64 MiB was inflated, then found to disagree with the directory.
  assert.doesNotMatch(err.message, /holds 67108864 bytes/);
  assert.match(err.message, /does not inflate/);
});

test("lzma chunks carry numcodecs' CRC64: zarr-python reads them, and a flipped byte fails in both", { skip }, async () => {
  const root = scratchDir();
  const a = await createArray(root, {
    shape: [20000],
    chunks: [20000],
    dtype: "int32",
    zarrFormat: 2,
    compressor: { id: "lzma", format: 1, check: -1, preset: null, filters: null },
    fillValue: 0,
  });
  const value = Int32Array.from({ length: 20000 }, (_, i) => (i * 2654435761) | 0);
  await a.set(null, value);
  const chunk = join(root, "0");
  const bytes = readFileSync(chunk);
  assert.equal(bytes[7], 0x04, "stream flags: check CRC64");
  const ok = runPython(
    "import sys, zarr, numpy as np\nz = zarr.open(sys.argv[1], 'r')\nprint(int(np.asarray(z[:], dtype=np.int64).sum()))",
    root,
  );
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(BigInt(ok.stdout.trim()), value.reduce((s, v) => s + BigInt(v), 0n));
  // Flip one byte in the last LZMA2 chunk's data (not a header: the stream still parses).
  const flipped = Buffer.from(bytes);
  flipped[flipped.length - 80] ^= 0x01;
  writeFileSync(chunk, flipped);
  const err = await a.get(null, { threads: 0 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof CorruptChunkError, `expected CORRUPT_CHUNK, got ${String(err)}`);
  const bad = runPython("import sys, zarr\nz = zarr.open(sys.argv[1], 'r')\nz[:]", root);
  assert.notEqual(bad.status, 0, "zarr-python read a corrupted chunk without complaint");
  assert.match(bad.stderr, /LZMAError|Corrupt|check/i);
  assert.deepEqual(readdirSync(root).sort(), [".zarray", "0"]);
});
