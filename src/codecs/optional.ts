/**
 * zarrs' `optional` codec (array->bytes, also `zarrs.optional`; codec.zarrs.dev/array_to_bytes/
 * optional), the one that stores the `optional` data type: a u64 LE length of the encoded mask, a
 * u64 LE length of the encoded data, the mask (a bool per element, 1 present, through
 * `mask_codecs`), then only the present elements as a 1-d array of the inner type (through
 * `data_codecs`; nothing when none is present). A nested optional's data chain is another
 * `optional` codec; a string or bytes one's is a variable-length codec (vlen-utf8, vlen-bytes).
 * Memory holds each element's inner components then its mask, or over a variable-length type
 * one JS value per element, null when missing (see dtype.ts).
 */
import { CorruptChunkError, InvalidMetadataError } from "../errors.js";
import { componentsPerElement, isObjectType, unwrapPresent, wrapPresent, type DataType, type ElementArray, type OptionalDataType, type Scalar, type TypedArray } from "../metadata/dtype.js";
import { parseDataType } from "../metadata/dtype-names.js";
import { allocElements } from "../metadata/elements.js";
import { zeroOf } from "../metadata/fill-value.js";
import { product } from "../indexing/strided.js";
import type { CodecConfig } from "../metadata/array-metadata.js";
import { codecList, codecListJson } from "./config.js";
import { readU64 } from "../u64.js";
import type { ArrayToBytesCodec, ChainBuilder, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView } from "./view.js";

const BOOL = parseDataType("bool");
type Chain = ReturnType<ChainBuilder>;

class OptionalCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name = "optional";
  constructor(
    private readonly mask: Chain,
    private readonly data: CodecConfig[],
    private readonly inner: DataType,
    private readonly chain: ChainBuilder,
  ) {}

  /** The data chain for `count` present elements: its shape is known only per chunk. */
  private dataChain(count: number): Chain {
    return this.chain(this.data, { shape: [count], dtype: this.inner, fillValue: zeroOf(this.inner) });
  }

  async encode(view: ChunkView, spec: ChunkSpec): Promise<Uint8Array> {
    const { mask, sparse, present } = split(contiguousData(view, spec.dtype), spec.dtype as OptionalDataType, product(view.shape));
    const maskBytes = await this.mask.encode(contiguousView(mask, view.shape));
    const dataBytes = present > 0 ? await this.dataChain(present).encode(contiguousView(sparse, [present])) : new Uint8Array(0);
    const out = new Uint8Array(16 + maskBytes.length + dataBytes.length);
    const dv = new DataView(out.buffer);
    dv.setBigUint64(0, BigInt(maskBytes.length), true);
    dv.setBigUint64(8, BigInt(dataBytes.length), true);
    out.set(maskBytes, 16);
    out.set(dataBytes, 16 + maskBytes.length);
    return out;
  }

  async decode(bytes: Uint8Array, spec: ChunkSpec): Promise<ChunkView> {
    if (bytes.length < 16) throw new CorruptChunkError(`optional: ${bytes.length} bytes is too short for the 16-byte header`);
    const m = readU64(bytes, 0);
    const dataLength = readU64(bytes, 8);
    if (16 + m + dataLength !== bytes.length) {
      throw new CorruptChunkError(`optional: header says ${m} mask and ${dataLength} data bytes, the chunk has ${bytes.length - 16} after it`);
    }
    const n = product(spec.shape);
    const mask = contiguousData(await this.mask.decode(bytes.subarray(16, 16 + m)), BOOL) as Uint8Array;
    if (mask.length !== n) throw new CorruptChunkError(`optional: the mask has ${mask.length} elements, the chunk ${n}`);
    let present = 0;
    for (let i = 0; i < n; i++) if (mask[i]) present++;
    const dataBytes = bytes.subarray(16 + m);
    if (present === 0) {
      if (dataBytes.length > 0) throw new CorruptChunkError(`optional: ${dataBytes.length} data bytes for no present element`);
      return contiguousView(allocElements(spec.dtype, n), spec.shape);
    }
    const sparse = contiguousData(await this.dataChain(present).decode(dataBytes), this.inner);
    const c = componentsPerElement(this.inner);
    if (sparse.length !== present * c) throw new CorruptChunkError(`optional: the data holds ${sparse.length / c} elements, the mask marks ${present} present`);
    return contiguousView(join(mask, sparse, spec.dtype as OptionalDataType, n), spec.shape);
  }
}

