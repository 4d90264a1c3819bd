/**
 * numcodecs.js (Emscripten WASM builds of c-blosc, zstd and lz4): the reference implementations
 * our own codecs are checked against, and the fallback where we have no implementation of our own.
 * Known defect: its blosc encoder writes typesize 1 whatever the data, so parzarr never uses it to
 * encode blosc.
 */
import Blosc from "numcodecs/blosc";
import { CorruptChunkError } from "../errors.js";
import LZ4 from "numcodecs/lz4";
import Zstd from "numcodecs/zstd";

type NumcodecsCodec = ReturnType<typeof Zstd.fromConfig>;

const zstdByLevel = new Map<number, NumcodecsCodec>();
let zstdDecoder: NumcodecsCodec | undefined;
let bloscDecoder: NumcodecsCodec | undefined;
let lz4Codec: NumcodecsCodec | undefined;

function zstdFor(level: number): NumcodecsCodec {
  let c = zstdByLevel.get(level);
  if (!c) {
    c = Zstd.fromConfig({ id: "zstd", level });
    zstdByLevel.set(level, c);
  }
  return c;
}

export async function wasmZstdCompress(src: Uint8Array, level: number): Promise<Uint8Array> {
  return zstdFor(level).encode(src);
}

export async function wasmZstdDecompress(src: Uint8Array): Promise<Uint8Array> {
  zstdDecoder ??= Zstd.fromConfig({ id: "zstd", level: 1 });
  return zstdDecoder.decode(src);
}

/**
 * The WASM decoder trusts the frame: a truncated one decodes into garbage without an error. The
 * header's sizes are checked here first, and the output size after.
 */
export async function wasmBloscDecompress(src: Uint8Array): Promise<Uint8Array> {
  if (src.length < 16) throw new CorruptChunkError(`blosc: ${src.length} bytes is shorter than the 16-byte header`);
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const nbytes = view.getUint32(4, true);
  const cbytes = view.getUint32(12, true);
  // Bytes past cbytes are allowed (z5py pads its chunks); fewer mean a truncated chunk.
  if (cbytes > src.length || cbytes < 16) throw new CorruptChunkError(`blosc: header says ${cbytes} compressed bytes, chunk has ${src.length}`);
  bloscDecoder ??= Blosc.fromConfig({ id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 });
  const out = await bloscDecoder.decode(src);
  if (out.length !== nbytes) throw new CorruptChunkError(`blosc: decoded ${out.length} bytes, header says ${nbytes}`);
  return out;
}

/** numcodecs' LZ4 framing: a 4-byte little-endian size, then one LZ4 block. */
export async function wasmLz4FramedDecompress(src: Uint8Array): Promise<Uint8Array> {
  lz4Codec ??= LZ4.fromConfig({ id: "lz4", acceleration: 1 });
  return lz4Codec.decode(src);
}

export async function wasmLz4FramedCompress(src: Uint8Array): Promise<Uint8Array> {
  lz4Codec ??= LZ4.fromConfig({ id: "lz4", acceleration: 1 });
  return lz4Codec.encode(src);
}
