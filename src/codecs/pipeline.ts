/**
 * A chunk's codec chain, built once per array (and per worker) from its metadata: array->array
 * codecs, exactly one array->bytes codec, then bytes->bytes codecs.
 */
import { CorruptChunkError, InvalidMetadataError } from "../errors.js";
import { isObjectType, type ElementArray } from "../metadata/dtype.js";
import { parseDataType } from "../metadata/dtype-names.js";
import type { StridedRegion } from "../indexing/strided.js";
import { checkCodecCount, type CodecConfig } from "../metadata/array-metadata.js";
import { getCodecFactory } from "./registry.js";
import type { ArrayToArrayCodec, ArrayToBytesCodec, ByteScatter, ByteSource, BytesToBytesCodec, ChunkRun, ChunkSpec, ChunkView } from "./types.js";
import { ScratchLease } from "../scratch.js";

export class CodecPipeline {
  private constructor(
    private readonly arrayToArray: { codec: ArrayToArrayCodec; spec: ChunkSpec }[],
    private readonly arrayToBytes: { codec: ArrayToBytesCodec; spec: ChunkSpec },
    private readonly bytesToBytes: BytesToBytesCodec[],
    /** The chain as metadata should record it, with defaults filled in (blosc's typesize). */
    readonly configs: CodecConfig[],
  ) {}

  static create(configs: readonly CodecConfig[], chunkSpec: ChunkSpec): CodecPipeline {
    const aa: { codec: ArrayToArrayCodec; spec: ChunkSpec }[] = [];
    let ab: { codec: ArrayToBytesCodec; spec: ChunkSpec } | undefined;
    const bb: BytesToBytesCodec[] = [];
    const normalised: CodecConfig[] = [];
    let spec = chunkSpec;
    // Metadata read from a store was checked when parsed; this covers chains given to createArray.
    for (const config of checkCodecCount(configs, "codecs")) {
      const { codec, configuration } = getCodecFactory(config.name)(config.configuration ?? {}, spec, CodecPipeline.create);
      normalised.push({ name: config.name, configuration });
      const where = `codec "${config.name}"`;
      if (codec.kind === "array_to_array") {
        if (ab) throw new InvalidMetadataError(`codecs: ${where} (array->array) must come before the array->bytes codec`);
        aa.push({ codec, spec });
        spec = codec.encodedSpec(spec);
      } else if (codec.kind === "array_to_bytes") {
        if (ab) throw new InvalidMetadataError(`codecs: ${where} is a second array->bytes codec`);
        ab = { codec, spec };
        // After a vlen codec the chunk is plain bytes: blosc's default typesize is then 1.
        if (isObjectType(spec.dtype)) spec = { shape: spec.shape, dtype: parseDataType("|u1"), fillValue: 0 };
      } else {
        if (!ab) throw new InvalidMetadataError(`codecs: ${where} (bytes->bytes) must come after an array->bytes codec`);
        bb.push(codec);
      }
    }
    if (!ab) throw new InvalidMetadataError("codecs: the chain has no array->bytes codec (such as \"bytes\")");
    return new CodecPipeline(aa, ab, bb, normalised);
  }

  async decode(bytes: Uint8Array): Promise<ChunkView> {
    let b = bytes;
    for (let i = this.bytesToBytes.length - 1; i >= 0; i--) b = await this.bytesToBytes[i].decode(b);
    let view = await this.arrayToBytes.codec.decode(b, this.arrayToBytes.spec);
    for (let i = this.arrayToArray.length - 1; i >= 0; i--) {
      const { codec, spec } = this.arrayToArray[i];
      view = codec.decode(view, spec);
    }
    return view;
  }

  /**
   * Partial decoding, when the chain allows it: only an array->bytes codec that can decode part
   * of its bytes, with no other codec around it (a bytes->bytes codec would need every byte).
   */
  get canDecodePartial(): boolean {
    return this.arrayToArray.length === 0 && this.bytesToBytes.length === 0 && this.arrayToBytes.codec.decodePartial !== undefined;
  }

  /** Decodes `selection` of the chunk behind `source`; see ArrayToBytesCodec.decodePartial. */
  async decodePartial(source: ByteSource, selection: readonly ChunkRun[]): Promise<ChunkView | undefined> {
    const { codec, spec } = this.arrayToBytes;
    if (!this.canDecodePartial || !codec.decodePartial) {
      const bytes = await source.get();
      if (bytes === undefined) return undefined;
      return selectRuns(await this.decode(bytes), selection);
    }
    return codec.decodePartial(source, selection, spec);
  }

  /**
   * Encodes a chunk after a write to `touched`, reusing what it can of its `previous` encoding
   * when the chain is a lone array->bytes codec that knows how; otherwise a plain encode.
   */
  async encodeUpdate(previous: Uint8Array, view: ChunkView, touched: readonly ChunkRun[]): Promise<Uint8Array> {
    const { codec, spec } = this.arrayToBytes;
    if (this.arrayToArray.length === 0 && this.bytesToBytes.length === 0 && codec.encodeUpdate) {
      return codec.encodeUpdate(previous, view, touched, spec);
    }
    return this.encode(view);
  }

  /**
   * Whether the chain has array->array codecs (filters, transpose). Without them, encoding only
   * reads the view it is given, so a write can encode straight from the caller's value.
   */
  get hasArrayToArray(): boolean {
    return this.arrayToArray.length > 0;
  }

