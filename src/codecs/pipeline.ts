/**
 * A chunk's codec chain, built once per array (and per worker) from its metadata: array->array
 * codecs, exactly one array->bytes codec, then bytes->bytes codecs.
 */
import { CorruptChunkError, InvalidMetadataError } from "../errors.js";
import { componentsPerElement, isObjectType } from "../metadata/dtype.js";
import { memoryBytesPerComponent, typedArrayOver } from "../metadata/elements.js";
import { parseDataType } from "../metadata/dtype-names.js";
import { contiguousStrides, product } from "../indexing/strided.js";
import { checkCodecCount, type CodecConfig } from "../metadata/array-metadata.js";
import { getCodecFactory } from "./registry.js";
import type { ArrayToArrayCodec, ArrayToBytesCodec, ByteScatter, ByteSource, BytesToBytesCodec, ChunkRun, ChunkSpec, ChunkView } from "./types.js";
import type { ChunkWrite, DecodeTarget, EncodedChunk, EncodeOptions, PartialDecoder, PartialEncoder } from "./types.js";
import { allFill, asCorrupt, chunkElements, contiguousView, copyElements, coversAll, fillComponents, fillElements, regionAt, rowScatter, targetBytes } from "./view.js";
import { giveScratch, ScratchLease, takeScratch } from "../scratch.js";
import { decodeCost } from "./decode-cost.js";

