/**
 * The zarr-extensions `scale_offset` codec (array->array): `(x - offset) * scale` on encode,
 * `x / scale + offset` on decode, in the array's own type (its fill-value JSON gives `offset`
 * and `scale`). Floats round to the type after each step, as numpy's arithmetic in that type
 * does; integers wrap as numpy's do, and a decode divides toward zero. Narrowing the result is
 * `cast_value`'s job, which usually follows.
 */
import { InvalidMetadataError } from "../../errors.js";
import { typeFamily, type TypedArray } from "../../metadata/dtype.js";
import { allocTypedArray } from "../../metadata/elements.js";
import { parseFillValue } from "../../metadata/fill-value.js";
import type { ArrayToArrayCodec, ChunkSpec, ChunkView, CodecFactory } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";
import { targetOf, type Target } from "./cast-value.js";

type Value = number | bigint;

/** The two maps of one type: encode and decode of a single value. */
function arithmetic(t: Target, offset: Value, scale: Value): { enc: (x: Value) => Value; dec: (x: Value) => Value } {
  if (t.float) {
    const r = t.float.round;
    const [o, s] = [Number(offset), Number(scale)];
    return { enc: (x) => r(r(Number(x) - o) * s), dec: (x) => r(r(Number(x) / s) + o) };
  }
  const { lo, bits, big } = t.int!;
  const wrap = (v: bigint): Value => {
    const w = lo < 0n ? BigInt.asIntN(Number(bits), v) : BigInt.asUintN(Number(bits), v);
    return big ? w : Number(w);
  };
  const [o, s] = [BigInt(offset), BigInt(scale)];
  return { enc: (x) => wrap((BigInt(x) - o) * s), dec: (x) => wrap(BigInt(x) / s + o) };
}

function scalarOption(raw: unknown, spec: ChunkSpec, field: string): Value {
  if (raw === undefined) throw new InvalidMetadataError(`codec "scale_offset": "${field}" is required`);
  const v = parseFillValue(raw, spec.dtype, `codec "scale_offset": "${field}"`);
  if (typeof v !== "number" && typeof v !== "bigint") throw new InvalidMetadataError(`codec "scale_offset": "${field}" must be a number of ${spec.dtype.name}`);
  return v;
}

export const scaleOffsetCodec: CodecFactory = (conf, spec) => {
  const extra = Object.keys(conf).find((k) => k !== "offset" && k !== "scale");
  if (extra) throw new InvalidMetadataError(`codec "scale_offset": unknown field "${extra}"`);
  const t = targetOf(spec.dtype, 'codec "scale_offset"');
  if (t.nat || typeFamily(spec.dtype) === "bool") throw new InvalidMetadataError(`codec "scale_offset" works on integer and float arrays, not ${spec.dtype.name}`);
  const offset = scalarOption(conf.offset, spec, "offset");
  const scale = scalarOption(conf.scale, spec, "scale");
  if (Number(scale) === 0) throw new InvalidMetadataError('codec "scale_offset": "scale" must not be 0 (decoding divides by it)');
  const { enc, dec } = arithmetic(t, offset, scale);
  const map = (view: ChunkView, f: (x: Value) => Value): ChunkView => {
    const src = contiguousData(view, spec.dtype) as TypedArray;
    const out = allocTypedArray(spec.dtype, src.length);
    const o = out as unknown as { [k: number]: Value };
    for (let i = 0; i < src.length; i++) o[i] = f(src[i] as Value);
    return contiguousView(out, view.shape);
  };
  const codec: ArrayToArrayCodec = {
    kind: "array_to_array",
    name: "scale_offset",
    // The fill value goes through the same arithmetic, so missing chunks read as the fill value.
    encodedSpec: (s) => ({ ...s, fillValue: s.fillValue === null ? null : enc(s.fillValue as Value) }),
    encode: (view) => map(view, enc),
    decode: (view) => map(view, dec),
  };
  return { codec, configuration: { offset: conf.offset!, scale: conf.scale! } };
};
