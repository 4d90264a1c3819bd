/**
 * WASM SIMD byte (un)shuffle for typesize 4, the common case (float32, int32 chunks). Each loop
 * step moves 16 elements with six i8x16.shuffle instructions instead of the 4x4 word transposes
 * of shuffle.ts. The module is 200-odd bytes assembled below (no toolchain, no binary file to
 * ship); where WebAssembly or its SIMD proposal is missing, `simdShuffle()` returns null and the
 * callers keep the JavaScript kernels, which produce the same bytes.
 *
 * The kernels work inside the module's own memory, so callers decode into (or shuffle from) the
 * scratch view and copy once. The scratch is shared: use it only in synchronous stretches of code
 * (no await between filling it and copying out), and take a fresh view after `reserve`, which may
 * grow (and so detach) the memory.
 */

// Opcodes used below.
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_CONST = 0x41;
const I32_ADD = 0x6a;
const I32_MUL = 0x6c;
const I32_SHL = 0x74;
const I32_LT_U = 0x49;
const I32_EQZ = 0x45;
const BLOCK = 0x02;
const LOOP = 0x03;
const BR_IF = 0x0d;
const END = 0x0b;
const VOID = 0x40;
const SIMD = 0xfd;
const V128_LOAD = 0x00;
const V128_STORE = 0x0b;
const I8X16_SHUFFLE = 0x0d;

const range = (from: number, n: number, step = 1): number[] => Array.from({ length: n }, (_, i) => from + i * step);
const interleave = (a: number[], b: number[]): number[] => a.flatMap((x, i) => [x, b[i]]);

// Lane patterns (lanes 0-15 from the first operand, 16-31 from the second).
/** Bytes 0-7 of a and b interleaved: a0 b0 a1 b1 ... a7 b7. */
const ZIP8_LO = interleave(range(0, 8), range(16, 8));
const ZIP8_HI = interleave(range(8, 8), range(24, 8));
/** 16-bit pairs 0-3 of a and b interleaved. */
const ZIP16_LO = range(0, 4).flatMap((k) => [2 * k, 2 * k + 1, 16 + 2 * k, 17 + 2 * k]);
const ZIP16_HI = range(4, 4).flatMap((k) => [2 * k, 2 * k + 1, 16 + 2 * k, 17 + 2 * k]);
/** Every fourth byte of a then of b, starting at byte j and j + 1: the inverse gathers. */
const GATHER4 = (j: number): number[] => [...range(j, 4, 4), ...range(16 + j, 4, 4), ...range(j + 1, 4, 4), ...range(17 + j, 4, 4)];
const HALVES_LO = [...range(0, 8), ...range(16, 8)];
const HALVES_HI = [...range(8, 8), ...range(24, 8)];

const get = (i: number): number[] => [LOCAL_GET, i];
const set = (i: number): number[] => [LOCAL_SET, i];
const shuffle = (lanes: number[]): number[] => [SIMD, I8X16_SHUFFLE, ...lanes];
const load = (offset = 0): number[] => [SIMD, V128_LOAD, 0, offset];
const store = (offset = 0): number[] => [SIMD, V128_STORE, 0, offset];

// Parameters: 0 src, 1 dst, 2 n (elements, a multiple of 16). Locals: 3 i, 4 p, 5 q (i32);
// 6-9 four loaded vectors, 10-13 four intermediate ones (v128).
const LOCALS = [2, 3, 0x7f, 8, 0x7b];

/** Streams -> elements: reads 16 bytes of each stream, writes 64 bytes of elements. */
const UNSHUFFLE4 = [
  ...LOCALS,
  BLOCK, VOID, ...get(2), I32_EQZ, BR_IF, 0,
  LOOP, VOID,
  ...get(0), ...get(3), I32_ADD, ...set(4),
  ...get(4), ...load(), ...set(6),
  ...get(4), ...get(2), I32_ADD, ...load(), ...set(7),
  ...get(4), ...get(2), I32_CONST, 1, I32_SHL, I32_ADD, ...load(), ...set(8),
  ...get(4), ...get(2), I32_CONST, 3, I32_MUL, I32_ADD, ...load(), ...set(9),
  ...get(6), ...get(7), ...shuffle(ZIP8_LO), ...set(10),
  ...get(6), ...get(7), ...shuffle(ZIP8_HI), ...set(11),
  ...get(8), ...get(9), ...shuffle(ZIP8_LO), ...set(12),
  ...get(8), ...get(9), ...shuffle(ZIP8_HI), ...set(13),
  ...get(1), ...get(3), I32_CONST, 2, I32_SHL, I32_ADD, ...set(5),
  ...get(5), ...get(10), ...get(12), ...shuffle(ZIP16_LO), ...store(0),
  ...get(5), ...get(10), ...get(12), ...shuffle(ZIP16_HI), ...store(16),
  ...get(5), ...get(11), ...get(13), ...shuffle(ZIP16_LO), ...store(32),
  ...get(5), ...get(11), ...get(13), ...shuffle(ZIP16_HI), ...store(48),
  ...get(3), I32_CONST, 16, I32_ADD, LOCAL_TEE, 3, ...get(2), I32_LT_U, BR_IF, 0,
  END, END, END,
];

