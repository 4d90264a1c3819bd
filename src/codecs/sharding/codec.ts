/**
 * The `sharding_indexed` codec (array->bytes): a shard holds a grid of inner chunks, each encoded
 * by its own codec chain and stored anywhere in the shard, plus an index of where each one lies.
 * Whole shards are encoded and decoded here; `partialDecoder` reads the index and then only the
 * inner chunks a selection touches, coalescing nearby ranges.
 *
 * Another process may rewrite a shard at any time, moving every inner chunk, so an index is only
 * trusted for bytes of its own version. Where the store reports ranges' versions, inner chunks must
 * come from the index's version, and an index is kept per thread for the next read, whose ranges
 * must come back with that version, else the read starts over with a fresh index (and on a change
 * after that too, reads the shard whole). Without versions every partial read reads the index.
 */
import { CorruptChunkError, InvalidMetadataError, TooLargeError, UnsupportedError } from "../../errors.js";
import { allocElements } from "../../metadata/elements.js";
import type { JsonObject, JsonValue } from "../../metadata/json.js";
import { projectSelection, type ChunkProjection } from "../../indexing/projection.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import type { CodecPipeline } from "../pipeline.js";
import type { ArrayToBytesCodec, ByteRange, ByteSource, ChunkRun, ChunkSpec, ChunkView, ChunkWrite, CodecFactory } from "../types.js";
import type { DecodeTarget, EncodedChunk, EncodeOptions, PartialDecoder, PartialEncoder, SourceRange } from "../types.js";
import { allFill, asCorrupt, chunkElements, contiguousView, copyElements, coversAll, fillComponents, fillElements, regionAt } from "../view.js";
import type { ScratchLease } from "../../scratch.js";
// crc32c, which a shard index names by default, loads with sharding (registry.ts): the module
// every sharded array loads anyway, and what an unsharded array naming crc32c loads.
export { crc32cCodec, numcodecsCrc32cCodec } from "../crc32c.js";
import { codecList, codecListJson, enumOption } from "../config.js";
import { coalesceRanges } from "../../stores/ranges.js";
import { decodeIndex, emptyIndex, encodeIndex, indexSpec, type ShardIndex } from "./shard-index.js";

const NAME = "sharding_indexed";
const FIXED_SIZE_CODECS = new Set(["bytes", "crc32c", "numcodecs.crc32c", "transpose"]);

/**
 * 256 MiB, 2^24 inner chunks: the largest index read. Reading one holds its bytes, the uint64 table
 * and the offsets and lengths, ~3x its size: within the 1 GiB a chunk may take (limits.ts). Fixed,
 * not setMaxChunkBytes: indexes are decoded in workers, which do not see that setting.
 */
const MAX_INDEX_BYTES = 2 ** 28;

export type IndexLocation = "start" | "end";

class ShardChanged extends Error {} // internal: a shard's ranges came from two versions of it

/** Why an inner chunk failed, as a corrupt-chunk error naming the inner chunk. */
function innerFailure(coords: readonly number[], err: unknown): never {
  throw err instanceof ShardChanged ? err : asCorrupt(err, `inner chunk [${coords.join(", ")}]`);
}

/**
 * Whether a range read after an index came from another version of the shard than the index;
 * `known` (an index kept from an earlier read): unless it says it came from the same one.
 */
function changed(index: SourceRange, later: SourceRange, known: boolean): boolean {
  if (known) return later.version !== index.version || later.size !== index.size;
  if (index.size !== undefined && later.size !== undefined && index.size !== later.size) return true;
  return !!index.version && !!later.version && index.version !== later.version;
}

/**
 * Waits for every inner chunk, then throws the first failure: once a shard's decode returns or
 * throws, no inner chunk still writes into the target or reads the shard's (scratch) bytes.
 */
async function settleAll(work: Promise<void>[]): Promise<void> {
  for (const r of await Promise.allSettled(work)) if (r.status === "rejected") throw r.reason;
}

type FoundIndex = { index: ShardIndex; read: SourceRange };

/** This thread's kept indexes (see above) by cache key: 128 at most, of 2^14 inner chunks each. */
const known = new Map<string, FoundIndex>();

function keep(key: string, found: FoundIndex): void {
  known.delete(key);
  if (!found.read.version || found.index.offsets.length > 2 ** 14) return;
  if (known.size >= 128) known.delete(known.keys().next().value!);
  known.set(key, found);
}

