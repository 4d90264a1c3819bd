/**
 * The zarr-extensions floats of 8 bits or fewer (float8_*, float6_*, float4_e2m1fn): their bit
 * layouts, decoding of every code into a number, and rounding a number to a code.
 *
 * Each format is described by its field widths, exponent bias and which codes are special, as
 * the specification pages give them (data-types/<name>/README.md). Rounding follows ml_dtypes,
 * the implementation the specifications point to (checked code by code against tables it wrote,
 * test/fixtures/ml-dtypes): nearest, ties to even, straight from float64; what happens past the
 * largest finite value and to NaN depends on the format's `special` rule below.
 */

/**
 * - `ieee`: the top exponent holds ±Infinity (mantissa 0) and NaN; overflow rounds to infinity.
 * - `fn`: no infinity; the all-ones code (each sign) is NaN; overflow is NaN.
 * - `fnuz`: no infinity, no negative zero; `0b1000...` is the only NaN; overflow is NaN.
 * - `fnu`: unsigned, no zero, all ones is NaN (float8_e8m0fnu, a power of two).
 * - `finite`: no infinity, no NaN; overflow and ±Infinity saturate to ±max, NaN becomes the
 *   sign-bit-only code (-0), as ml_dtypes does.
 */
export type MiniFloatSpecial = "ieee" | "fn" | "fnuz" | "fnu" | "finite";

export interface MiniFloatFormat {
  readonly exponentBits: number;
  readonly mantissaBits: number;
  readonly bias: number;
  readonly special: MiniFloatSpecial;
}

export const MINIFLOAT_FORMATS = {
  float8_e3m4: { exponentBits: 3, mantissaBits: 4, bias: 3, special: "ieee" },
  float8_e4m3: { exponentBits: 4, mantissaBits: 3, bias: 7, special: "ieee" },
  float8_e4m3fn: { exponentBits: 4, mantissaBits: 3, bias: 7, special: "fn" },
  float8_e4m3fnuz: { exponentBits: 4, mantissaBits: 3, bias: 8, special: "fnuz" },
  float8_e4m3b11fnuz: { exponentBits: 4, mantissaBits: 3, bias: 11, special: "fnuz" },
  float8_e5m2: { exponentBits: 5, mantissaBits: 2, bias: 15, special: "ieee" },
  float8_e5m2fnuz: { exponentBits: 5, mantissaBits: 2, bias: 16, special: "fnuz" },
  float8_e8m0fnu: { exponentBits: 8, mantissaBits: 0, bias: 127, special: "fnu" },
  float6_e2m3fn: { exponentBits: 2, mantissaBits: 3, bias: 1, special: "finite" },
  float6_e3m2fn: { exponentBits: 3, mantissaBits: 2, bias: 3, special: "finite" },
  float4_e2m1fn: { exponentBits: 2, mantissaBits: 1, bias: 1, special: "finite" },
} as const satisfies Record<string, MiniFloatFormat>;

export type MiniFloatName = keyof typeof MINIFLOAT_FORMATS;

export function isMiniFloatName(name: string): name is MiniFloatName {
  return Object.prototype.hasOwnProperty.call(MINIFLOAT_FORMATS, name);
}

/** Bits of a code: sign (unless unsigned), exponent, mantissa. */
export function codeBits(f: MiniFloatFormat): number {
  return (f.special === "fnu" ? 0 : 1) + f.exponentBits + f.mantissaBits;
}

function signBit(f: MiniFloatFormat): number {
  return f.special === "fnu" ? 0 : 1 << (f.exponentBits + f.mantissaBits);
}

/** The NaN code a rounding produces, or null where the format has none. */
function nanCode(f: MiniFloatFormat): number | null {
  const top = (1 << f.exponentBits) - 1;
  switch (f.special) {
    case "ieee":
      // The quiet NaN: top exponent, top mantissa bit (0x7c for e4m3, 0x7e for e5m2).
      return (top << f.mantissaBits) | (1 << (f.mantissaBits - 1));
    case "fn":
      return (1 << (f.exponentBits + f.mantissaBits)) - 1;
    case "fnuz":
      return signBit(f);
    case "fnu":
      return 0xff;
    case "finite":
      return null;
  }
}

/** The value of one code (its low `codeBits` bits). */
export function decodeMiniFloat(f: MiniFloatFormat, code: number): number {
  const m = f.mantissaBits;
  const topExp = (1 << f.exponentBits) - 1;
  const c = code & ((1 << codeBits(f)) - 1);
  const negative = (c & signBit(f)) !== 0;
  const e = (c >> m) & topExp;
  const mant = c & ((1 << m) - 1);
  switch (f.special) {
    case "ieee":
      if (e === topExp) return mant === 0 ? (negative ? -Infinity : Infinity) : NaN;
      break;
    case "fn":
      if (e === topExp && mant === (1 << m) - 1) return NaN;
      break;
    case "fnuz":
      if (c === signBit(f)) return NaN;
      break;
    case "fnu":
      // No sign, no mantissa, no subnormals: a plain power of two.
      return e === topExp ? NaN : 2 ** (e - f.bias);
    case "finite":
      break;
  }
  const magnitude = e === 0 ? (mant / 2 ** m) * 2 ** (1 - f.bias) : (1 + mant / 2 ** m) * 2 ** (e - f.bias);
  return negative ? -magnitude : magnitude;
}

