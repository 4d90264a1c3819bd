/**
 * pako 3, the pure-JavaScript zlib/gzip backend: deflate.ts imports this module on first use
 * where there is no node:zlib (browsers), so a page or worker that never touches a zlib stream
 * does not load it; tests and benchmarks import it directly as the reference.
 */
import * as pako from "pako";

/** One implementation of the four operations; `maxOutput` caps inflation (a corrupt or hostile stream). */
export interface DeflateBackend {
  readonly name: "node:zlib" | "wasm-kernel" | "pako";
  deflate(src: Uint8Array, level: number): Uint8Array;
  gzip(src: Uint8Array, level: number): Uint8Array;
  inflate(src: Uint8Array, maxOutput?: number): Uint8Array;
  gunzip(src: Uint8Array, maxOutput?: number): Uint8Array;
}

function checkCap(out: Uint8Array, maxOutput: number | undefined): Uint8Array {
  // pako has no output cap; the check after the fact keeps the two backends' contracts the same.
  if (maxOutput !== undefined && out.length > maxOutput) throw new RangeError(`inflated past the ${maxOutput}-byte limit`);
  return out;
}

export const pakoBackend: DeflateBackend = {
  name: "pako",
  deflate: (src, level) => pako.deflate(src, { level: level as pako.DeflateOptions["level"] }),
  gzip: (src, level) => pako.gzip(src, { level: level as pako.DeflateOptions["level"] }),
  inflate: (src, maxOutput) => checkCap(pako.inflate(src), maxOutput),
  gunzip: (src, maxOutput) => checkCap(pako.ungzip(src), maxOutput),
};