  /** Whether `decodeInto` can place this chain's chunks: no array->array codec, a plain copy. */
  get decodesIntoPlace(): boolean {
    const ab = this.arrayToBytes;
    return !this.hasArrayToArray && ab.codec.decodesAsCopy?.(ab.spec) === true;
  }

  /** Whether `decodeIntoRegion` can place this chain's whole chunks (a lone codec that knows how: sharding). */
  get decodesIntoRegion(): boolean {
    return !this.hasArrayToArray && this.bytesToBytes.length === 0 && this.arrayToBytes.codec.decodeIntoRegion !== undefined;
  }

  /** Decodes a whole chunk into `region` of `dest`; false, touching nothing, when the chain cannot. */
  async decodeIntoRegion(bytes: Uint8Array, dest: ElementArray, region: StridedRegion): Promise<boolean> {
    const ab = this.arrayToBytes;
    if (!this.decodesIntoRegion || !ab.codec.decodeIntoRegion) return false;
    await ab.codec.decodeIntoRegion(bytes, ab.spec, dest, region);
    return true;
  }

  /**
   * Whether `decodeInto` writes straight into its destination (no last bytes->bytes stage, or one
   * that decodes into a buffer): otherwise it decodes into fresh memory and copies that over, and
   * a caller that would copy again afterwards does better with `decode`.
   */
  get decodesIntoWithoutCopy(): boolean {
    return this.decodesIntoPlace && (this.bytesToBytes.length === 0 || this.bytesToBytes[0].decodeInto !== undefined);
  }

  /** Whether a chunk's stored bytes are its bytes in memory (no codec changes them). */
  get storesRawBytes(): boolean {
    return this.decodesIntoPlace && this.bytesToBytes.length === 0;
  }

  /**
   * Decodes a chunk straight into `dest` (its bytes in memory, C order), when `decodesIntoPlace`:
   * the last bytes->bytes stage writes into `dest` when it can, else its result is copied there
   * once. Returns false, touching nothing, when the chain cannot.
   */
  async decodeInto(bytes: Uint8Array, dest: Uint8Array): Promise<boolean> {
    if (!this.decodesIntoPlace) return false;
    const bb = this.bytesToBytes;
    let b = bytes;
    for (let i = bb.length - 1; i >= 1; i--) b = await bb[i].decode(b);
    const last = bb[0];
    if (last?.decodeInto) {
      await last.decodeInto(b, dest);
      return true;
    }
    if (last) b = await last.decode(b);
    if (b.length !== dest.length) {
      throw new CorruptChunkError(`expected ${dest.length} decoded bytes, got ${b.length}`);
    }
    dest.set(b);
    return true;
  }

  /** Whether `decodeScatter` can place this chain's chunks (checked before a scatter is built). */
  get decodesScatter(): boolean {
    return this.decodesIntoPlace && (this.bytesToBytes.length === 0 || this.bytesToBytes[0].decodeScatter !== undefined);
  }

  /**
   * Decodes a chunk into `dest`'s runs piece by piece, when `decodesIntoPlace` and the last
   * bytes->bytes stage can (blosc), or when there is none (the stored bytes are the chunk's).
   * Returns false, touching nothing, otherwise: the caller decodes into a buffer and copies.
   */
  async decodeScatter(bytes: Uint8Array, dest: ByteScatter): Promise<boolean> {
    if (!this.decodesScatter) return false;
    const bb = this.bytesToBytes;
    if (bb.length === 0) {
      if (bytes.length !== dest.length) throw new CorruptChunkError(`expected ${dest.length} decoded bytes, got ${bytes.length}`);
      dest.put(0, bytes);
      return true;
    }
    let b = bytes;
    for (let i = bb.length - 1; i >= 1; i--) b = await bb[i].decode(b);
    await bb[0].decodeScatter!(b, dest);
    return true;
  }

  /**
   * Encodes one chunk. Every stage but the last encodes into this thread's scratch buffers (a
   * fresh 4 MiB buffer per chunk costs as much as compressing it, more on worker threads); with
   * `lease` the last one does too and the result may be a view of a leased buffer, which the
   * caller releases once it has stored the bytes. Without, the result is the caller's own.
   */
  async encode(view: ChunkView, lease?: ScratchLease): Promise<Uint8Array> {
    const inner = lease ?? new ScratchLease();
    const last = this.bytesToBytes.length;
    try {
      let v = view;
      for (const { codec, spec } of this.arrayToArray) v = codec.encode(v, spec);
      let b = await this.arrayToBytes.codec.encode(v, this.arrayToBytes.spec, last === 0 && !lease ? undefined : inner);
      for (let i = 0; i < last; i++) b = await this.bytesToBytes[i].encode(b, i === last - 1 && !lease ? undefined : inner);
      // A last stage that passed its (leased) input through: the caller gets a copy of its own.
      return !lease && inner.owns(b) ? b.slice() : b;
    } finally {
      if (!lease) inner.release();
    }
  }
}

/** A view of the selected elements of `view` (strides and offset only, no copy). */
function selectRuns(view: ChunkView, selection: readonly ChunkRun[]): ChunkView {
  let offset = view.offset;
  selection.forEach((r, d) => (offset += r.start * view.strides[d]));
  return { data: view.data, shape: selection.map((r) => r.count), strides: view.strides.map((s, d) => s * selection[d].step), offset };
}
