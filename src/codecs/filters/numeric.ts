/**
 * The numcodecs array filters on numbers (array->array; v3 names `numcodecs.<id>`): delta,
 * fixedscaleoffset, quantize, astype and bitround, with numcodecs' arithmetic so that encoded
 * chunks equal what numcodecs writes.
 */
import { InvalidMetadataError, UnsupportedError } from "../../errors.js";
import { typeFamily, type DataType, type TypedArray } from "../../metadata/dtype.js";
import { allocTypedArray } from "../../metadata/elements.js";
import type { JsonObject } from "../../metadata/json.js";
import type { ArrayToArrayCodec, ChunkSpec, ChunkView, CodecFactory } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";
import { arith, checkInput, mapElements, numericOption, roundHalfEven, specAs, store } from "./elementwise.js";

/** A filter that turns elements of `decoded` into elements of `encoded`. */
class ElementFilter implements ArrayToArrayCodec {
  readonly kind = "array_to_array";
  constructor(
    readonly name: string,
    private readonly decoded: DataType,
    private readonly encoded: DataType,
    private readonly enc: (view: ChunkView) => ChunkView,
    private readonly dec: (view: ChunkView) => ChunkView,
  ) {}
  encodedSpec(spec: ChunkSpec): ChunkSpec {
    return specAs(spec, this.encoded);
  }
  encode(view: ChunkView, spec: ChunkSpec): ChunkView {
    checkInput(spec, this.decoded, this.name);
    return this.enc(view);
  }
  decode(view: ChunkView): ChunkView {
    return this.dec(view);
  }
}

function numberOption(conf: JsonObject, field: string, codec: string): number {
  const v = conf[field];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new InvalidMetadataError(`codec "${codec}": "${field}" must be a number, got ${JSON.stringify(v)}`);
  return v;
}

/** v2 writes the dtype options as numpy strings; keep the caller's spelling for metadata. */
function typestrOf(conf: JsonObject, field: string, dt: DataType): JsonObject[string] {
  return conf[field] ?? (dt as { name: string }).name;
}

export const deltaCodec: CodecFactory = (conf, spec) => {
  const name = "numcodecs.delta";
  const dtype = numericOption(conf, "dtype", name, spec.dtype);
  const astype = numericOption(conf, "astype", name, dtype);
  const isBig = (dt: DataType) => dt.itemSize === 8 && typeFamily(dt) !== "float";
  const sub = (a: number | bigint, b: number | bigint): number | bigint =>
    isBig(dtype) ? BigInt.asIntN(64, BigInt(a) - BigInt(b)) : (a as number) - (b as number);
  const f = arith(dtype);
  const codec = new ElementFilter(
    name,
    dtype,
    astype,
    (view) => mapElements(view, dtype, astype, (x, i, src) => (i === 0 ? x : typeof x === "bigint" ? sub(x, src[i - 1] as bigint) : f(sub(x, src[i - 1] as number) as number))),
    (view) => {
      // numpy's cumsum into a `dtype` array: each partial sum is stored (and wraps) in `dtype`.
      const enc = contiguousData(view, astype) as TypedArray;
      const out = allocTypedArray(dtype, enc.length);
      const o = out as unknown as { [k: number]: number | bigint };
      for (let i = 0; i < enc.length; i++) {
        const e = enc[i] as number | bigint;
        if (i === 0) store(out, 0, e, dtype);
        else if (out instanceof BigInt64Array || out instanceof BigUint64Array) o[i] = (o[i - 1] as bigint) + BigInt(e);
        else store(out, i, f((o[i - 1] as number) + Number(e)), dtype);
      }
      return contiguousView(out, view.shape);
    },
  );
  return { codec, configuration: { dtype: typestrOf(conf, "dtype", dtype), astype: typestrOf(conf, "astype", astype) } };
};

export const fixedScaleOffsetCodec: CodecFactory = (conf, spec) => {
  const name = "numcodecs.fixedscaleoffset";
  const dtype = numericOption(conf, "dtype", name, spec.dtype);
  const astype = numericOption(conf, "astype", name, dtype);
  const scale = numberOption(conf, "scale", name);
  const offset = numberOption(conf, "offset", name);
  const f = arith(dtype);
  const g = arith(astype);
  const codec = new ElementFilter(
    name,
    dtype,
    astype,
    (view) => mapElements(view, dtype, astype, (x) => roundHalfEven(f(f(Number(x) - offset) * scale))),
    // enc / scale is float64 for integer codes (true division), float32 math for float32 codes.
    (view) => mapElements(view, astype, dtype, (x) => g(g(Number(x) / scale) + offset)),
  );
  return {
    codec,
    configuration: { scale, offset, dtype: typestrOf(conf, "dtype", dtype), astype: typestrOf(conf, "astype", astype) },
  };
};