/** Elements -> streams: reads 64 bytes of elements, writes 16 bytes to each stream. */
const SHUFFLE4 = [
  ...LOCALS,
  BLOCK, VOID, ...get(2), I32_EQZ, BR_IF, 0,
  LOOP, VOID,
  ...get(0), ...get(3), I32_CONST, 2, I32_SHL, I32_ADD, ...set(4),
  ...get(4), ...load(0), ...set(6),
  ...get(4), ...load(16), ...set(7),
  ...get(4), ...load(32), ...set(8),
  ...get(4), ...load(48), ...set(9),
  // Bytes 0 and 1 of elements 0-7, then bytes 2 and 3; the same for elements 8-15.
  ...get(6), ...get(7), ...shuffle(GATHER4(0)), ...set(10),
  ...get(6), ...get(7), ...shuffle(GATHER4(2)), ...set(11),
  ...get(8), ...get(9), ...shuffle(GATHER4(0)), ...set(12),
  ...get(8), ...get(9), ...shuffle(GATHER4(2)), ...set(13),
  ...get(1), ...get(3), I32_ADD, ...set(5),
  ...get(5), ...get(10), ...get(12), ...shuffle(HALVES_LO), ...store(0),
  ...get(5), ...get(2), I32_ADD, ...get(10), ...get(12), ...shuffle(HALVES_HI), ...store(0),
  ...get(5), ...get(2), I32_CONST, 1, I32_SHL, I32_ADD, ...get(11), ...get(13), ...shuffle(HALVES_LO), ...store(0),
  ...get(5), ...get(2), I32_CONST, 3, I32_MUL, I32_ADD, ...get(11), ...get(13), ...shuffle(HALVES_HI), ...store(0),
  ...get(3), I32_CONST, 16, I32_ADD, LOCAL_TEE, 3, ...get(2), I32_LT_U, BR_IF, 0,
  END, END, END,
];

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [s.length, ...[...s].map((c) => c.charCodeAt(0))];

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const bodies = [UNSHUFFLE4, SHUFFLE4].map((b) => [...uleb(b.length), ...b]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]),
    ...section(3, [2, 0, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, [3, ...name("mem"), 2, 0, ...name("unshuffle4"), 0, 0, ...name("shuffle4"), 0, 1]),
    ...section(10, [2, ...bodies.flat()]),
  ]);
}

export interface SimdShuffle {
  /** Makes the scratch at least `bytes` long and returns a view of all of it (valid until the next reserve). */
  reserve(bytes: number): Uint8Array;
  /** Unshuffles `n` elements (a multiple of 16) of typesize 4 from scratch offset `src` to `dst`. */
  unshuffle4(src: number, dst: number, n: number): void;
  /** Shuffles `n` elements (a multiple of 16) of typesize 4 from scratch offset `src` to `dst`. */
  shuffle4(src: number, dst: number, n: number): void;
}

/** The scratch never grows past this: larger blocks keep the JavaScript kernels. */
export const SIMD_SCRATCH_LIMIT = 64 << 20;

let instance: SimdShuffle | null | undefined;

/** The SIMD kernels, or null where this runtime has no WebAssembly SIMD. */
export function simdShuffle(): SimdShuffle | null {
  if (instance !== undefined) return instance;
  instance = null;
  try {
    const W = (globalThis as { WebAssembly?: typeof WebAssembly }).WebAssembly;
    const bytes = moduleBytes();
    if (W === undefined || !W.validate(bytes)) return null;
    const inst = new W.Instance(new W.Module(bytes), {});
    const mem = inst.exports.mem as WebAssembly.Memory;
    const unshuffle4 = inst.exports.unshuffle4 as (s: number, d: number, n: number) => void;
    const shuffle4 = inst.exports.shuffle4 as (s: number, d: number, n: number) => void;
    let view = new Uint8Array(mem.buffer);
    instance = {
      reserve(n: number): Uint8Array {
        if (n > mem.buffer.byteLength) {
          mem.grow(Math.ceil((n - mem.buffer.byteLength) / 65536));
          view = new Uint8Array(mem.buffer);
        } else if (view.buffer !== mem.buffer) {
          view = new Uint8Array(mem.buffer);
        }
        return view;
      },
      unshuffle4,
      shuffle4,
    };
  } catch {
    instance = null;
  }
  return instance;
}

/** For tests: the module assembled here (so a test can check it validates). */
export const simdModuleBytes = moduleBytes;