type ReadMode = "known" | "fresh" | "whole";

/** A window of `length` bytes at `offset` in a shard (`read` checks its version): a nested shard. */
function windowOf(read: (range: ByteRange) => Promise<SourceRange>, offset: number, length: number): ByteSource {
  const getRange = async (range: ByteRange): Promise<SourceRange> => {
    const start = range.offset < 0 ? Math.max(0, length + range.offset) : Math.min(range.offset, length);
    const end = range.length === undefined ? length : Math.min(length, start + range.length);
    return { bytes: (await read({ offset: offset + start, length: end - start })).bytes, size: length };
  };
  return { get: async () => (await getRange({ offset: 0 })).bytes, getRange };
}

export class ShardingCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name = NAME;
  /** The encoded index's size: its codecs are fixed-size (bytes: 16 per inner chunk; a checksum adds 4). */
  private readonly indexSize: number;

  constructor(
    readonly innerShape: readonly number[],
    readonly chunksPerShard: readonly number[],
    readonly inner: CodecPipeline,
    readonly index: CodecPipeline,
    readonly indexLocation: IndexLocation,
  ) {
    this.indexSize = 16 * product(chunksPerShard) + 4 * index.configs.filter((c) => c.name.endsWith("crc32c")).length;
  }

  /** Refuses an index too large to read (before any of it is allocated). */
  private checkIndexSize(): void {
    if (this.indexSize <= MAX_INDEX_BYTES) return;
    const what = `a shard of ${product(this.chunksPerShard)} inner chunks has a ${this.indexSize}-byte index`;
    throw new TooLargeError(`codec "${NAME}": ${what}, over the limit of ${MAX_INDEX_BYTES}; use larger inner chunks`);
  }

  /** Where inner chunks may lie in a shard of `shardSize` bytes (undefined: not known): outside the index. */
  private dataRegion(shardSize: number | undefined): { start: number; end: number } {
    const end = shardSize ?? Number.MAX_SAFE_INTEGER;
    return this.indexLocation === "start" ? { start: this.indexSize, end } : { start: 0, end: shardSize === undefined ? end : end - this.indexSize };
  }

  private coordsOf(i: number): number[] {
    const coords = new Array<number>(this.chunksPerShard.length);
    for (let d = this.chunksPerShard.length - 1; d >= 0; d--) {
      coords[d] = i % this.chunksPerShard[d];
      i = Math.floor(i / this.chunksPerShard[d]);
    }
    return coords;
  }

  private linear(coords: readonly number[]): number {
    return coords.reduce((acc, c, d) => acc * this.chunksPerShard[d] + c, 0);
  }

  /** The inner chunks a selection of the shard touches, with their part of it. */
  private touched(selection: readonly ChunkRun[]): ChunkProjection[] {
    return projectSelection(selection.map((r) => ({ kind: "range" as const, start: r.start, step: r.step, count: r.count })), this.innerShape);
  }

  /** Inner chunk `i` of a shard view, encoded; null when every value is the fill value. */
  private async encodeInner(view: ChunkView, spec: ChunkSpec, i: number): Promise<Uint8Array | null> {
    const origin = this.coordsOf(i).map((c, d) => c * this.innerShape[d]);
    const src = regionAt(origin, null, view.strides, view.offset);
    if (allFill(spec, view.data, src, this.innerShape)) return null;
    const chunk = allocElements(spec.dtype, product(this.innerShape));
    copyElements(spec.dtype, chunk, { offset: 0, strides: contiguousStrides(this.innerShape) }, view.data, src, this.innerShape);
    return this.inner.encode(contiguousView(chunk, [...this.innerShape]));
  }

  /** Lays encoded inner chunks out in order, with the index at the configured end. */
  private async assemble(parts: readonly (Uint8Array | null)[]): Promise<Uint8Array> {
    this.checkIndexSize();
    const indexSize = this.indexSize;
    const index = emptyIndex(parts.length);
    let pos = this.indexLocation === "start" ? indexSize : 0;
    parts.forEach((p, i) => {
      if (!p) return;
      index.offsets[i] = pos;
      index.lengths[i] = p.length;
      pos += p.length;
    });
    const indexBytes = await encodeIndex(index, this.chunksPerShard, this.index);
    if (indexBytes.length !== indexSize) {
      throw new InvalidMetadataError(`codec "${NAME}": index_codecs must encode to a fixed size`);
    }
    const out = new Uint8Array(pos + (this.indexLocation === "end" ? indexSize : 0));
    out.set(indexBytes, this.indexLocation === "start" ? 0 : pos);
    parts.forEach((p, i) => p && out.set(p, index.offsets[i]));
    return out;
  }

  async encode(view: ChunkView, spec: ChunkSpec): Promise<Uint8Array> {
    // Every inner chunk is encoded at once: async codecs (zstd, and whatever a worker pool adds)
    // overlap, and each inner chunk is copied once, from the shard into its own buffer.
    const n = product(this.chunksPerShard);
    return this.assemble(await Promise.all(Array.from({ length: n }, (_, i) => this.encodeInner(view, spec, i))));
  }

  /** Encodes a write into part of a shard: only the inner chunks it touches are decoded and encoded again. */
  partialEncoder(previous: Uint8Array | undefined, spec: ChunkSpec, { lease, writeEmpty }: EncodeOptions): PartialEncoder {
    return { encode: (write) => this.encodeWrite(previous, spec, write, writeEmpty === true, lease) };
  }

  private async encodeWrite(previous: Uint8Array | undefined, spec: ChunkSpec, write: ChunkWrite, writeEmpty: boolean, lease?: ScratchLease): Promise<EncodedChunk> {
    // A write over the whole shard keeps nothing of the stored one: its index is not read either.
    const stored = previous && !write.covers ? await this.indexOfShard(previous).catch((err) => Promise.reject(asCorrupt(err))) : undefined;
    const old = stored ?? emptyIndex(product(this.chunksPerShard));
    const touched = new Set(this.touched(write.selection).map((t) => this.linear(t.coords)));
    // The touched inner chunks are decoded into a buffer of the box around them, laid out as the
    // whole shard would be (each is copied out of it to be encoded).
    const lo = this.innerShape.map(() => Infinity);
    const hi = this.innerShape.map(() => 0);
    for (const i of touched) this.coordsOf(i).forEach((c, d) => ((lo[d] = Math.min(lo[d], c)), (hi[d] = Math.max(hi[d], c + 1))));
    const boxShape = hi.map((h, d) => (h - lo[d]) * this.innerShape[d]);
    const strides = contiguousStrides(boxShape);
    const data = chunkElements(spec.dtype, product(boxShape), lease);
    const box: ChunkView = { data, shape: spec.shape, strides, offset: -lo.reduce((at, l, d) => at + l * this.innerShape[d] * strides[d], 0) };
    if (!write.covers) await this.decodeInners(previous, old, touched, spec, box);
    write.put(box);
    const parts = await Promise.all(
      Array.from(old.offsets.keys(), (i): Promise<Uint8Array | null> | Uint8Array | null => {
        if (touched.has(i)) return this.encodeInner(box, spec, i);
        // Untouched: its encoded bytes move over as they are (a copy, in the new layout).
        return old.offsets[i] < 0 ? null : previous!.subarray(old.offsets[i], old.offsets[i] + old.lengths[i]);
      }),
    );
    // A shard of no inner chunk is all fill value (a stored inner chunk counts as values).
    if (!writeEmpty && parts.every((p) => p === null)) return { kind: "empty" };
    return { kind: "bytes", bytes: await this.assemble(parts) };
  }

  /** The index of a shard held whole in memory. */
  private async indexOfShard(shard: Uint8Array): Promise<ShardIndex> {
    this.checkIndexSize();
    const size = this.indexSize;
    if (shard.length < size) {
      throw new CorruptChunkError(`shard of ${shard.length} bytes is too short to hold its ${size}-byte index`);
    }
    const at = this.indexLocation === "start" ? 0 : shard.length - size;
    return decodeIndex(shard.subarray(at, at + size), this.chunksPerShard, this.index, this.dataRegion(shard.length));
  }

  /** The index of a shard behind a source (one range request), with that read's size and version. */
  private async indexOfSource(source: ByteSource): Promise<FoundIndex | undefined> {
    const size = this.indexSize;
    if (size > MAX_INDEX_BYTES) {
      // A missing shard still reads as the fill value: refuse only one that exists.
      if ((await source.getRange({ offset: 0, length: 1 })) === undefined) return undefined;
      this.checkIndexSize();
    }
    const read = await source.getRange(this.indexLocation === "start" ? { offset: 0, length: size } : { offset: -size });
    if (read === undefined) return undefined;
    if (read.bytes.length < size) {
      throw new CorruptChunkError(`shard of ${read.bytes.length} bytes is too short to hold its ${size}-byte index`);
    }
    return { index: await decodeIndex(read.bytes, this.chunksPerShard, this.index, this.dataRegion(read.size)), read };
  }

  async decode(bytes: Uint8Array, spec: ChunkSpec): Promise<ChunkView> {
    const shape = spec.shape;
    const out = allocElements(spec.dtype, product(shape));
    await this.decodeInto(bytes, spec, { data: out, offset: 0, strides: contiguousStrides(shape) });
    return contiguousView(out, [...shape]);
  }

  /**
   * Each inner chunk of a whole shard goes straight to its place in `target`, decoded by the inner
   * chain's best way there (into place, into rows, via this thread's scratch): no shard-sized buffer.
   */
  async decodeInto(bytes: Uint8Array, spec: ChunkSpec, target: DecodeTarget): Promise<void> {
    const index = await this.indexOfShard(bytes);
    await this.decodeInners(bytes, index, index.offsets.keys(), spec, target);
  }

  /** Inner chunks `which` of a shard with `index` decoded into their places in `target` (the fill value where not stored). */
  private async decodeInners(bytes: Uint8Array | undefined, index: ShardIndex, which: Iterable<number>, spec: ChunkSpec, target: DecodeTarget): Promise<void> {
    await settleAll(
      Array.from(which, async (i) => {
        const coords = this.coordsOf(i);
        const dst = { data: target.data, ...regionAt(coords.map((c, d) => c * this.innerShape[d]), null, target.strides, target.offset) };
        if (index.offsets[i] < 0) return fillElements(target.data, dst, this.innerShape, fillComponents(spec.fillValue, spec.dtype));
        try {
          await this.inner.decodeInto(bytes!.subarray(index.offsets[i], index.offsets[i] + index.lengths[i]), dst);
        } catch (err) {
          innerFailure(coords, err);
        }
      }),
    );
  }

  /** Reads the index and then only the inner chunks a selection touches, coalescing nearby ranges. */
  partialDecoder(source: ByteSource, spec: ChunkSpec): PartialDecoder {
    return {
      decodeInto: async (selection, target) => {
        if (coversAll(selection, spec.shape)) {
          // The whole shard: one request, each inner chunk decoded straight into its place.
          const shard = await source.get();
          if (shard !== undefined) await this.decodeInto(shard, spec, target);
          return shard !== undefined;
        }
        // A kept index, else a fresh one, else the whole shard: each when the one before met a change.
        let mode: ReadMode = source.cacheKey !== undefined && known.has(source.cacheKey) ? "known" : "fresh";
        for (;;) {
          try {
            return await this.decodeSome(source, selection, spec, target, mode);
          } catch (err) {
            if (!(err instanceof ShardChanged) || mode === "whole") throw err;
            mode = mode === "known" ? "fresh" : "whole";
          }
        }
      },
    };
  }

  /** One try of a partial read: false when the shard is not stored (before anything is written). */
  private async decodeSome(source: ByteSource, selection: readonly ChunkRun[], spec: ChunkSpec, target: DecodeTarget, mode: ReadMode): Promise<boolean> {
    const touched = this.touched(selection);
    const bytesOf = new Map<number, Uint8Array>();
    let index: ShardIndex | undefined;
    let nested: ((t: ChunkProjection, i: number) => PartialDecoder) | undefined;

    if (mode === "whole" || touched.length === product(this.chunksPerShard)) {
      // Every inner chunk is needed: one request for the shard beats an index and n ranges.
      const shard = await source.get();
      if (shard === undefined) return false;
      index = await this.indexOfShard(shard);
      for (const t of touched) {
        const i = this.linear(t.coords);
        if (index.offsets[i] >= 0) bytesOf.set(i, shard.subarray(index.offsets[i], index.offsets[i] + index.lengths[i]));
      }
    } else {
      const key = source.cacheKey;
      let kept = mode === "known" && key !== undefined ? known.get(key) : undefined;
      // A kept index is checked by the versions of the ranges read through it: a read of empty
      // inner chunks alone reads none, so it takes a fresh index.
      if (kept && !touched.some((t) => kept!.index.offsets[this.linear(t.coords)] >= 0)) kept = undefined;
      const found = kept ?? (await this.indexOfSource(source));
      if (found === undefined) return false;
      if (!kept && key !== undefined) keep(key, found);
      const idx = (index = found.index);
      // Every later range must come from the version of the shard the index came from.
      const read = async (range: ByteRange): Promise<SourceRange> => {
        const got = await source.getRange(range);
        if (got === undefined || changed(found.read, got, kept !== undefined)) throw new ShardChanged();
        return got;
      };
      const stored = touched.map((t) => this.linear(t.coords)).filter((i) => idx.offsets[i] >= 0);
      if (this.inner.canDecodePartial) {
        // Inner chunks that are shards themselves: read their own index and inner chunks.
        nested = (_t, i) => this.inner.partialDecoder(windowOf(read, idx.offsets[i], idx.lengths[i]));
      } else {
        const groups = coalesceRanges(stored.map((i) => ({ offset: idx.offsets[i], length: idx.lengths[i] })));
        await Promise.all(
          groups.map(async (g) => {
            const got = (await read({ offset: g.offset, length: g.length })).bytes;
            // Shorter than its index says: rewritten since (where the store gives no versions) or
            // cut short; the whole shard, read at once, tells which.
            if (got.length < g.length) throw new ShardChanged();
            for (const m of g.members) {
              const i = stored[m];
              const at = idx.offsets[i] - g.offset;
              bytesOf.set(i, got.subarray(at, at + idx.lengths[i]));
            }
          }),
        );
      }
    }

    const shardIndex = index;
    const fill = fillComponents(spec.fillValue, spec.dtype);
    await settleAll(
      touched.map(async (t) => {
        const i = this.linear(t.coords);
        const counts = t.chunkSel.map((r) => r.count);
        const dst = { data: target.data, ...regionAt(t.outStart, null, target.strides, target.offset) };
        if (shardIndex.offsets[i] < 0) return fillElements(target.data, dst, counts, fill);
        try {
          if (!nested) await this.inner.decodePart(bytesOf.get(i)!, t.chunkSel, dst);
          else if (!(await nested(t, i).decodeInto(t.chunkSel, dst))) fillElements(target.data, dst, counts, fill);
        } catch (err) {
          innerFailure(t.coords, err);
        }
      }),
    );
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration

export const shardingCodec: CodecFactory = (conf, spec, chain) => {
  const raw = conf.chunk_shape;
  if (
    !Array.isArray(raw) ||
    raw.length !== spec.shape.length ||
    raw.some((x) => typeof x !== "number" || !Number.isSafeInteger(x) || x < 1)
  ) {
    throw new InvalidMetadataError(`codec "${NAME}": "chunk_shape" must be ${spec.shape.length} positive integers, got ${JSON.stringify(raw)}`);
  }
  const innerShape = raw as number[];
  innerShape.forEach((c, d) => {
    if (spec.shape[d] % c !== 0) {
      throw new InvalidMetadataError(
        `codec "${NAME}": the shard shape [${spec.shape}] must be a multiple of the inner chunk shape [${innerShape}] (dimension ${d})`,
      );
    }
  });
  const chunksPerShard = spec.shape.map((s, d) => s / innerShape[d]);
  const inner = chain(codecList(conf.codecs, "codecs", NAME), { shape: [...innerShape], dtype: spec.dtype, fillValue: spec.fillValue });
  const defaultIndexCodecs: JsonValue[] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }];
  const indexCodecs = conf.index_codecs === undefined ? defaultIndexCodecs : conf.index_codecs;
  const indexList = codecList(indexCodecs, "index_codecs", NAME);
  // A reader finds the index by its size, so its codecs must encode to a size known in advance.
  const variable = indexList.find((c) => !FIXED_SIZE_CODECS.has(c.name));
  if (variable) {
    throw new UnsupportedError(`codec "${NAME}": index_codecs may only hold fixed-size codecs (bytes, crc32c, transpose), not "${variable.name}"`);
  }
  const index = chain(indexList, indexSpec(chunksPerShard));
  const indexLocation = enumOption(conf, "index_location", NAME, ["start", "end"] as const, "end");
  const configuration: JsonObject = {
    chunk_shape: [...innerShape],
    codecs: codecListJson(inner.configs),
    index_codecs: codecListJson(index.configs),
    index_location: indexLocation,
  };
  return { codec: new ShardingCodec(innerShape, chunksPerShard, inner, index, indexLocation), configuration };
};
