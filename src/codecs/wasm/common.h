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

/*
 * A match of n bytes from `offset` back; the regions overlap when offset < n. A short offset
 * repeats a pattern: once its first d bytes are written (d the first multiple of offset from 16
 * up), every byte equals the one d back, so the rest moves as 16-byte vectors from d back. Runs
 * of one byte (offset 1), common in shuffled data, go 16 bytes a step instead of one.
 */
static inline void copy_match(u8 *op, u32 offset, u32 n) {
  const u8 *m = op - offset;
  if (offset >= 16) {
    copy16(op, m, n);
    return;
  }
  u32 d = offset;
  while (d < 16) d += offset;
  u32 i = 0;
  for (; i < d && i < n; i++) op[i] = m[i];
  if (i < n) copy16(op + i, op + i - d, n - i);
}

#endif
