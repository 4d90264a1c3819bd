/**
 * Codecs come in the three kinds of the v3 spec. A chunk passes array->array codecs, then one
 * array->bytes codec, then bytes->bytes codecs when encoded, and the reverse when decoded.
 */
import type { DataType, ElementArray, Scalar } from "../metadata/dtype.js";
import type { JsonObject } from "../metadata/json.js";
import type { ScratchLease } from "../scratch.js";
import type { CodecConfig } from "../metadata/array-metadata.js";
import type { CodecPipeline } from "./pipeline.js";

/** What a codec knows about the chunk it receives: its shape, type and fill value. */
export interface ChunkSpec {
  /** The shape of the chunks the codec sees (edge chunks too are whole). */
  shape: number[];
  /** Its data type. */
  dtype: DataType;
  /** The array's fill value. */
  fillValue: Scalar | null;
}

/**
 * A chunk in memory: a typed array with an offset and strides in elements (a complex element is
 * two numbers; strides count elements, not numbers). A transpose only permutes strides; copies
 * happen once, where the data finally lands.
 */
export interface ChunkView {
  /** A typed array of components, or strings / Uint8Arrays for variable-length types. */
  data: ElementArray;
  /** Elements along each dimension. */
  shape: number[];
  /** Elements between neighbours along each dimension. */
  strides: number[];
  /** Where the first element lies in `data`. */
  offset: number;
}

export interface ArrayToArrayCodec {
  readonly kind: "array_to_array";
  readonly name: string;
  /** The spec of the chunk this codec hands on when encoding. */
  encodedSpec(spec: ChunkSpec): ChunkSpec;
  /** Never writes into `view`: a write encodes straight from the caller's value. */
  encode(view: ChunkView, spec: ChunkSpec): ChunkView;
  decode(view: ChunkView, spec: ChunkSpec): ChunkView;
}

/** A byte range: a negative offset counts from the end; no length means "to the end". */
export interface ByteRange {
  offset: number;
  length?: number;
}

/** A range of a chunk, with the chunk's size and version where the store reports them (as "" if no validator). */
export interface SourceRange {
  bytes: Uint8Array;
  size?: number;
  version?: string;
}

/**
 * Byte access to one encoded chunk for codecs that can decode part of it (sharding reads a shard
 * index, then only the inner chunks it needs). The codec layer sees no store, only this.
 */
export interface ByteSource {
  /** Names the chunk (store and key) in this thread's caches; absent: not to be cached. */
  readonly cacheKey?: string;
  /** The whole value, or undefined when it does not exist: one read of one version. */
  get(): Promise<Uint8Array | undefined>;
  /** A range of the value (shorter when the value is shorter), or undefined when it does not exist. */
  getRange(range: ByteRange): Promise<SourceRange | undefined>;
  /** Optional: reads the value into `dest` (or runs, in order); its whole size (over dest's: not all read), or undefined when missing. */
  readInto?(dest: Uint8Array | readonly Uint8Array[]): Promise<number | undefined>;
}

/**
 * Where decoded elements go: a strided region of an output (element offset and strides, one per
 * dimension of what is decoded; a backward slice has a negative stride). Decoding into it saves a
 * chunk-sized buffer and the copy out of it.
 */
export interface DecodeTarget {
  data: ElementArray;
  offset: number;
  strides: number[];
}

/** Decodes parts of one stored chunk, reading from its source only what they need. */
export interface PartialDecoder {
  /** Decodes `selection` of the chunk into `target` (shape: the runs' counts); false, writing nothing, when the chunk is not stored. */
  decodeInto(selection: readonly ChunkRun[], target: DecodeTarget): Promise<boolean>;
}

/**
 * A write into part of one chunk: the runs it touches (of points, the box around them), and `put`,
 * which writes its new elements into the decoded chunk laid out as `chunk` says (element 0 at
 * `chunk.offset`, which may lie outside `chunk.data`: only elements of `selection` are written).
 */
export interface ChunkWrite {
  selection: readonly ChunkRun[];
  put(chunk: DecodeTarget): void;
  /** `put` writes every element of the chunk: nothing is decoded or filled before it (a scalar over a whole chunk). */
  covers?: boolean;
}

/** A chunk's encoding after a write; "empty": every element is the fill value (delete it, or leave it missing). */
export type EncodedChunk = { kind: "empty" } | { kind: "bytes"; bytes: Uint8Array };

export interface EncodeOptions {
  /** As for ArrayToBytesCodec.encode: the bytes may be a view of its buffers (until the caller releases it). */
  lease?: ScratchLease;
  /** Bytes even for a chunk that is all fill value. */
  writeEmpty?: boolean;
}