/**
 * An optional chunk's `n` elements as its mask and its present elements only (the inner type's
 * memory): from the mask component after each element's components, or, where memory holds JS
 * values, from null (missing) or the value (unwrapped once for a nested optional).
 */
function split(data: ElementArray, dt: OptionalDataType, n: number): { mask: Uint8Array; sparse: ElementArray; present: number } {
  const mask = new Uint8Array(n);
  let present = 0;
  if (isObjectType(dt)) {
    const items = data as Scalar[];
    const sparse: Scalar[] = [];
    for (let i = 0; i < n; i++) if (items[i] !== null) (mask[i] = 1), sparse.push(unwrapPresent(items[i], dt)!), present++;
    return { mask, sparse, present };
  }
  const t = data as TypedArray;
  const c = componentsPerElement(dt);
  for (let i = 0; i < n; i++) if (t[i * c + c - 1]) (mask[i] = 1), present++;
  const sparse = allocElements(dt.inner, present) as TypedArray;
  for (let i = 0, j = 0; i < n; i++) if (mask[i]) (sparse as Uint8Array).set(t.subarray(i * c, i * c + c - 1) as Uint8Array, j++ * (c - 1));
  return { mask, sparse, present };
}

/** The inverse of `split`: `n` elements, missing ones as the type's zero (all-zero components, or null). */
function join(mask: Uint8Array, sparse: ElementArray, dt: OptionalDataType, n: number): ElementArray {
  const out = allocElements(dt, n);
  if (isObjectType(dt)) {
    const items = out as Scalar[];
    for (let i = 0, j = 0; i < n; i++) if (mask[i]) items[i] = wrapPresent((sparse as Scalar[])[j++], dt);
    return items;
  }
  const t = out as TypedArray;
  const c = componentsPerElement(dt);
  const one = typeof t[0] === "bigint" ? 1n : 1;
  for (let i = 0, j = 0; i < n; i++) {
    if (!mask[i]) continue;
    (t as Uint8Array).set((sparse as TypedArray).subarray(j * (c - 1), ++j * (c - 1)) as Uint8Array, i * c);
    (t as unknown as { [k: number]: number | bigint })[i * c + c - 1] = one;
  }
  return t;
}

export const optionalCodec: CodecFactory = (conf, spec, chain) => {
  const dt = spec.dtype;
  if (dt.kind !== "optional") throw new InvalidMetadataError(`codec "optional" needs an optional data type, not ${dt.name}`);
  const extra = Object.keys(conf).find((k) => k !== "mask_codecs" && k !== "data_codecs");
  if (extra) throw new InvalidMetadataError(`codec "optional": unknown field "${extra}"`);
  const mask = chain(codecList(conf.mask_codecs, "mask_codecs", "optional"), { shape: spec.shape, dtype: BOOL, fillValue: false });
  // Built once here to check the data chain (and normalise it) for the chunk's largest count.
  const data = chain(codecList(conf.data_codecs, "data_codecs", "optional"), { shape: [Math.max(1, product(spec.shape))], dtype: dt.inner, fillValue: zeroOf(dt.inner) });
  const codec = new OptionalCodec(mask, data.configs, dt.inner, chain);
  return { codec, configuration: { mask_codecs: codecListJson(mask.configs), data_codecs: codecListJson(data.configs) } };
};
