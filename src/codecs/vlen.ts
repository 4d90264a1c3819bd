/**
 * `vlen-utf8` and `vlen-bytes` (array->bytes): numcodecs' variable-length layout, shared by v2
 * object arrays and v3 `string` / `variable_length_bytes`: a little-endian uint32 item count,
 * then per item a uint32 byte length and the bytes (UTF-8 for strings), in C order.
 */
import { CorruptChunkError, InvalidMetadataError } from "../errors.js";
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

class VlenCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  constructor(readonly name: "vlen-utf8" | "vlen-bytes") {}

  encode(view: ChunkView, spec: ChunkSpec): Uint8Array {
    const data = contiguousData(view, spec.dtype) as (string | Uint8Array)[];
    const items = data.map((v) => (typeof v === "string" ? encoder.encode(v) : v));
    return vlenFrame(items);
  }

  decode(bytes: Uint8Array, spec: ChunkSpec): ChunkView {
    const items = unframe(bytes, product(spec.shape));
    // The array's type, not the codec's name, says what an item is (zarrs writes either over either).
    if (spec.dtype.kind === "string") {
      const strings = items.map((b, i) => {
        try {
          return decoder.decode(b);
        } catch (cause) {
          throw new CorruptChunkError(`${this.name}: item ${i} is not valid UTF-8`, { cause });
        }
      });
      return contiguousView(strings, spec.shape);
    }
    // Copies: the items must not pin (or alias) the chunk's decompressed buffer.
    return contiguousView(items.map((b) => b.slice()), spec.shape);
  }
}

/** Either codec frames either type (zarrs accepts vlen-utf8 over bytes and vlen-bytes over strings). */
function vlenFactory(name: "vlen-utf8" | "vlen-bytes"): CodecFactory {
  return (_conf, spec) => {
    if (spec.dtype.kind !== "string" && spec.dtype.kind !== "bytes") {
      throw new InvalidMetadataError(`codec "${name}" needs a string or variable_length_bytes array, not ${spec.dtype.name}`);
    }
    return { codec: new VlenCodec(name), configuration: {} };
  };
}

export const vlenUtf8Codec = vlenFactory("vlen-utf8");
export const vlenBytesCodec = vlenFactory("vlen-bytes");
