/**
 * Metadata: data types, fill values in every JSON form, validation errors that name the file and
 * field, and documents written byte for byte as zarr-python writes them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseV2Array, parseV3 } from "../src/metadata/array-metadata.js";
import { v2ArrayDocument, v3ArrayDocument } from "../src/metadata/documents.js";
// Every data type, as Node has from the start (src/platform/node.ts; a page loads the rare ones on first use).
import "../src/metadata/rare-types.js";
import { parseDataType, toNumpyTypestr } from "../src/metadata/dtype-names.js";
import { parseFillValue } from "../src/metadata/fill-value.js";
import { fillValueToJson } from "../src/metadata/fill-value-json.js";
import { parseJsonBytes } from "../src/metadata/json-lenient.js";
import { pythonFloat, serialiseJson } from "../src/metadata/json-write.js";
import { InvalidMetadataError, UnsupportedError } from "../src/errors.js";
import { FIXTURES } from "./helpers/paths.js";

function findFiles(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...findFiles(p, name));
    else if (entry === name) out.push(p);
  }
  return out;
}

test("data types parse from v3 names and numpy type strings", () => {
  assert.deepEqual(parseDataType("int32"), { kind: "numeric", name: "int32", itemSize: 4, endian: "little" });
  assert.deepEqual(parseDataType(">f8"), { kind: "numeric", name: "float64", itemSize: 8, endian: "big" });
  assert.deepEqual(parseDataType("|b1"), { kind: "numeric", name: "bool", itemSize: 1, endian: null });
  assert.deepEqual(parseDataType("<c16"), { kind: "numeric", name: "complex128", itemSize: 16, endian: "little" });
  assert.equal(toNumpyTypestr(parseDataType("uint16")), "<u2");
  assert.equal(toNumpyTypestr(parseDataType(">i2")), ">i2");
  assert.equal(toNumpyTypestr(parseDataType("int8")), "|i1");
  assert.deepEqual(parseDataType("<M8[10ms]"), { kind: "datetime", name: "numpy.datetime64", unit: "ms", scaleFactor: 10, itemSize: 8, endian: "little" });
  assert.equal(toNumpyTypestr(parseDataType({ name: "numpy.timedelta64", configuration: { unit: "us", scale_factor: 1 } })), "<m8[us]");
  assert.equal(parseDataType("string").kind, "string");
  assert.equal(toNumpyTypestr(parseDataType(">U4")), ">U4");
  // zarrs' optional needs its inner type's configuration, even when empty.
  assert.throws(() => parseDataType({ name: "optional", configuration: { name: "uint8" } }), InvalidMetadataError);
  assert.throws(() => parseDataType("float128"), InvalidMetadataError);
  assert.throws(() => parseDataType(42), InvalidMetadataError);
});

test("a data type named as an Object property (constructor, toString) is unknown, never a numeric type of no size", () => {
  for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__"]) assert.throws(() => parseDataType(name), InvalidMetadataError, name);
});

test("fill values in every JSON form", () => {
  const f32 = parseDataType("float32");
  const f64 = parseDataType("float64");
  const f16 = parseDataType("float16");
  assert.ok(Number.isNaN(parseFillValue("NaN", f64) as number));
  assert.equal(parseFillValue("Infinity", f64), Infinity);
  assert.equal(parseFillValue("-Infinity", f32), -Infinity);
  assert.ok(Number.isNaN(parseFillValue("0x7fc00000", f32) as number));
  assert.equal(parseFillValue("0x3ff0000000000000", f64), 1);
  assert.equal(parseFillValue("0x3c00", f16), 1);
  assert.throws(() => parseFillValue("0x3ff0", f64), InvalidMetadataError);
  assert.deepEqual(parseFillValue([1, "NaN"], parseDataType("complex64"))!.toString(), [1, NaN].toString());
  assert.equal(parseFillValue(null, parseDataType("int16")), 0);
  assert.equal(parseFillValue(42, parseDataType("int64")), 42n);
  assert.equal(parseFillValue("9223372036854775807", parseDataType("int64")), 9223372036854775807n);
  assert.equal(parseFillValue(true, parseDataType("bool")), true);
  assert.throws(() => parseFillValue(300, parseDataType("uint8")), /out of range/);
  assert.throws(() => parseFillValue(1.5, parseDataType("int32")), InvalidMetadataError);
  assert.throws(() => parseFillValue("hello", f64), InvalidMetadataError);
  assert.deepEqual(fillValueToJson(NaN, f64, 2), "NaN");
  assert.equal(serialiseJson(fillValueToJson(0, f64, 2), { indent: 0, sortKeys: false, asciiOnly: true }), "0.0");
  assert.equal(
    serialiseJson(fillValueToJson(2n ** 63n - 1n, parseDataType("int64"), 3), { indent: 0, sortKeys: false, asciiOnly: true }),
    "9223372036854775807",
  );
});

test("floats print the way Python's repr prints them", () => {
  const cases: [number, string][] = [
    [0, "0.0"],
    [-0, "-0.0"],
    [1, "1.0"],
    [0.1, "0.1"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [1.5e-7, "1.5e-07"],
    [1e16, "1e+16"],
    [123456789012345.6, "123456789012345.6"],
    [3.4028234663852886e38, "3.4028234663852886e+38"],
  ];
  for (const [x, want] of cases) assert.equal(pythonFloat(x), want, String(x));
});

test("every v2 .zarray from zarr-python 2.13 is re-written byte for byte", () => {
  const root = join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr");
  let checked = 0;
  for (const file of findFiles(root, ".zarray")) {
    const original = readFileSync(file);
    let meta;
    try {
      meta = parseV2Array(parseJsonBytes(original, file), {}, file);
    } catch (err) {
      assert.ok(err instanceof UnsupportedError, `${relative(root, file)}: ${String(err)}`);
      continue;
    }
    assert.equal(Buffer.from(v2ArrayDocument(meta)).toString(), original.toString(), relative(root, file));
    checked++;
  }
  assert.ok(checked >= 40, `checked ${checked} documents`);
});

test("v3 zarr.json documents from zarr-python 3 and zarrs round-trip to the same JSON", () => {
  const root = join(FIXTURES, "zarrs");
  let checked = 0;
  for (const file of findFiles(root, "zarr.json")) {
    const doc = JSON.parse(readFileSync(file, "utf8"));
    if (doc.node_type !== "array") continue;
    let meta;
    try {
      meta = parseV3(doc, file);
    } catch (err) {
      assert.ok(err instanceof UnsupportedError, `${relative(root, file)}: ${String(err)}`);
      continue;
    }
    if (meta.nodeType !== "array") continue;
    const again = JSON.parse(Buffer.from(v3ArrayDocument(meta)).toString());
    for (const key of ["shape", "data_type", "chunk_grid", "fill_value", "codecs", "attributes"]) {
      const want = key === "attributes" ? (doc[key] ?? {}) : doc[key];
      assert.deepEqual(again[key], want, `${relative(root, file)}: ${key}`);
    }
    checked++;
  }
  assert.ok(checked >= 15, `checked ${checked} documents`);
});

test("malformed metadata names the file and the field", () => {
  const bad = (doc: unknown) => () => parseV2Array(doc, {}, "a/.zarray");
  const base = { zarr_format: 2, shape: [10], chunks: [5], dtype: "<i4", compressor: null, fill_value: 0, order: "C", filters: null };
  assert.throws(bad({ ...base, shape: [-1] }), /a\/\.zarray: field "shape\[0\]"/);
  assert.throws(bad({ ...base, chunks: [5, 5] }), /field "chunks" has 2 dimensions/);
  assert.throws(bad({ ...base, order: "X" }), /field "order"/);
  assert.throws(bad({ ...base, zarr_format: 3 }), /field "zarr_format"/);
  assert.throws(bad({ ...base, fill_value: "abc" }), /field "fill_value"/);
  const { dtype: _d, ...noDtype } = base;
  assert.throws(bad(noDtype), /field "dtype" is missing/);
  assert.throws(() => parseJsonBytes(new TextEncoder().encode("{ nope"), "x/zarr.json"), /x\/zarr\.json: not valid JSON/);
  assert.throws(() => parseV3({ zarr_format: 3, node_type: "array" }, "z/zarr.json"), /z\/zarr\.json: field "shape" is missing/);
  assert.throws(
    () => parseV3({ zarr_format: 3, node_type: "array", shape: [1], data_type: "int8", chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } }, fill_value: 0, codecs: [{ name: "bytes" }], wild: 1 }),
    /unknown field "wild"/,
  );
});
