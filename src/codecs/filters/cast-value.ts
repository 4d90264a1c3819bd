/**
 * The zarr-extensions `cast_value` codec (array->array): each value becomes the nearest value of
 * another numeric type (`data_type`), by value, not by bits. Casting to an integer rounds by
 * `rounding`; a value outside the target's range is an error, clamped or wrapped (modulo 2^bits)
 * by `out_of_range`; NaN (and NaT, which counts as NaN) where the target has none is always an
 * error. `scalar_map` (as zarrs writes it) lists exact values to map first, per direction.
 * Decoding casts back with the same rules; a stored value that cannot be cast back is corrupt.
 */
import { CorruptChunkError, InvalidArgumentError, InvalidMetadataError, UnsupportedError } from "../../errors.js";
import { NAT, integerRange, typeFamily, type DataType, type Scalar, type TypedArray } from "../../metadata/dtype.js";
import { parseDataType, v3DataTypeJson } from "../../metadata/dtype-names.js";
import { allocTypedArray } from "../../metadata/elements.js";
import { parseFillValue } from "../../metadata/fill-value.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../metadata/json.js";
import { componentCodec, roundToComponent } from "../../metadata/narrow-float.js";
import type { ArrayToArrayCodec, ChunkSpec, ChunkView, CodecFactory } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";
import { enumOption } from "../config.js";
import { roundHalfEven } from "./elementwise.js";

const ROUNDING = ["nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away"] as const;
const RANGE = ["error", "clamp", "wrap"] as const;
type Rounding = (typeof ROUNDING)[number];
type OutOfRange = (typeof RANGE)[number];
type Value = number | bigint;

const ROUND: Record<Rounding, (x: number) => number> = {
  "nearest-even": roundHalfEven,
  "towards-zero": Math.trunc,
  "towards-positive": Math.ceil,
  "towards-negative": Math.floor,
  "nearest-away": (x) => Math.sign(x) * Math.round(Math.abs(x)),
};

/** What a cast needs of a type: its integer range and bits, or its float rounding and largest finite value. */
export interface Target {
  dtype: DataType;
  int?: { lo: bigint; hi: bigint; bits: bigint; big: boolean };
  float?: { round: (x: number) => number; max: number };
  /** numpy datetime64/timedelta64: int64 whose NaT is NaN. */
  nat: boolean;
}

const FLOAT_MAX: Record<string, number> = { float16: 65504, float32: 3.4028234663852886e38, float64: Number.MAX_VALUE };

export function targetOf(dt: DataType, where: string): Target {
  const family = typeFamily(dt);
  if (dt.kind === "datetime") return { dtype: dt, int: { lo: NAT + 1n, hi: 2n ** 63n - 1n, bits: 64n, big: true }, nat: true };
  if (family === "bool") return { dtype: dt, int: { lo: 0n, hi: 1n, bits: 1n, big: false }, nat: false };
  const range = integerRange(dt);
  if (range) {
    const bits = BigInt(range[1] - range[0]).toString(2).length;
    return { dtype: dt, int: { lo: range[0], hi: range[1], bits: BigInt(bits), big: dt.itemSize === 8 }, nat: false };
  }
  if (family === "float" && dt.kind === "numeric") {
    const round = dt.name === "float16" ? (x: number) => roundToComponent("float16", x) : dt.name === "float32" ? Math.fround : (x: number) => x;
    return { dtype: dt, float: { round, max: FLOAT_MAX[dt.name] }, nat: false };
  }
  if (family === "float" && dt.kind === "narrow_float") {
    const c = componentCodec(dt.component);
    let max = 0;
    for (const v of c.table) if (Number.isFinite(v) && v > max) max = v;
    return { dtype: dt, float: { round: (x) => roundToComponent(dt.component, x), max }, nat: false };
  }
  throw new UnsupportedError(`${where}: casting ${dt.name} values is not supported (integers, floats, bool and datetimes only)`);
}

/** A value as a number or bigint; NaT as NaN; bool as 0/1. */
function plain(v: Scalar | Value, from: Target): Value {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (from.nat && v === NAT) return NaN;
  return v as Value;
}

/** One value of `from` cast to `to`; `fail` says why it cannot be. */
function castOne(x: Value, to: Target, rounding: Rounding, mode: OutOfRange, fail: (why: string) => never): Value {
  if (to.float) {
    const n = Number(x);
    const r = to.float.round(n);
    if (Number.isNaN(n)) return Number.isNaN(r) ? r : fail(`NaN has no ${to.dtype.name} value`);
    // In range, or an infinity the target has.
    if (Math.abs(r) <= to.float.max || (!Number.isFinite(n) && r === n)) return r;
    if (mode === "clamp") return Math.sign(n) * to.float.max;
    return fail(`${n} is outside the range of ${to.dtype.name}`);
  }
  const { lo, hi, bits, big } = to.int!;
  if (typeof x === "number" && Number.isNaN(x)) {
    if (to.nat) return NAT;
    return fail(`NaN has no ${to.dtype.name} value`);
  }
  if (typeof x === "number" && !Number.isFinite(x)) {
    if (mode === "clamp") return big ? (x > 0 ? hi : lo) : Number(x > 0 ? hi : lo);
    return fail(`${x} is outside the range of ${to.dtype.name}`);
  }
  const i = typeof x === "bigint" ? x : ROUND[rounding](x);
  if (!big && typeof i === "number" && i >= Number(lo) && i <= Number(hi)) return i === 0 ? 0 : i;
  let b = BigInt(i);
  if (b < lo || b > hi) {
    if (mode === "clamp") b = b < lo ? lo : hi;
    else if (mode === "wrap") b = lo < 0n ? BigInt.asIntN(Number(bits), b) : BigInt.asUintN(Number(bits), b);
    else fail(`${x} is outside the range of ${to.dtype.name}`);
  }
  return big ? b : Number(b);
}

