/** The part of compressjs (no bundled types) that the bz2 codec uses: its decoder. */
declare module "compressjs" {
  interface Bzip2Api {
    decompressFile(input: Uint8Array): Uint8Array | number[];
  }
  const compressjs: { Bzip2: Bzip2Api };
  export default compressjs;
}
