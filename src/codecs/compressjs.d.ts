/** The part of compressjs (no bundled types) that the bz2 codec uses. */
declare module "compressjs" {
  interface Bzip2Api {
    compressFile(input: Uint8Array, output: null, blockSize100k: number): Uint8Array;
    decompressFile(input: Uint8Array): Uint8Array | number[];
  }
  const compressjs: { Bzip2: Bzip2Api };
  export default compressjs;
}