/** Encodes a chunk after a write into part of it, reusing what it can of its previous encoding. */
export interface PartialEncoder {
  /** A failure to decode the previous encoding is a CorruptChunkError. */
  encode(write: ChunkWrite): Promise<EncodedChunk>;
}

/** Per dimension: the first element, the step and the count of a selection within a chunk. */
export interface ChunkRun {
  start: number;
  step: number;
  count: number;
}

export interface ArrayToBytesCodec {
  readonly kind: "array_to_bytes";
  readonly name: string;
  /**
   * With `scratch`, the result may be a view of a buffer taken from it (valid until the caller
   * releases the lease): an encode then allocates no fresh memory per chunk. Never writes into `view`.
   */
  encode(view: ChunkView, spec: ChunkSpec, scratch?: ScratchLease): Uint8Array | Promise<Uint8Array>;
  decode(bytes: Uint8Array, spec: ChunkSpec): ChunkView | Promise<ChunkView>;
  /** Optional: a partial decoder that reads from `source` only the parts a selection needs (a shard's inner chunks). */
  partialDecoder?(source: ByteSource, spec: ChunkSpec): PartialDecoder;
  /** Optional: a partial encoder that decodes and re-encodes only what a write touches (a shard's inner chunks). */
  partialEncoder?(previous: Uint8Array | undefined, spec: ChunkSpec, options: EncodeOptions): PartialEncoder;
  /**
   * True when decoding is a plain byte copy for this spec (native byte order, and the type held in
   * memory as stored), so the bytes before this codec can be decoded straight into an output.
   */
  decodesAsCopy?(spec: ChunkSpec): boolean;
  /**
   * Optional: decodes a whole chunk straight into `target` instead of into a chunk-sized buffer
   * that is copied there afterwards (a shard: each inner chunk goes to its place in one copy).
   */
  decodeInto?(bytes: Uint8Array, spec: ChunkSpec, target: DecodeTarget): Promise<void>;
}

export interface BytesToBytesCodec {
  readonly kind: "bytes_to_bytes";
  readonly name: string;
  /** `scratch`: as for ArrayToBytesCodec.encode. Never writes into `bytes` (a view of the caller's value, maybe). */
  encode(bytes: Uint8Array, scratch?: ScratchLease): Uint8Array | Promise<Uint8Array>;
  decode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /**
   * Decodes into `dest`, which has exactly the decoded size (a chunk's place in the output);
   * throws CorruptChunkError when the bytes decode to another size. Saves an allocation and a copy.
   */
  decodeInto?(bytes: Uint8Array, dest: Uint8Array): void | Promise<void>;
  /**
   * Decodes into `dest`'s runs (a chunk whose rows are runs of the output, not one run): the
   * decoder hands over each piece as it is decoded, while it is still in cache, instead of the
   * whole chunk being decoded into a buffer and copied row by row afterwards.
   */
  decodeScatter?(bytes: Uint8Array, dest: ByteScatter): void | Promise<void>;
}

/** Where the decoded bytes of one chunk go, piece by piece (see BytesToBytesCodec.decodeScatter). */
export interface ByteScatter {
  /** The chunk's decoded size: a stream that decodes to another size is corrupt. */
  readonly length: number;
  /** Places `src`, the decoded bytes `[at, at + src.length)` of the chunk. */
  put(at: number, src: Uint8Array): void;
  /**
   * The runs themselves, in the chunk's order, for a raw chunk to be read straight into them; null
   * when they are too short to be worth a view each (see rowScatter).
   */
  runs(): Uint8Array[] | null;
}

/** A codec of one of the three v3 kinds: array to array, array to bytes, bytes to bytes. */
export type Codec = ArrayToArrayCodec | ArrayToBytesCodec | BytesToBytesCodec;

/** Builds a codec chain (pipeline.ts) for chunks of `spec`: how a codec that holds chains gets them. */
export type ChainBuilder = (configs: readonly CodecConfig[], spec: ChunkSpec) => CodecPipeline;

/**
 * Builds a codec from its v3 configuration and the spec of the chunk it will see. It validates
 * the configuration and returns the normalised one that metadata should record. `chain` builds
 * the chains a codec holds (sharding's inner and index chains): the pipeline passes itself in, so
 * no codec imports the pipeline (nor the registry, which the pipeline reads).
 */
export type CodecFactory = (configuration: JsonObject, spec: ChunkSpec, chain: ChainBuilder) => { codec: Codec; configuration: JsonObject };
