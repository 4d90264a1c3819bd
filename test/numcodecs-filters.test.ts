/**
 * The numcodecs filters, checksums and compressors, chunk by chunk against numcodecs 0.11 itself:
 * where numcodecs is deterministic our encoded bytes equal its output exactly, and every output
 * of either side decodes on the other to the same values.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { codecsReady, getCodecFactory } from "../src/codecs/registry.js";
import { CodecPipeline } from "../src/codecs/pipeline.js";
import type { ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkSpec, ChunkView } from "../src/codecs/types.js";
import { contiguousView } from "../src/codecs/view.js";
import type { ElementArray, TypedArray } from "../src/metadata/dtype.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import type { JsonObject } from "../src/metadata/json.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

/** A codec factory by name, with the chain builder the pipeline gives it. */
// These factories are looked up directly: their modules load as an array naming them would load them.
const IDS = ["vlen-utf8", "vlen-bytes", "delta", "fixedscaleoffset", "quantize", "astype", "categorize", "packbits", "bitround", "shuffle", "adler32", "crc32", "fletcher32", "bz2", "lzma"];
await codecsReady([...IDS, "crc32c"].map((id) => ({ name: `numcodecs.${id}` })).concat({ name: "crc32c" }));
const codecFactory = (name: string) => (conf: JsonObject, spec: ChunkSpec) => getCodecFactory(name)(conf, spec, CodecPipeline.create);

const skip = zarrPythonSkip();

interface Case {
  id: string;
  /** numcodecs config (`{ id, ... }`). */
  config: JsonObject;
  /** numpy dtype of the input. */
  dtype: string;
  input: ElementArray;
  /** numcodecs output is deterministic, so bytes must match. */
  exact: boolean;
}

const b64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
const bytesOf = (t: TypedArray) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength);

function wave(n: number, f: (i: number) => number): number[] {
  return Array.from({ length: n }, (_, i) => f(i));
}

const N = 203;
const smooth = wave(N, (i) => 1000 + 37 * Math.sin(i / 9) + i * 0.731);
const CASES: Case[] = [
  { id: "delta i4->i2", config: { id: "delta", dtype: "<i4", astype: "<i2" }, dtype: "<i4", input: Int32Array.from(smooth, Math.round), exact: true },
  { id: "delta i8", config: { id: "delta", dtype: "<i8", astype: "<i8" }, dtype: "<i8", input: BigInt64Array.from(smooth, (x) => BigInt(Math.round(x * 1e6))), exact: true },
  { id: "delta f4", config: { id: "delta", dtype: "<f4", astype: "<f4" }, dtype: "<f4", input: Float32Array.from(smooth), exact: true },
  { id: "fixedscaleoffset f8->u2", config: { id: "fixedscaleoffset", offset: 1000, scale: 100, dtype: "<f8", astype: "<u2" }, dtype: "<f8", input: Float64Array.from(smooth), exact: true },
  { id: "fixedscaleoffset f4->i4 halves", config: { id: "fixedscaleoffset", offset: 0, scale: 2, dtype: "<f4", astype: "<i4" }, dtype: "<f4", input: Float32Array.from(wave(N, (i) => i * 0.25 - 20)), exact: true },
  { id: "quantize f8 digits 2", config: { id: "quantize", digits: 2, dtype: "<f8", astype: "<f8" }, dtype: "<f8", input: Float64Array.from(smooth), exact: true },
  { id: "quantize f4 digits 1", config: { id: "quantize", digits: 1, dtype: "<f4", astype: "<f4" }, dtype: "<f4", input: Float32Array.from(smooth, (x) => x / 7), exact: true },
  { id: "astype f8->f4", config: { id: "astype", encode_dtype: "<f4", decode_dtype: "<f8" }, dtype: "<f8", input: Float64Array.from(smooth), exact: true },
  { id: "astype f8->i2", config: { id: "astype", encode_dtype: "<i2", decode_dtype: "<f8" }, dtype: "<f8", input: Float64Array.from(smooth, (x) => x - 1020.5), exact: true },
  { id: "bitround f4 keep 5", config: { id: "bitround", keepbits: 5 }, dtype: "<f4", input: Float32Array.from(smooth, (x) => x / 3), exact: true },
  { id: "bitround f8 keep 11", config: { id: "bitround", keepbits: 11 }, dtype: "<f8", input: Float64Array.from(smooth, (x) => -x / 3), exact: true },
  { id: "packbits 13", config: { id: "packbits" }, dtype: "|b1", input: Uint8Array.from(wave(13, (i) => (i * 7) % 3 === 0 ? 1 : 0)), exact: true },
  { id: "categorize", config: { id: "categorize", labels: ["apple", "banana", "cherry"], dtype: "|O", astype: "|u1" }, dtype: "|O", input: Array.from({ length: 40 }, (_, i) => ["apple", "cherry", "banana", "kiwi", ""][i % 5]), exact: true },
  { id: "vlen-utf8", config: { id: "vlen-utf8" }, dtype: "|O", input: ["", "α", "hello", "wörld", "🙂", "a\u0000b"], exact: true },
  { id: "vlen-bytes", config: { id: "vlen-bytes" }, dtype: "|O", input: [new Uint8Array([0, 1, 2]), new Uint8Array(0), new Uint8Array([255])], exact: true },
  { id: "shuffle 8", config: { id: "shuffle", elementsize: 8 }, dtype: "<f8", input: Float64Array.from(smooth), exact: true },
  { id: "shuffle 4", config: { id: "shuffle", elementsize: 4 }, dtype: "<i4", input: Int32Array.from(smooth, Math.round), exact: true },
  { id: "adler32", config: { id: "adler32" }, dtype: "<f8", input: Float64Array.from(wave(4000, (i) => Math.sin(i))), exact: true },
  { id: "crc32", config: { id: "crc32" }, dtype: "<i4", input: Int32Array.from(smooth, Math.round), exact: true },
  { id: "lzma xz preset 1", config: { id: "lzma", format: 1, check: -1, preset: 1, filters: null }, dtype: "<f8", input: Float64Array.from(smooth), exact: false },
  { id: "lzma alone", config: { id: "lzma", format: 2, check: -1, preset: 6, filters: null }, dtype: "<i4", input: Int32Array.from(smooth, Math.round), exact: false },
  { id: "bz2 level 1", config: { id: "bz2", level: 1 }, dtype: "<f8", input: Float64Array.from(smooth), exact: false },
  { id: "bz2 level 9", config: { id: "bz2", level: 9 }, dtype: "<i4", input: Int32Array.from(wave(12000, (i) => i % 977)), exact: false },
];

