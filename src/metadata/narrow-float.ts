/**
 * Float components held as float32 in memory but stored narrower: bfloat16, float16 (where the
 * runtime has no Float16Array, and always inside complex_float16) and the zarr-extensions floats
 * of 8 bits or fewer. One table decodes a stored code; one function rounds a number to a code.
 */
import { bfloat16BitsToNumber, numberToBfloat16Bits } from "./bfloat16.js";
import { float16Codec } from "./float16.js";
import { MINIFLOAT_FORMATS, codeBits, encodeMiniFloat, miniFloatTable, type MiniFloatFormat, type MiniFloatName } from "./minifloat.js";

export type NarrowFloatComponent = MiniFloatName | "bfloat16" | "float16";

export interface ComponentCodec {
  /** Bytes a stored component takes (its code sits in the low bits). */
  readonly bytes: 1 | 2;
  /** Bits of the code: the upper bits of a stored byte are ignored (float6, float4). */
  readonly bits: number;
  /** Every code's value, indexed by code. */
  readonly table: Float32Array;
  /** The code of the value nearest to a number, by the type's rounding rule. */
  encode(x: number): number;
  /** The format of an 8-bit-or-smaller float, for its special values; null for 16-bit ones. */
  readonly format: MiniFloatFormat | null;
}

let bfloat16Table: Float32Array | undefined;

function bfloat16Codes(): Float32Array {
  if (!bfloat16Table) {
    bfloat16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) bfloat16Table[h] = bfloat16BitsToNumber(h);
  }
  return bfloat16Table;
}

const codecs = new Map<NarrowFloatComponent, ComponentCodec>();

export function componentCodec(c: NarrowFloatComponent): ComponentCodec {
  let codec = codecs.get(c);
  if (codec) return codec;
  if (c === "bfloat16") codec = { bytes: 2, bits: 16, table: bfloat16Codes(), encode: numberToBfloat16Bits, format: null };
  else if (c === "float16") codec = float16Codec();
  else {
    const f = MINIFLOAT_FORMATS[c];
    codec = { bytes: 1, bits: codeBits(f), table: miniFloatTable(f), encode: (x) => encodeMiniFloat(f, x), format: f };
  }
  codecs.set(c, codec);
  return codec;
}

/** A number as the component type holds it: rounded to the nearest code, then that code's value. */
export function roundToComponent(c: NarrowFloatComponent, x: number): number {
  const codec = componentCodec(c);
  return codec.table[codec.encode(x)];
}
