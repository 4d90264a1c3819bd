/**
 * zarrs' `zarrs.vlen` codec (array->bytes; codec.zarrs.dev/array_to_bytes/vlen) over `string` and
 * `variable_length_bytes` arrays. The chunk's elements' bytes are concatenated; an index of N + 1
 * offsets (Arrow's variable-size binary layout: element j is bytes offsets[j]..offsets[j+1]),
 * `uint32` or `uint64`, goes through `index_codecs` as a 1-d array, the bytes through
 * `data_codecs` as a 1-d uint8 array (nothing when empty). The chunk is a u64 LE length of the
 * encoded index, the encoded index, then the encoded data (`index_location` "start", the default
 * of zarrs' first draft that had no such field), or the data, the index, then its length ("end").
 */
import { CorruptChunkError, InvalidMetadataError, TooLargeError } from "../errors.js";
import { parseDataType } from "../metadata/dtype-names.js";
import { getMaxChunkBytes } from "../limits.js";
import { readU64 } from "../u64.js";
import { product } from "../indexing/strided.js";
import type { CodecConfig } from "../metadata/array-metadata.js";
import { codecList, codecListJson, enumOption } from "./config.js";
import type { ArrayToBytesCodec, ChainBuilder, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView } from "./view.js";
import { checkVariableLength, elementBytes, elementsOf } from "./vlen.js";

const NAME = "zarrs.vlen";
const UINT8 = parseDataType("uint8");
type Chain = ReturnType<ChainBuilder>;

class ZarrsVlenCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name = NAME;
  constructor(
    private readonly index: Chain,
    private readonly wide: boolean,
    private readonly atStart: boolean,
    private readonly data: CodecConfig[],
    private readonly chain: ChainBuilder,
  ) {}

  /** The data chain for `length` bytes: its shape is known only per chunk. */
  private dataChain(length: number): Chain {
    return this.chain(this.data, { shape: [length], dtype: UINT8, fillValue: 0 });
  }

  async encode(view: ChunkView, spec: ChunkSpec): Promise<Uint8Array> {
    const items = elementBytes(view, spec);
    let total = 0;
    for (const b of items) total += b.length;
    if (!this.wide && total > 0xffffffff) throw new TooLargeError(`${NAME}: ${total} bytes of elements need a uint64 index_data_type`);
    const offsets = this.wide ? new BigUint64Array(items.length + 1) : new Uint32Array(items.length + 1);
    const bytes = new Uint8Array(total);
    let at = 0;
    items.forEach((b, i) => {
      bytes.set(b, at);
      at += b.length;
      offsets[i + 1] = this.wide ? BigInt(at) : at;
    });
    const index = await this.index.encode(contiguousView(offsets, [offsets.length]));
    const data = total > 0 ? await this.dataChain(total).encode(contiguousView(bytes, [total])) : new Uint8Array(0);
    const out = new Uint8Array(8 + index.length + data.length);
    const lengthAt = this.atStart ? 0 : out.length - 8;
    new DataView(out.buffer).setBigUint64(lengthAt, BigInt(index.length), true);
    out.set(index, this.atStart ? 8 : data.length);
    out.set(data, this.atStart ? 8 + index.length : 0);
    return out;
  }

  async decode(bytes: Uint8Array, spec: ChunkSpec): Promise<ChunkView> {
    if (bytes.length < 8) throw new CorruptChunkError(`${NAME}: ${bytes.length} bytes is too short for the index length`);
    const k = readU64(bytes, this.atStart ? 0 : bytes.length - 8);
    if (k > bytes.length - 8) throw new CorruptChunkError(`${NAME}: an index of ${k} bytes does not fit the ${bytes.length}-byte chunk`);
    const body = this.atStart ? bytes.subarray(8) : bytes.subarray(0, bytes.length - 8);
    const indexBytes = this.atStart ? body.subarray(0, k) : body.subarray(body.length - k);
    const dataBytes = this.atStart ? body.subarray(k) : body.subarray(0, body.length - k);
    const n = product(spec.shape);
    const raw = contiguousData(await this.index.decode(indexBytes), this.index.spec.dtype) as Uint32Array | BigUint64Array;
    if (raw.length !== n + 1) throw new CorruptChunkError(`${NAME}: the index has ${raw.length} offsets, expected ${n + 1}`);
    const offsets = Array.from(raw as ArrayLike<number | bigint>, Number);
    const length = offsets[n];
    // The data chain is told this length; a hostile index must not make it allocate past the limit.
    if (length > getMaxChunkBytes()) throw new TooLargeError(`${NAME}: the index gives ${length} bytes of elements, over the ${getMaxChunkBytes()}-byte chunk limit`);
    const data = length > 0 ? (contiguousData(await this.dataChain(length).decode(dataBytes), UINT8) as Uint8Array) : new Uint8Array(0);
    if (data.length !== length) throw new CorruptChunkError(`${NAME}: the data has ${data.length} bytes, the index says ${length}`);
    const items = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) {
      if (offsets[i + 1] < offsets[i]) throw new CorruptChunkError(`${NAME}: offset ${i + 1} (${offsets[i + 1]}) is before offset ${i} (${offsets[i]})`);
      items[i] = data.subarray(offsets[i], offsets[i + 1]);
    }
    return elementsOf(items, spec, NAME);
  }
}

export const zarrsVlenCodec: CodecFactory = (conf, spec, chain) => {
  checkVariableLength(NAME, spec);
  const known = new Set(["index_codecs", "data_codecs", "index_data_type", "index_location"]);
  const extra = Object.keys(conf).find((key) => !known.has(key));
  if (extra) throw new InvalidMetadataError(`codec "${NAME}": unknown field "${extra}"`);
  if (conf.index_data_type === undefined) throw new InvalidMetadataError(`codec "${NAME}": "index_data_type" is required`);
  const indexType = enumOption(conf, "index_data_type", NAME, ["uint32", "uint64"] as const, "uint64");
  const location = enumOption(conf, "index_location", NAME, ["start", "end"] as const, "start");
  const n = product(spec.shape);
  const index = chain(codecList(conf.index_codecs, "index_codecs", NAME), { shape: [n + 1], dtype: parseDataType(indexType), fillValue: 0 });
  // Built once here to check the data chain (and normalise it); chunks build it for their length.
  const data = chain(codecList(conf.data_codecs, "data_codecs", NAME), { shape: [1], dtype: UINT8, fillValue: 0 });
  const configuration = {
    index_codecs: codecListJson(index.configs),
    data_codecs: codecListJson(data.configs),
    index_data_type: indexType,
    index_location: location,
  };
  return { codec: new ZarrsVlenCodec(index, indexType === "uint64", location === "start", data.configs, chain), configuration };
};