/** Our codec for a numcodecs config, with the chunk spec it sees. */
function ours(c: Case) {
  const { id, ...conf } = c.config;
  // numpy's object type holds either; parzarr's vlen-bytes arrays have their own type.
  const dtype = parseDataType(id === "vlen-bytes" ? "bytes" : c.dtype);
  const spec: ChunkSpec = { shape: [c.input.length], dtype, fillValue: null };
  const { codec } = codecFactory(`numcodecs.${id as string}`)(conf as JsonObject, spec);
  return { codec, spec };
}

function inputBytes(c: Case): Uint8Array | null {
  return ArrayBuffer.isView(c.input) ? bytesOf(c.input as TypedArray) : null;
}

async function encodeOurs(c: Case): Promise<Uint8Array> {
  const { codec, spec } = ours(c);
  const view = contiguousView(c.input, spec.shape);
  if (codec.kind === "bytes_to_bytes") return (codec as BytesToBytesCodec).encode(inputBytes(c)!);
  if (codec.kind === "array_to_bytes") return (codec as ArrayToBytesCodec).encode(view, spec);
  const out = (codec as ArrayToArrayCodec).encode(view, spec).data as TypedArray;
  return bytesOf(out);
}

async function decodeOurs(c: Case, encoded: Uint8Array): Promise<ElementArray> {
  const { codec, spec } = ours(c);
  if (codec.kind === "bytes_to_bytes") {
    const raw = await (codec as BytesToBytesCodec).decode(encoded);
    return raw;
  }
  if (codec.kind === "array_to_bytes") return (await (codec as ArrayToBytesCodec).decode(encoded, spec)).data;
  const a2a = codec as ArrayToArrayCodec;
  const encSpec = a2a.encodedSpec(spec);
  const { codec: bytes } = codecFactory("bytes")({ endian: "little" }, encSpec);
  const view: ChunkView = await (bytes as ArrayToBytesCodec).decode(encoded.slice(), encSpec);
  return a2a.decode(view, encSpec).data;
}