export class CodecPipeline {
  private constructor(
    private readonly arrayToArray: { codec: ArrayToArrayCodec; spec: ChunkSpec }[],
    private readonly arrayToBytes: { codec: ArrayToBytesCodec; spec: ChunkSpec },
    private readonly bytesToBytes: BytesToBytesCodec[],
    /** The chain as metadata should record it, with defaults filled in (blosc's typesize). */
    readonly configs: CodecConfig[],
    /** The chunks this chain decodes: their shape, type and fill value. */
    readonly spec: ChunkSpec,
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
        if (isObjectType(spec.dtype) || spec.dtype.kind === "optional") spec = { shape: spec.shape, dtype: parseDataType("|u1"), fillValue: 0 };
      } else {
        if (!ab) throw new InvalidMetadataError(`codecs: ${where} (bytes->bytes) must come after an array->bytes codec`);
        bb.push(codec);
      }
    }
    if (!ab) throw new InvalidMetadataError("codecs: the chain has no array->bytes codec (such as \"bytes\")");
    return new CodecPipeline(aa, ab, bb, normalised, chunkSpec);
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
   * Whether the chain reads parts of a chunk itself: a lone array->bytes codec that can (a
   * shard); any other codec around it would need every byte.
   */
  get canDecodePartial(): boolean {
    return this.arrayToArray.length === 0 && this.bytesToBytes.length === 0 && this.arrayToBytes.codec.partialDecoder !== undefined;
  }

  /**
   * A decoder for parts of the chunk behind `source`: a shard's own (only the inner chunks a
   * selection needs), else one that reads the whole chunk (a raw one straight into place).
   */
  partialDecoder(source: ByteSource): PartialDecoder {
    const { codec, spec } = this.arrayToBytes;
    if (this.canDecodePartial && codec.partialDecoder) return codec.partialDecoder(source, spec);
    return { decodeInto: (selection, target) => this.decodeFrom(source, selection, target) };
  }

  /** The default partial decoder: the whole chunk read and decoded, the selection copied out. */
  private async decodeFrom(source: ByteSource, selection: readonly ChunkRun[], target: DecodeTarget): Promise<boolean> {
    const { shape, dtype } = this.spec;
    const raw = coversAll(selection, shape) && source.readInto && this.storesRawBytes;
    // Raw bytes from a store that reads into buffers: straight into their place, or its rows.
    const place = raw ? (targetBytes(target, shape, dtype) ?? rowScatter(target, shape, dtype)?.runs()) : null;
    if (place) {
      const length = place instanceof Uint8Array ? place.length : place.reduce((n, run) => n + run.length, 0);
      const size = await source.readInto!(place);
      if (size === undefined) return false;
      if (size !== length) throw new CorruptChunkError(`expected ${length} bytes, got ${size}`);
      return true;
    }
    const bytes = await source.get();
    if (bytes === undefined) return false;
    await this.decodePart(bytes, selection, target);
    return true;
  }

  /** Decodes `selection` of the chunk in `bytes` into `target`: the whole chunk by `decodeInto`, else decoded and copied out. */
  async decodePart(bytes: Uint8Array, selection: readonly ChunkRun[], target: DecodeTarget): Promise<void> {
    const { shape, dtype } = this.spec;
    if (coversAll(selection, shape)) return this.decodeInto(bytes, target);
    const held: Uint8Array[] = [];
    try {
      const view = await this.decodeWhole(bytes, held);
      const src = regionAt(selection.map((r) => r.start), selection.map((r) => r.step), view.strides, view.offset);
      copyElements(dtype, target.data, target, view.data, src, selection.map((r) => r.count));
    } finally {
      for (const b of held) giveScratch(b);
    }
  }

  /**
   * Decodes a whole chunk into `target`, by the best way the chain and the target's layout allow:
   * into its place when that is one C-order run; blosc block by block (raw bytes row by row) into
   * its rows; a shard inner chunk by inner chunk; else into a buffer that is copied there.
   */
  async decodeInto(bytes: Uint8Array, target: DecodeTarget): Promise<void> {
    const { shape, dtype } = this.spec;
    const ab = this.arrayToBytes;
    if (ab.codec.decodeInto && this.arrayToArray.length === 0 && this.bytesToBytes.length === 0) return ab.codec.decodeInto(bytes, ab.spec, target);
    if (this.decodesIntoPlace) {
      const place = targetBytes(target, shape, dtype);
      if (place) return this.decodeBytesInto(bytes, place);
      // Checked first: the row offsets cost a pass over the chunk's rows (16,384 for a 128^3 chunk).
      const rows = this.bytesToBytes.length === 0 || this.bytesToBytes[0].decodeScatter ? rowScatter(target, shape, dtype) : null;
      if (rows) return this.decodeScatter(bytes, rows);
    }
    const held: Uint8Array[] = [];
    try {
      const view = await this.decodeWhole(bytes, held);
      copyElements(dtype, target.data, target, view.data, { offset: view.offset, strides: view.strides }, shape);
    } finally {
      for (const b of held) giveScratch(b);
    }
  }

  /**
   * A whole chunk decoded, checked for its shape: into this thread's scratch (pushed onto `held`)
   * when the last stage decodes into a buffer (blosc, lz4, zstd's reused context), no fresh memory.
   */
  private async decodeWhole(bytes: Uint8Array, held: Uint8Array[]): Promise<ChunkView> {
    const { shape, dtype } = this.spec;
    const bb = this.bytesToBytes;
    // Raw bytes are read where they lie; a stage that decodes into fresh memory anyway, from there.
    if (this.decodesIntoPlace && bb.length > 0 && bb[0].decodeInto && !isObjectType(dtype)) {
      const length = product(shape) * componentsPerElement(dtype);
      const buf = takeScratch(length * memoryBytesPerComponent(dtype));
      held.push(buf);
      await this.decodeBytesInto(bytes, buf.subarray(0, length * memoryBytesPerComponent(dtype)));
      return contiguousView(typedArrayOver(dtype, buf.buffer, 0, length), shape);
    }
    const view = await this.decode(bytes);
    if (view.shape.length !== shape.length || view.shape.some((n, i) => n !== shape[i])) {
      throw new CorruptChunkError(`decoded to shape [${view.shape}], expected [${shape}]`);
    }
    return view;
  }

  /**
   * An encoder of a write into part of the chunk whose encoding was `previous` (undefined: not
   * stored): a lone array->bytes codec's own where it has one (a shard's), else the default.
   */
  partialEncoder(previous: Uint8Array | undefined, options: EncodeOptions = {}): PartialEncoder {
    const { codec, spec } = this.arrayToBytes;
    if (this.arrayToArray.length === 0 && this.bytesToBytes.length === 0 && codec.partialEncoder) return codec.partialEncoder(previous, spec, options);
    return { encode: (write) => this.encodeMerged(previous, write, options) };
  }

  /** The default partial encoder: the whole chunk decoded (or the fill value), the write put in, encoded. */
  private async encodeMerged(previous: Uint8Array | undefined, write: ChunkWrite, { lease, writeEmpty }: EncodeOptions): Promise<EncodedChunk> {
    const { shape, dtype, fillValue } = this.spec;
    // Leased only where the caller's lease outlives the encoding, which may be a view of it (a raw chain).
    const data = chunkElements(dtype, product(shape), lease);
    const chunk: ChunkView = { data, shape, strides: contiguousStrides(shape), offset: 0 };
    // A write of every element needs neither the fill value nor the old values under it.
    if (!write.covers && previous === undefined) fillElements(data, chunk, shape, fillComponents(fillValue, dtype));
    else if (!write.covers) await this.decodeInto(previous!, chunk).catch((err) => Promise.reject(asCorrupt(err)));
    write.put(chunk);
    if (!writeEmpty && allFill(this.spec, data, chunk)) return { kind: "empty" };
    return { kind: "bytes", bytes: await this.encode(chunk, lease) };
  }

  /** Whether a chunk's decoded bytes are a plain copy of what the last bytes->bytes stage gives. */
  private get decodesIntoPlace(): boolean {
    const ab = this.arrayToBytes;
    return this.arrayToArray.length === 0 && ab.codec.decodesAsCopy?.(ab.spec) === true;
  }

  /** Whether a chunk's stored bytes are its bytes in memory (no codec changes them). */
  get storesRawBytes(): boolean {
    return this.decodesIntoPlace && this.bytesToBytes.length === 0;
  }

  /** Decoding CPU per decoded byte, in ns (decode-cost.ts): what placement weighs against the pool's own cost. */
  get decodeCost(): number {
    return decodeCost(this.configs);
  }

  /**
   * Decodes a chunk straight into `dest` (its bytes in memory, C order), when `decodesIntoPlace`:
   * the last bytes->bytes stage writes into `dest` when it can, else its result is copied there once.
   */
  private async decodeBytesInto(bytes: Uint8Array, dest: Uint8Array): Promise<void> {
    const bb = this.bytesToBytes;
    let b = bytes;
    for (let i = bb.length - 1; i >= 1; i--) b = await bb[i].decode(b);
    const last = bb[0];
    if (last?.decodeInto) return last.decodeInto(b, dest);
    if (last) b = await last.decode(b);
    if (b.length !== dest.length) throw new CorruptChunkError(`expected ${dest.length} decoded bytes, got ${b.length}`);
    dest.set(b);
  }

  /** Decodes a chunk into `dest`'s runs piece by piece: the last stage's (blosc), or raw bytes as they are. */
  private async decodeScatter(bytes: Uint8Array, dest: ByteScatter): Promise<void> {
    const bb = this.bytesToBytes;
    if (bb.length === 0) {
      if (bytes.length !== dest.length) throw new CorruptChunkError(`expected ${dest.length} decoded bytes, got ${bytes.length}`);
      return dest.put(0, bytes);
    }
    let b = bytes;
    for (let i = bb.length - 1; i >= 1; i--) b = await bb[i].decode(b);
    await bb[0].decodeScatter!(b, dest);
  }

  /**
   * Encodes one chunk, never writing into `view` (no codec writes into its input): a write encodes
   * straight from the caller's value. Every stage but the last encodes into this thread's scratch
   * buffers (a fresh 4 MiB buffer per chunk costs as much as compressing it, more on workers); with
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
