/**
 * The zarr-extensions `packbits` codec (array->bytes; codecs/packbits in zarr-developers/
 * zarr-extensions): each component keeps only its bits `first_bit..last_bit` (of its N-bit
 * little-endian form), and the kept bits of all components are laid end to end, least
 * significant bit of each byte first, padded with zeros to whole bytes; the padding count may
 * lead or end the stream. It is the packed form of the sub-byte types (bool 1 bit, int2/uint2 2,
 * int4/uint4/float4_e2m1fn 4, float6_* 6); wider types (datetimes too, as int64) pack their full
 * little-endian bytes, or a bit range of them. (numcodecs' v2 `packbits`, filters/packbits.ts, is another codec: bool
 * only, first value in the highest bit.)
 *
 * The bits come from, and go back through, the `bytes` codec in little-endian: one conversion
 * from memory for both codecs (a sub-byte code sits in the low bits of its byte there).
 */
import { CorruptChunkError, InvalidMetadataError } from "../errors.js";
import { componentsPerElement, subByteBits, typeFamily, type DataType } from "../metadata/dtype.js";
import { componentCodec } from "../metadata/narrow-float.js";
import type { JsonObject } from "../metadata/json.js";
import { product } from "../indexing/strided.js";
import { bytesCodec } from "./bytes.js";
import { enumOption } from "./config.js";
import type { ArrayToBytesCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import type { ScratchLease } from "../scratch.js";

const PADDING = ["none", "first_byte", "last_byte"] as const;
type Padding = (typeof PADDING)[number];

/** A component as the bytes codec stores it: `bytes` bytes of which the low `bits` are the value. */
interface ComponentForm {
  bits: number;
  bytes: number;
  /** Signed integers sign-extend a kept bit range on decode; everything else zero-extends. */
  signed: boolean;
}

function componentForm(dt: DataType): ComponentForm {
  const sub = subByteBits(dt);
  if (sub !== undefined) return { bits: sub, bytes: 1, signed: typeFamily(dt) === "int" };
  if (dt.kind === "narrow_float") {
    const codec = componentCodec(dt.component);
    return { bits: codec.bits, bytes: codec.bytes, signed: false };
  }
  if (dt.kind === "numeric") {
    if (dt.name === "bool") return { bits: 1, bytes: 1, signed: false };
    const bytes = dt.itemSize / componentsPerElement(dt);
    return { bits: 8 * bytes, bytes, signed: typeFamily(dt) === "int" };
  }
  // numpy datetime64/timedelta64 pack as the signed int64 counts they are (as zarrs does).
  if (dt.kind === "datetime") return { bits: 64, bytes: 8, signed: true };
  throw new InvalidMetadataError(`codec "packbits" packs numbers, not ${dt.name}`);
}

function bitOption(conf: JsonObject, field: string, def: number, max: number): number {
  const v = conf[field] ?? def;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
    throw new InvalidMetadataError(`codec "packbits": "${field}" must be null or an integer from 0 to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

class PackbitsCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name = "packbits";
  constructor(
    private readonly form: ComponentForm,
    private readonly first: number,
    private readonly last: number,
    private readonly padding: Padding,
    private readonly plain: ArrayToBytesCodec,
  ) {
    for (let b = first >> 3; b <= last >> 3; b++) {
      const lo = Math.max(first, 8 * b);
      const width = Math.min(last, 8 * b + 7) - lo + 1;
      this.steps.push({ byte: b, shift: lo - 8 * b, width, mask: (1 << width) - 1 });
    }
  }

  /** The kept bits of a component, one stored byte at a time: at most 8 bits per step. */
  private readonly steps: { byte: number; shift: number; width: number; mask: number }[] = [];

  private layout(spec: ChunkSpec): { components: number; bits: number; body: number; offset: number; size: number } {
    const components = product(spec.shape) * componentsPerElement(spec.dtype);
    const bits = components * (this.last - this.first + 1);
    const body = Math.ceil(bits / 8);
    const extra = this.padding === "none" ? 0 : 1;
    return { components, bits, body, offset: this.padding === "first_byte" ? 1 : 0, size: body + extra };
  }

  async encode(view: ChunkView, spec: ChunkSpec, scratch?: ScratchLease): Promise<Uint8Array> {
    const stored = await this.plain.encode(view, spec, scratch);
    const { components, bits, body, offset, size } = this.layout(spec);
    const out = new Uint8Array(size);
    const { bytes } = this.form;
    let pos = offset * 8;
    for (let c = 0; c < components; c++) {
      const base = c * bytes;
      for (const { byte, shift, width, mask } of this.steps) {
        const v = (stored[base + byte] >> shift) & mask;
        const i = pos >> 3;
        const s = pos & 7;
        out[i] |= v << s;
        if (s + width > 8) out[i + 1] |= v >> (8 - s);
        pos += width;
      }
    }
    if (this.padding !== "none") out[this.padding === "first_byte" ? 0 : body] = (8 - (bits % 8)) % 8;
    return out;
  }

  decode(packed: Uint8Array, spec: ChunkSpec): ChunkView | Promise<ChunkView> {
    const { components, bits, body, offset, size } = this.layout(spec);
    if (packed.length !== size) throw new CorruptChunkError(`packbits: expected ${size} bytes for ${components} components, got ${packed.length}`);
    if (this.padding !== "none") {
      const said = packed[this.padding === "first_byte" ? 0 : body];
      if (said !== (8 - (bits % 8)) % 8) throw new CorruptChunkError(`packbits: the padding byte says ${said} bits, the chunk has ${(8 - (bits % 8)) % 8}`);
    }
    const { bytes, signed } = this.form;
    const stored = new Uint8Array(components * bytes);
    let pos = offset * 8;
    for (let c = 0; c < components; c++) {
      const base = c * bytes;
      for (const { byte, shift, width, mask } of this.steps) {
        const i = pos >> 3;
        const s = pos & 7;
        let v = packed[i] >> s;
        if (s + width > 8) v |= packed[i + 1] << (8 - s);
        stored[base + byte] |= (v & mask) << shift;
        pos += width;
      }
      // A negative value whose top bits were dropped: its kept top bit fills the rest.
      if (signed && this.last < this.form.bits - 1 && (stored[base + (this.last >> 3)] >> (this.last & 7)) & 1) {
        for (let k = this.last + 1; k < this.form.bits; k++) stored[base + (k >> 3)] |= 1 << (k & 7);
      }
    }
    return this.plain.decode(stored, spec);
  }
}

export const packbitsV3Codec: CodecFactory = (conf, spec, chain) => {
  const form = componentForm(spec.dtype);
  const padding = enumOption(conf, "padding_encoding", "packbits", PADDING, "none");
  const first = bitOption(conf, "first_bit", 0, form.bits - 1);
  const last = bitOption(conf, "last_bit", form.bits - 1, form.bits - 1);
  if (last < first) throw new InvalidMetadataError(`codec "packbits": "last_bit" (${last}) is less than "first_bit" (${first})`);
  // The bits are those of the little-endian form, whatever the host.
  const plain = bytesCodec({ endian: "little" }, spec, chain).codec as ArrayToBytesCodec;
  const configuration: JsonObject = { padding_encoding: padding };
  if (conf.first_bit !== undefined && conf.first_bit !== null) configuration.first_bit = first;
  if (conf.last_bit !== undefined && conf.last_bit !== null) configuration.last_bit = last;
  return { codec: new PackbitsCodec(form, first, last, padding, plain), configuration };
};