const PY = `
import sys, json, base64, numpy as np, numcodecs
cases = json.load(sys.stdin)
out = []
for c in cases:
    codec = numcodecs.get_codec(c["config"])
    if c["dtype"] == "|O":
        items = c["strings"] if "strings" in c else [base64.b64decode(s) for s in c["bytes"]]
        arr = np.empty(len(items), dtype=object); arr[:] = items
    else:
        arr = np.frombuffer(base64.b64decode(c["data"]), dtype=c["dtype"]).copy()
    enc = codec.encode(arr)
    enc_bytes = np.ascontiguousarray(np.asarray(enc)).tobytes() if not isinstance(enc, bytes) else enc
    # and numcodecs decoding of what parzarr wrote
    ours = base64.b64decode(c["ours"])
    if c["kind"] == "array" and c["config"]["id"] not in ("vlen-utf8", "vlen-bytes", "packbits"):
        ours = np.frombuffer(ours, dtype=np.asarray(enc).dtype)
    dec = codec.decode(ours)
    if c["dtype"] == "|O":
        # Compared with numcodecs' decode of its own output (categorize loses unknown labels).
        norm = lambda xs: [x.decode("latin1") if isinstance(x, bytes) else x for x in np.asarray(xs, dtype=object).reshape(-1)]
        ok = norm(dec) == norm(codec.decode(enc))
    else:
        want = np.frombuffer(base64.b64decode(c["data"]), dtype=c["dtype"])
        got = np.frombuffer(np.ascontiguousarray(dec).tobytes(), dtype=np.asarray(codec.decode(enc)).dtype if c["kind"] == "array" else "u1")
        ref = np.asarray(codec.decode(enc)).reshape(-1).view(got.dtype) if c["kind"] == "array" else np.frombuffer(base64.b64decode(c["data"]), dtype="u1")
        ok = bool(np.array_equal(got, ref))
    out.append({"enc": base64.b64encode(enc_bytes).decode(), "decodes_ours": ok})
json.dump(out, sys.stdout)
`;

