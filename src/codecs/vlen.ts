/**
 * `vlen-utf8` and `vlen-bytes` (array->bytes): numcodecs' variable-length layout, shared by v2
 * object arrays and v3 `string` / `variable_length_bytes`: a little-endian uint32 item count,
 * then per item a uint32 byte length and the bytes (UTF-8 for strings), in C order. zarrs'
 * `zarrs.vlen_v2` and `vlen-array` (`numcodecs.vlen-array`) are the same layout; every one of
 * them stores strings or byte strings alike, the data type saying which the elements are.
 */
import { CorruptChunkError, InvalidMetadataError, UnsupportedError } from "../errors.js";
import { product } from "../indexing/strided.js";
import type { ArrayToBytesCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView } from "./view.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The vlen layout of `items` (also used to present archival strings as vlen-utf8 chunks). */
export function vlenFrame(items: Uint8Array[]): Uint8Array {
  let total = 4;
  for (const b of items) total += 4 + b.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, items.length, true);
  let pos = 4;
  for (const b of items) {
    view.setUint32(pos, b.length, true);
    out.set(b, pos + 4);
    pos += 4 + b.length;
  }
  return out;
}

function unframe(bytes: Uint8Array, expected: number): Uint8Array[] {
  if (bytes.length < 4) throw new CorruptChunkError(`vlen: ${bytes.length} bytes is too short for the item count`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true);
  if (n !== expected) throw new CorruptChunkError(`vlen: chunk holds ${n} items, expected ${expected}`);
  const items = new Array<Uint8Array>(n);
  let pos = 4;
  for (let i = 0; i < n; i++) {
    if (pos + 4 > bytes.length) throw new CorruptChunkError(`vlen: truncated at item ${i}`);
    const len = view.getUint32(pos, true);
    pos += 4;
    if (pos + len > bytes.length) throw new CorruptChunkError(`vlen: item ${i} of ${len} bytes runs past the end`);
    items[i] = bytes.subarray(pos, pos + len);
    pos += len;
  }
  return items;
}

/** A chunk's elements as bytes (UTF-8 for strings), in C order. */
export function elementBytes(view: ChunkView, spec: ChunkSpec): Uint8Array[] {
  const data = contiguousData(view, spec.dtype) as (string | Uint8Array)[];
  return data.map((v) => (typeof v === "string" ? encoder.encode(v) : v));
}

/** Items of a decoded chunk as the elements of its type: strings (checked UTF-8) or copies of the bytes. */
export function elementsOf(items: Uint8Array[], spec: ChunkSpec, codec: string): ChunkView {
  if (spec.dtype.kind === "string") {
    const strings = items.map((b, i) => {
      try {
        return decoder.decode(b);
      } catch (cause) {
        throw new CorruptChunkError(`${codec}: item ${i} is not valid UTF-8`, { cause });
      }
    });
    return contiguousView(strings, spec.shape);
  }
  const dt = spec.dtype;
  if (dt.kind === "vlen_array") {
    const bad = items.findIndex((b) => b.length % dt.element.itemSize !== 0);
    if (bad >= 0) throw new CorruptChunkError(`${codec}: item ${bad} of ${items[bad].length} bytes is not whole ${dt.element.name} values`);
  }
  // Copies: the items must not pin (or alias) the chunk's decompressed buffer.
  return contiguousView(items.map((b) => b.slice()), spec.shape);
}

class VlenCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  constructor(readonly name: string) {}

  encode(view: ChunkView, spec: ChunkSpec): Uint8Array {
    return vlenFrame(elementBytes(view, spec));
  }

  decode(bytes: Uint8Array, spec: ChunkSpec): ChunkView {
    return elementsOf(unframe(bytes, product(spec.shape)), spec, this.name);
  }
}

const STRINGS_OR_BYTES = ["string", "bytes"] as const;
const VARIABLE = [...STRINGS_OR_BYTES, "vlen_array"] as const;

/** Checks that `spec` holds variable-length elements of `kinds` (strings, byte strings, v2 vlen-array numbers) for codec `name`. */
export function checkVariableLength(name: string, spec: ChunkSpec, kinds: readonly string[] = VARIABLE): void {
  if (!kinds.includes(spec.dtype.kind)) throw new InvalidMetadataError(`codec "${name}" needs a ${kinds.join(" or ")} array, not ${spec.dtype.name}`);
}

/** The layout is one whatever the elements: zarrs reads vlen-utf8 over bytes and vlen-bytes over strings, and so do we. */
function vlenFactory(name: string, kinds: readonly string[], strict: boolean): CodecFactory {
  return (conf, spec) => {
    checkVariableLength(name, spec, kinds);
    // zarrs' own codecs take no configuration; v2's vlen-array `dtype` lives in the data type (VlenArrayDataType).
    if (strict && Object.keys(conf).length > 0) throw new UnsupportedError(`codec "${name}": configuration ${JSON.stringify(conf)} is not supported (zarrs writes {})`);
    return { codec: new VlenCodec(name), configuration: {} };
  };
}

export const vlenUtf8Codec = vlenFactory("vlen-utf8", STRINGS_OR_BYTES, false);
export const vlenBytesCodec = vlenFactory("vlen-bytes", STRINGS_OR_BYTES, false);
/** zarrs' `zarrs.vlen_v2` and `vlen-array`: the same layout, over any variable-length elements. */
export const vlenV2Codec = vlenFactory("zarrs.vlen_v2", VARIABLE, true);
export const vlenArrayCodec = vlenFactory("vlen-array", VARIABLE, true);