interface Rounder {
  /** Values of the positive finite codes 0..last, increasing with the code. */
  readonly values: Float64Array;
  /** The value one step past the last finite code, as if the exponent went on: the overflow boundary. */
  readonly beyond: number;
  readonly table: Float32Array;
}

const rounders = new Map<MiniFloatFormat, Rounder>();

function rounderOf(f: MiniFloatFormat): Rounder {
  let r = rounders.get(f);
  if (r) return r;
  const count = 1 << codeBits(f);
  const table = new Float32Array(count);
  for (let c = 0; c < count; c++) table[c] = decodeMiniFloat(f, c);
  // Positive codes grow with their value up to the first special one.
  const positives: number[] = [];
  for (let c = 0; c < count && !(c & signBit(f) && f.special !== "fnu"); c++) {
    const v = decodeMiniFloat(f, c);
    if (!Number.isFinite(v)) break;
    positives.push(v);
  }
  const last = positives.length - 1;
  const step = last > 0 ? positives[last] - positives[last - 1] : positives[last];
  // e8m0 doubles per code; the others step by one unit in the last place of the top binade.
  const beyond = f.special === "fnu" ? positives[last] * 2 : positives[last] + step;
  r = { values: Float64Array.from(positives), beyond, table };
  rounders.set(f, r);
  return r;
}

/** Every code's value, indexed by code: decoding a stored byte is one lookup. */
export function miniFloatTable(f: MiniFloatFormat): Float32Array {
  return rounderOf(f).table;
}

/**
 * The code nearest to `x`, ties to even (see MiniFloatSpecial for overflow and NaN). `x` is
 * rounded to float32 first, as ml_dtypes converts a float64 (and as memory holds these types:
 * a Float32Array), so a float64 a hair off a midpoint rounds as the midpoint does there.
 */
export function encodeMiniFloat(f: MiniFloatFormat, x64: number): number {
  const x = Math.fround(x64);
  const { values, beyond } = rounderOf(f);
  const last = values.length - 1;
  const nan = nanCode(f);
  const sign = f.special === "fnu" ? 0 : x < 0 || Object.is(x, -0) ? signBit(f) : 0;
  if (Number.isNaN(x)) return nan ?? signBit(f);
  if (f.special === "fnu") {
    // No sign and no zero: negatives, zero and what rounds below the smallest power are NaN.
    return x <= 0 ? nan! : roundPowerOfTwo(values, beyond, x, nan!);
  }
  const a = Math.abs(x);
  let code: number;
  if (a >= values[last]) {
    const mid = (values[last] + beyond) / 2;
    // The boundary code past the top is even (mantissa all zero), so a tie overflows, unless the
    // last finite code is itself even (fn formats, whose all-ones code is NaN).
    const overflows = a > mid || (a === mid && last % 2 === 1);
    if (!overflows) code = last;
    else if (f.special === "ieee") code = last + 1; // Infinity
    else if (f.special === "finite") code = last; // saturate
    else if (f.special === "fn") return sign | nan!; // NaN of the value's sign, as ml_dtypes
    else return nan!;
  } else {
    // The largest code whose value is <= a, then nearest of it and the next, ties to even.
    const lo = floorCode(values, a);
    const hi = lo + 1;
    const down = a - values[lo];
    const up = values[hi] - a;
    code = down < up || (down === up && lo % 2 === 0) ? lo : hi;
  }
  // fnuz has no negative zero: its code is NaN.
  if (code === 0 && f.special === "fnuz") return 0;
  return sign | code;
}

/** float8_e8m0fnu: the nearest power of two, ties (1.5 * 2^k) up, as ml_dtypes rounds it. */
function roundPowerOfTwo(values: Float64Array, beyond: number, x: number, nan: number): number {
  const last = values.length - 1;
  if (x >= values[last]) return x >= (values[last] + beyond) / 2 ? nan : last;
  // Positive values under the smallest power (2^-127) still round to it; only zero is NaN.
  if (x < values[0]) return 0;
  const lo = floorCode(values, x);
  return x - values[lo] < values[lo + 1] - x ? lo : lo + 1;
}

/** The largest code whose value is <= x, for values[0] <= x < values[last]. */
function floorCode(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (values[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}
