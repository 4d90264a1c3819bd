/**
 * bfloat16 conversions: a bfloat16 is the upper 16 bits of a float32, so decoding is a shift and
 * encoding rounds the dropped half to nearest, ties to even (NaN kept a quiet NaN).
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function bfloat16BitsToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0];
}

export function numberToBfloat16Bits(x: number): number {
  f32[0] = x;
  const w = u32[0];
  if (Number.isNaN(x)) return ((w >>> 16) | 0x0040) & 0xffff;
  const rounded = w + 0x7fff + ((w >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}
