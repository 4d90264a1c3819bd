/**
 * IEEE 754 half-precision conversions, for runtimes without Float16Array (Node 20): float16 data
 * is held in a Float32Array and converted at the byte boundary.
 */
import type { ComponentCodec } from "./narrow-float.js";

/** A table of all 65536 half values makes decoding a single lookup. */
let decodeTable: Float32Array | undefined;

function buildDecodeTable(): Float32Array {
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) t[h] = slowHalfToNumber(h);
  return t;
}

function slowHalfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export function float16BitsToNumber(h: number): number {
  if (!decodeTable) decodeTable = buildDecodeTable();
  // Keep NaN payloads out of it: every NaN decodes to NaN, which is what a Float32Array holds.
  return decodeTable[h & 0xffff];
}

export function float16Table(): Float32Array {
  if (!decodeTable) decodeTable = buildDecodeTable();
  return decodeTable;
}

const f64 = new Float64Array(1);
const f64hi = new Uint32Array(f64.buffer);

function roundHalfEven(y: number): number {
  const f = Math.floor(y);
  const d = y - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Rounds a number to the nearest half (ties to even) straight from float64, as numpy's
 * astype(float16) does; going through float32 first could round twice.
 */
export function numberToFloat16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) {
    // Subnormal halves are multiples of 2^-24; a round-up to 0x400 is the smallest normal.
    return sign | roundHalfEven(a * 2 ** 24);
  }
  f64[0] = a;
  const e = ((f64hi[1] >>> 20) & 0x7ff) - 1023;
  // (a / 2^e - 1) * 1024 is exact in float64: only the exponent changes.
  let r = roundHalfEven((a / 2 ** e - 1) * 1024);
  let be = e + 15;
  if (r === 1024) {
    r = 0;
    be++;
  }
  if (be >= 31) return sign | 0x7c00;
  return sign | (be << 10) | r;
}

let codec: ComponentCodec | undefined;

/** float16 as narrow-float.ts' component codecs are: for runtimes without Float16Array, where plain float16 arrays convert too. */
export function float16Codec(): ComponentCodec {
  return (codec ??= { bytes: 2, bits: 16, table: float16Table(), encode: numberToFloat16Bits, format: null });
}
