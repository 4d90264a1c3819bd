/**
 * A chunk's codec chain, built once per array (and per worker) from its metadata: array->array
 * codecs, exactly one array->bytes codec, then bytes->bytes codecs. Building it checks every codec
 * (an unknown one, a bad configuration); what it does with chunks is pipeline-run.ts', imported
 * with the first chunk this thread decodes or encodes (a page whose workers decode never does).
 */
import { InvalidMetadataError } from "../errors.js";
import { onFirstUse } from "../first-use.js";
import { isObjectType } from "../metadata/dtype.js";
import { parseDataType } from "../metadata/dtype-names.js";
import { checkCodecCount, type CodecConfig } from "../metadata/array-metadata.js";
import { getCodecFactory } from "./registry.js";
import type { ArrayToArrayCodec, ArrayToBytesCodec, ByteSource, BytesToBytesCodec, ChunkRun, ChunkSpec, ChunkView } from "./types.js";
import type { ChunkWrite, DecodeTarget, EncodeOptions, PartialDecoder, PartialEncoder } from "./types.js";
import type { ScratchLease } from "../scratch.js";
import { decodeCost } from "./decode-cost.js";

const run = onFirstUse(() => import("./pipeline-run.js"));
const decodeChunk = run((m, p: CodecPipeline, bytes: Uint8Array) => m.decode(p, bytes));
const decodeChunkInto = run((m, p: CodecPipeline, bytes: Uint8Array, target: DecodeTarget) => m.decodeInto(p, bytes, target));
const decodeChunkPart = run((m, p: CodecPipeline, bytes: Uint8Array, selection: readonly ChunkRun[], target: DecodeTarget) => m.decodePart(p, bytes, selection, target));
const decodeFrom = run((m, p: CodecPipeline, source: ByteSource, selection: readonly ChunkRun[], target: DecodeTarget) => m.decodeFrom(p, source, selection, target));
const encodeMerged = run((m, p: CodecPipeline, previous: Uint8Array | undefined, write: ChunkWrite, options: EncodeOptions) => m.encodeMerged(p, previous, write, options));
const encodeChunk = run((m, p: CodecPipeline, view: ChunkView, lease?: ScratchLease) => m.encode(p, view, lease));

export class CodecPipeline {
  private constructor(
    // The stages, for pipeline-run.ts.
    readonly arrayToArray: { codec: ArrayToArrayCodec; spec: ChunkSpec }[],
    readonly arrayToBytes: { codec: ArrayToBytesCodec; spec: ChunkSpec },
    readonly bytesToBytes: BytesToBytesCodec[],
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
    return { decodeInto: (selection, target) => decodeFrom(this, source, selection, target) };
  }

  /**
   * An encoder of a write into part of the chunk whose encoding was `previous` (undefined: not
   * stored): a lone array->bytes codec's own where it has one (a shard's), else the default.
   */
  partialEncoder(previous: Uint8Array | undefined, options: EncodeOptions = {}): PartialEncoder {
    const { codec, spec } = this.arrayToBytes;
    if (this.arrayToArray.length === 0 && this.bytesToBytes.length === 0 && codec.partialEncoder) return codec.partialEncoder(previous, spec, options);
    return { encode: (write) => encodeMerged(this, previous, write, options) };
  }

  /** Whether a chunk's decoded bytes are a plain copy of what the last bytes->bytes stage gives. */
  get decodesIntoPlace(): boolean {
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

  decode(bytes: Uint8Array): Promise<ChunkView> {
    return decodeChunk(this, bytes);
  }

  /** Decodes `selection` of the chunk in `bytes` into `target`: the whole chunk by `decodeInto`, else decoded and copied out. */
  decodePart(bytes: Uint8Array, selection: readonly ChunkRun[], target: DecodeTarget): Promise<void> {
    return decodeChunkPart(this, bytes, selection, target);
  }

  /**
   * Decodes a whole chunk into `target`, by the best way the chain and the target's layout allow:
   * into its place when that is one C-order run; blosc block by block (raw bytes row by row) into
   * its rows; a shard inner chunk by inner chunk; else into a buffer that is copied there.
   */
  decodeInto(bytes: Uint8Array, target: DecodeTarget): Promise<void> {
    return decodeChunkInto(this, bytes, target);
  }

  /**
   * Encodes one chunk, never writing into `view` (no codec writes into its input): a write encodes
   * straight from the caller's value. Every stage but the last encodes into this thread's scratch
   * buffers (a fresh 4 MiB buffer per chunk costs as much as compressing it, more on workers); with
   * `lease` the last one does too and the result may be a view of a leased buffer, which the
   * caller releases once it has stored the bytes. Without, the result is the caller's own.
   */
  encode(view: ChunkView, lease?: ScratchLease): Promise<Uint8Array> {
    return encodeChunk(this, view, lease);
  }
}
