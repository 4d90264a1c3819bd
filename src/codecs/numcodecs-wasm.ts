/**
 * numcodecs.js (Emscripten WASM builds of c-blosc, zstd and lz4): the reference implementations
 * our own codecs are checked against, and the fallback where we have no implementation of our own.
 * Known defect: its blosc encoder writes typesize 1 whatever the data, so parzarr never uses it to
 * encode blosc.
 */
import Blosc from "numcodecs/blosc";
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

export async function wasmBloscDecompress(src: Uint8Array): Promise<Uint8Array> {
  bloscDecoder ??= Blosc.fromConfig({ id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 });
  return bloscDecoder.decode(src);
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