export const quantizeCodec: CodecFactory = (conf, spec) => {
  const name = "numcodecs.quantize";
  const dtype = numericOption(conf, "dtype", name, spec.dtype);
  const astype = numericOption(conf, "astype", name, dtype);
  const digits = numberOption(conf, "digits", name);
  if (typeFamily(dtype) !== "float" || typeFamily(astype) !== "float") {
    throw new InvalidMetadataError(`codec "${name}": only floating point types are supported`);
  }
  // numcodecs: the power of two just finer than 10^-digits.
  const precision = 10 ** -digits;
  let exp = Math.log10(precision);
  exp = exp < 0 ? Math.floor(exp) : Math.ceil(exp);
  const bits = Math.ceil(Math.log2(10 ** -exp));
  const scale = 2 ** bits;
  const f = arith(dtype);
  const codec = new ElementFilter(
    name,
    dtype,
    astype,
    (view) => mapElements(view, dtype, astype, (x) => f(roundHalfEven(f(scale * Number(x))) / scale)),
    (view) => mapElements(view, astype, dtype, (x) => x),
  );
  return { codec, configuration: { digits, dtype: typestrOf(conf, "dtype", dtype), astype: typestrOf(conf, "astype", astype) } };
};

export const astypeCodec: CodecFactory = (conf, spec) => {
  const name = "numcodecs.astype";
  const decodeType = numericOption(conf, "decode_dtype", name, spec.dtype);
  const encodeType = numericOption(conf, "encode_dtype", name, undefined);
  const same = (x: number | bigint) => x;
  const codec = new ElementFilter(
    name,
    decodeType,
    encodeType,
    (view) => mapElements(view, decodeType, encodeType, same),
    (view) => mapElements(view, encodeType, decodeType, same),
  );
  return {
    codec,
    configuration: { encode_dtype: typestrOf(conf, "encode_dtype", encodeType), decode_dtype: typestrOf(conf, "decode_dtype", decodeType) },
  };
};

/** numcodecs' mantissa bits by float size. */
const MANTISSA: Record<number, number> = { 2: 10, 4: 23, 8: 52 };

export const bitroundCodec: CodecFactory = (conf, spec) => {
  const name = "bitround";
  const keepbits = conf.keepbits;
  if (typeof keepbits !== "number" || !Number.isInteger(keepbits) || keepbits < 0) {
    throw new InvalidMetadataError(`codec "${name}": "keepbits" must be an integer >= 0, got ${JSON.stringify(keepbits)}`);
  }
  const dt = spec.dtype;
  const isFloat = typeFamily(dt) === "float" && dt.kind === "numeric";
  const bits = MANTISSA[dt.itemSize];
  if (isFloat && keepbits > bits) throw new InvalidMetadataError(`codec "${name}": keepbits ${keepbits} is too large for ${dt.name}`);
  const codec: ArrayToArrayCodec = {
    kind: "array_to_array",
    name,
    encodedSpec: (s) => s,
    encode(view) {
      if (!isFloat || dt.name === "float16") {
        throw new UnsupportedError(`codec "${name}": writing ${dt.name} is not supported (float32 and float64 only); reading is`);
      }
      const src = contiguousData(view, dt) as Float32Array | Float64Array;
      const out = src.slice();
      if (keepbits === bits) return contiguousView(out, view.shape);
      const maskbits = bits - keepbits;
      if (out instanceof Float32Array) {
        const b = new Int32Array(out.buffer);
        const mask = (-1 >> maskbits) << maskbits;
        const half = (1 << (maskbits - 1)) - 1;
        for (let i = 0; i < b.length; i++) b[i] = ((b[i] + ((b[i] >> maskbits) & 1) + half) | 0) & mask;
      } else {
        const b = new BigInt64Array(out.buffer);
        const m = BigInt(maskbits);
        const mask = (-1n >> m) << m;
        const half = (1n << (m - 1n)) - 1n;
        for (let i = 0; i < b.length; i++) b[i] = BigInt.asIntN(64, b[i] + ((b[i] >> m) & 1n) + half) & mask;
      }
      return contiguousView(out, view.shape);
    },
    // Rounded values are ordinary floats: decoding has nothing to undo.
    decode: (view) => view,
  };
  return { codec, configuration: { keepbits } };
};
