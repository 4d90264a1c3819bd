/*
 * What kernels.c, zstd-decode.c and inflate.c share: the integer names, the export marker, reads
 * of unaligned little-endian words (WebAssembly's byte order) and the 16-byte vector copies. One
 * copy here, included by each; tools/build-wasm.ts counts it in the sources' SHA-256.
 */
#ifndef PARZARR_WASM_COMMON_H
#define PARZARR_WASM_COMMON_H

#include <stdint.h>
#include <wasm_simd128.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef int16_t s16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;

#define EXPORT(name) __attribute__((export_name(name)))

static inline u32 rd16(const u8 *p) { return (u32)p[0] | ((u32)p[1] << 8); }
static inline u32 rd32(const u8 *p) {
  u32 v;
  __builtin_memcpy(&v, p, 4);
  return v;
}
static inline u64 rd64(const u8 *p) {
  u64 v;
  __builtin_memcpy(&v, p, 8);
  return v;
}

/* Copies n bytes in 16-byte steps; may write up to 15 bytes past dst + n and read past src + n. */
static inline void copy16(u8 *dst, const u8 *src, u32 n) {
  u8 *end = dst + n;
  do {
    wasm_v128_store(dst, wasm_v128_load(src));
    dst += 16;
    src += 16;
  } while (dst < end);
}

/* Row d: byte i of a d-periodic pattern is byte i % d of its period (row 0 unused). */
static const u8 PERIOD_INDEX[16][16] = {
    {0}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
    {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0},
};
/* Row d: the largest multiple of d up to 16, how far one vector of the pattern advances. */
static const u8 PERIOD_STEP[16] = {0, 16, 16, 15, 16, 15, 12, 14, 16, 9, 10, 11, 12, 13, 14, 15};

/*
 * A match of n bytes from `offset` back; the regions overlap when offset < n. A short offset
 * repeats a pattern of `offset` bytes: one swizzle spreads it over a vector, stored every
 * multiple of the period that fits in 16 bytes. Runs of one byte (offset 1), common in shuffled
 * data, go 16 bytes a step. May write up to 15 bytes past op + n and reads op - offset + 16.
 */
static inline void copy_match(u8 *op, u32 offset, u32 n) {
  const u8 *m = op - offset;
  if (offset >= 16) {
    copy16(op, m, n);
    return;
  }
  v128_t p = wasm_i8x16_swizzle(wasm_v128_load(m), wasm_v128_load(PERIOD_INDEX[offset]));
  u32 step = PERIOD_STEP[offset];
  u8 *end = op + n;
  do {
    wasm_v128_store(op, p);
    op += step;
  } while (op < end);
}

#endif