/** A scalar_map direction: exact values of `from` and what they become in `to`, keyed by their text. */
function scalarMap(raw: JsonValue | undefined, from: DataType, to: DataType, where: string): Map<string, Value> | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw)) throw new InvalidMetadataError(`${where} must be a list of [from, to] pairs`);
  const map = new Map<string, Value>();
  for (const pair of raw) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new InvalidMetadataError(`${where}: ${JSON.stringify(pair)} is not a [from, to] pair`);
    const key = keyOf(plain(parseFillValue(pair[0], from, where), targetOf(from, where)));
    if (!map.has(key)) map.set(key, plain(parseFillValue(pair[1], to, where), { dtype: to, nat: false }));
  }
  return map;
}

function keyOf(v: Value): string {
  return Object.is(v, -0) ? "-0" : String(v);
}

/** What a cast_value codec does, in both directions. */
interface CastPlan {
  decoded: Target;
  encoded: Target;
  rounding: Rounding;
  mode: OutOfRange;
  maps: { encode: Map<string, Value> | null; decode: Map<string, Value> | null };
}

class CastValueCodec implements ArrayToArrayCodec {
  readonly kind = "array_to_array";
  readonly name = "cast_value";
  private readonly decoded: Target;
  private readonly encoded: Target;
  constructor(private readonly plan: CastPlan) {
    this.decoded = plan.decoded;
    this.encoded = plan.encoded;
  }

  encodedSpec(spec: ChunkSpec): ChunkSpec {
    const fill = this.cast(spec.fillValue ?? 0, this.decoded, this.encoded, this.plan.maps.encode, (why) => {
      throw new InvalidMetadataError(`codec "cast_value": the fill value cannot be cast: ${why}`);
    });
    return { shape: spec.shape, dtype: this.encoded.dtype, fillValue: typeFamily(this.encoded.dtype) === "bool" ? fill === 1 : fill };
  }

  /** One value, through the map first. */
  cast(v: Scalar, from: Target, to: Target, map: Map<string, Value> | null, fail: (why: string) => never): Value {
    const x = plain(v, from);
    const mapped = map?.get(keyOf(x));
    if (mapped !== undefined) return mapped;
    return castOne(x, to, this.plan.rounding, this.plan.mode, fail);
  }

  private castView(view: ChunkView, from: Target, to: Target, map: Map<string, Value> | null, fail: (why: string) => never): ChunkView {
    const src = contiguousData(view, from.dtype) as TypedArray;
    const out = allocTypedArray(to.dtype, src.length);
    const o = out as unknown as { [k: number]: Value };
    for (let i = 0; i < src.length; i++) o[i] = this.cast(src[i] as Value, from, to, map, fail);
    return contiguousView(out, view.shape);
  }

  encode(view: ChunkView): ChunkView {
    return this.castView(view, this.decoded, this.encoded, this.plan.maps.encode, (why) => {
      throw new InvalidArgumentError(`codec "cast_value": cannot store a value as ${this.encoded.dtype.name}: ${why}`);
    });
  }

  decode(view: ChunkView): ChunkView {
    return this.castView(view, this.encoded, this.decoded, this.plan.maps.decode, (why) => {
      throw new CorruptChunkError(`cast_value: a stored ${this.encoded.dtype.name} value does not cast back to ${this.decoded.dtype.name}: ${why}`);
    });
  }
}

export const castValueCodec: CodecFactory = (conf, spec) => {
  const where = 'codec "cast_value"';
  const extra = Object.keys(conf).find((k) => !["data_type", "rounding", "out_of_range", "scalar_map"].includes(k));
  if (extra) throw new InvalidMetadataError(`${where}: unknown field "${extra}"`);
  if (conf.data_type === undefined) throw new InvalidMetadataError(`${where}: "data_type" is required`);
  const encoded = targetOf(parseDataType(conf.data_type, `${where}: "data_type"`), where);
  const decoded = targetOf(spec.dtype, where);
  const rounding = enumOption(conf, "rounding", "cast_value", ROUNDING, "nearest-even");
  const mode = enumOption(conf, "out_of_range", "cast_value", RANGE, "error");
  if (mode === "wrap" && !encoded.int) throw new InvalidMetadataError(`${where}: "out_of_range": "wrap" needs an integer data_type, not ${encoded.dtype.name}`);
  const raw = conf.scalar_map;
  if (raw !== undefined && !isJsonObject(raw)) throw new InvalidMetadataError(`${where}: "scalar_map" must be an object`);
  const maps = {
    encode: scalarMap(raw?.encode, decoded.dtype, encoded.dtype, `${where}: "scalar_map.encode"`),
    decode: scalarMap(raw?.decode, encoded.dtype, decoded.dtype, `${where}: "scalar_map.decode"`),
  };
  const codec = new CastValueCodec({ decoded, encoded, rounding, mode, maps });
  codec.encodedSpec(spec);
  const configuration: JsonObject = { data_type: v3DataTypeJson(encoded.dtype) as JsonValue };
  for (const k of ["rounding", "out_of_range", "scalar_map"]) if (conf[k] !== undefined) configuration[k] = conf[k];
  return { codec, configuration };
};