test("numcodecs filters, checksums and compressors: same bytes as numcodecs and decodable both ways", { skip }, async () => {
  const payload = [];
  for (const c of CASES) {
    const enc = await encodeOurs(c);
    const { codec } = ours(c);
    const base = { config: c.config, dtype: c.dtype, ours: b64(enc), kind: codec.kind === "bytes_to_bytes" ? "bytes" : "array" };
    if (Array.isArray(c.input)) {
      const items = c.input as (string | Uint8Array)[];
      payload.push(typeof items[0] === "string" ? { ...base, strings: items } : { ...base, bytes: (items as Uint8Array[]).map(b64) });
    } else {
      payload.push({ ...base, data: b64(inputBytes(c)!) });
    }
  }
  const { spawnSync } = await import("node:child_process");
  const { PYTHON } = await import("./helpers/peers.js");
  const r = spawnSync(PYTHON, ["-c", PY], { input: JSON.stringify(payload), encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, r.stderr);
  const results = JSON.parse(r.stdout) as { enc: string; decodes_ours: boolean }[];
  for (const [i, c] of CASES.entries()) {
    const mine = await encodeOurs(c);
    const theirs = fromB64(results[i].enc);
    if (c.exact) assert.equal(b64(mine), b64(theirs), `${c.id}: encoded bytes equal numcodecs'`);
    assert.ok(results[i].decodes_ours, `${c.id}: numcodecs decodes parzarr's output to the input`);
    // parzarr decodes numcodecs' output to the same values numcodecs' own decode gives.
    const back = await decodeOurs(c, theirs);
    const mineBack = await decodeOurs(c, mine);
    if (Array.isArray(back)) assert.deepEqual(back, mineBack, `${c.id}: parzarr decodes numcodecs' output`);
    else assert.deepEqual(bytesOf(back as TypedArray), bytesOf(mineBack as TypedArray), `${c.id}: parzarr decodes numcodecs' output`);
  }
});

test("checksums catch corruption and numcodecs options without a counterpart are refused by name", async () => {
  const data = new Uint8Array([1, 2, 3, 4, 5, 6, 7]);
  for (const name of ["numcodecs.adler32", "numcodecs.fletcher32", "numcodecs.crc32"]) {
    const { codec } = codecFactory(name)({}, { shape: [7], dtype: parseDataType("|u1"), fillValue: 0 });
    const enc = await (codec as BytesToBytesCodec).encode(data);
    assert.deepEqual(await (codec as BytesToBytesCodec).decode(enc), data);
    const bad = enc.slice();
    bad[name.endsWith("fletcher32") ? 0 : 5] ^= 1;
    await assert.rejects(async () => (codec as BytesToBytesCodec).decode(bad), { code: "CORRUPT_CHUNK" });
  }
  const spec: ChunkSpec = { shape: [4], dtype: parseDataType("<f8"), fillValue: 0 };
  assert.throws(() => codecFactory("numcodecs.lzma")({ format: 3, filters: [{ id: 33 }] }, spec), /format 3/);
  assert.throws(() => codecFactory("numcodecs.lzma")({ format: 1, preset: null, filters: [{ id: 33 }] }, spec), /filters/);
  assert.throws(() => codecFactory("numcodecs.quantize")({ digits: 2, dtype: "<i4" }, spec), /floating point/);
});

test("our bzip2 encoder and decoder against Python's bz2: multi-block, run-heavy, periodic, empty, concatenated, corrupt", { skip }, async () => {
  const { bzip2Compress } = await import("../src/codecs/bzip2-encode.js");
  const { bzip2Decompress } = await import("../src/codecs/bzip2-decode.js");
  const { spawnSync } = await import("node:child_process");
  const { PYTHON } = await import("./helpers/peers.js");
  const inputs: [string, Uint8Array, number][] = [
    ["empty", new Uint8Array(0), 1],
    ["zeros over three level-1 blocks", new Uint8Array(260_000), 1],
    ["period 2", Uint8Array.from({ length: 70_001 }, (_, i) => (i % 2 ? 97 : 98)), 9],
    ["runs of every length", Uint8Array.from({ length: 40_000 }, (_, i) => Math.floor(Math.sqrt(i)) % 256), 1],
    ["noise over two blocks", Uint8Array.from({ length: 150_000 }, (_, i) => (Math.imul(i, 2654435761) >>> 13) & 0xff), 1],
  ];
  const payload = inputs.map(([, data, level]) => b64(bzip2Compress(data, level)));
  // Python decodes ours, and compresses each input itself (levels 1 and 9, and two streams
  // concatenated, which bz2.decompress also reads) for our decoder.
  const py = `import sys,json,bz2,base64
items = json.load(sys.stdin)
dec = [base64.b64encode(bz2.decompress(base64.b64decode(s))).decode() for s in items]
raw = [bz2.decompress(base64.b64decode(s)) for s in items]
enc = [[base64.b64encode(x).decode() for x in (bz2.compress(d, 1), bz2.compress(d, 9), bz2.compress(d, 3) + bz2.compress(d[:999], 2))] for d in raw]
print(json.dumps({"dec": dec, "enc": enc}))`;
  const r = spawnSync(PYTHON, ["-c", py], { input: JSON.stringify(payload), encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, r.stderr);
  const { dec, enc } = JSON.parse(r.stdout) as { dec: string[]; enc: string[][] };
  inputs.forEach(([name, data], i) => {
    assert.equal(dec[i], b64(data), `${name}: Python's bz2 reads ours back`);
    assert.equal(b64(bzip2Decompress(fromB64(enc[i][0]))), b64(data), `${name}: we read Python's level 1`);
    assert.equal(b64(bzip2Decompress(fromB64(enc[i][1]))), b64(data), `${name}: we read Python's level 9`);
    const both = new Uint8Array([...data, ...data.subarray(0, 999)]);
    assert.equal(b64(bzip2Decompress(fromB64(enc[i][2]))), b64(both), `${name}: we read two concatenated streams`);
  });
  const stream = bzip2Compress(inputs[4][1], 1);
  const bad = stream.slice();
  bad[bad.length >> 1] ^= 0x10;
  assert.throws(() => bzip2Decompress(bad), { code: "CORRUPT_CHUNK" });
  assert.throws(() => bzip2Decompress(stream.subarray(0, stream.length - 9)), { code: "CORRUPT_CHUNK" });
});

test("checksum location: numcodecs' `location` moves the sum to either end; crc32c and fletcher32 append", async () => {
  const spec: ChunkSpec = { shape: [10], dtype: parseDataType("uint8"), fillValue: 0 };
  const data = Uint8Array.from({ length: 10 }, (_, i) => i * 17);
  const layout = async (name: string, conf: JsonObject) => {
    const { codec, configuration } = codecFactory(name)(conf, spec);
    const enc = await (codec as BytesToBytesCodec).encode(data);
    assert.deepEqual(await (codec as BytesToBytesCodec).decode(enc), data, `${name} round trip`);
    const at = Buffer.from(enc).indexOf(Buffer.from(data));
    return { at, configuration };
  };
  assert.deepEqual(await layout("numcodecs.adler32", {}), { at: 4, configuration: {} });
  assert.deepEqual(await layout("numcodecs.adler32", { location: "end" }), { at: 0, configuration: { location: "end" } });
  assert.deepEqual(await layout("numcodecs.crc32", { location: "start" }), { at: 4, configuration: { location: "start" } });
  assert.deepEqual(await layout("numcodecs.crc32c", { location: "start" }), { at: 4, configuration: { location: "start" } });
  assert.deepEqual(await layout("crc32c", {}), { at: 0, configuration: {} });
  assert.deepEqual(await layout("numcodecs.fletcher32", {}), { at: 0, configuration: {} });
  assert.throws(() => codecFactory("numcodecs.adler32")({ location: "middle" }, spec), /location/);
});
