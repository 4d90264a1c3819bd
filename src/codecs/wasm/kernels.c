/*
 * LZ4 block compression and the typesize-4 byte shuffle, compiled to WebAssembly by
 * tools/build-wasm.ts (clang --target=wasm32, no libc). The bytes it produces are exactly those of
 * lz4CompressInto's fast mode in lz4.ts: the same hash, table, skip heuristic, match extension and
 * limit checks, so both paths write the same frames (a test compares them). It is faster because
 * it reads whole unaligned words, compares eight bytes at a time when extending a match and copies
 * literals with 16-byte vector moves, which V8 cannot do for JavaScript on typed arrays.
 *
 * Memory: the module owns its memory; the caller reserves room past `__heap_base` and passes
 * offsets. Every buffer the caller hands in must have 16 bytes of slack after its end: literals
 * are copied in whole 16-byte vectors (the excess is overwritten by what follows, or lies past
 * the returned length).
 */
#include "common.h"

#define MIN_MATCH 4
#define LAST_LITERALS 5
#define MF_LIMIT 12
#define MAX_OFFSET 65535
#define HASH_LOG 12

static int32_t table[1 << HASH_LOG];

/* Knuth's multiplicative hash, as Math.imul(v, -1640531535) >>> 20 in lz4.ts. */
static inline u32 hash4(u32 v) { return (v * 2654435761u) >> (32 - HASH_LOG); }

/* Length-field bytes of a length >= 15 (the token holds 15): 255 each, then the rest. */
static inline u8 *write_length(u8 *op, u32 len) {
  len -= 15;
  for (; len >= 255; len -= 255) *op++ = 255;
  *op++ = (u8)len;
  return op;
}

/*
 * One sequence: literals src[anchor, ip), then a match of match_len at offset. Returns the new
 * output position, or 0 when it would pass `limit` (lz4.ts's writeSequence returns -1).
 */
static inline u8 *write_sequence(const u8 *src, u32 anchor, u32 ip, u32 offset, u32 match_len, u8 *op, const u8 *limit) {
  u32 lit_len = ip - anchor;
  u32 ml = match_len - MIN_MATCH;
  u32 need = 1 + lit_len + (lit_len + 240) / 255 + 2 + (ml + 240) / 255;
  if (op + need > limit) return 0;
  u8 *token_pos = op++;
  u32 token;
  if (lit_len >= 15) {
    token = 15 << 4;
    op = write_length(op, lit_len);
  } else {
    token = lit_len << 4;
  }
  if (lit_len > 0) copy16(op, src + anchor, lit_len);
  op += lit_len;
  *op++ = (u8)(offset & 255);
  *op++ = (u8)(offset >> 8);
  if (ml >= 15) {
    token |= 15;
    op = write_length(op, ml);
  } else {
    token |= ml;
  }
  *token_pos = (u8)token;
  return op;
}

/*
 * Compresses src[0, n) as one LZ4 block into dst, writing at most max_out bytes. Returns the
 * compressed length, or 0 when it does not fit (lz4's limited-output contract, which blosc uses to
 * store incompressible streams raw). acceleration >= 1 as in LZ4_compress_fast.
 */
EXPORT("lz4_compress")
u32 lz4_compress(const u8 *src, u32 n, u8 *dst, u32 max_out, u32 acceleration) {
  const u8 *limit = dst + max_out;
  u8 *op = dst;
  u32 anchor = 0;
  if (n >= MF_LIMIT + 1) {
    const u32 match_limit = n - LAST_LITERALS;
    const u32 mf_limit = n - MF_LIMIT;
    const u32 accel = acceleration < 1 ? 1 : acceleration;
    for (u32 i = 0; i < (1u << HASH_LOG); i++) table[i] = -1;
    u32 ip = 1;
    table[hash4(rd32(src))] = 0;
    while (ip <= mf_limit) {
      u32 ref;
      /* Greedy single-probe search; the step grows while nothing matches. */
      u32 search_count = accel << 6;
      u32 step = accel;
      for (;;) {
        u32 seq = rd32(src + ip);
        u32 h = hash4(seq);
        int32_t cand = table[h];
        table[h] = (int32_t)ip;
        if (cand >= 0 && ip - (u32)cand <= MAX_OFFSET && rd32(src + cand) == seq) {
          ref = (u32)cand;
          break;
        }
        ip += step;
        step = search_count++ >> 6;
        if (ip > mf_limit) goto last_literals;
      }
      /* Forward: eight bytes at a time, the first differing byte from the xor's trailing zeros. */
      u32 match_len = MIN_MATCH;
      while (ip + match_len + 8 <= match_limit) {
        u64 x = rd64(src + ip + match_len) ^ rd64(src + ref + match_len);
        if (x != 0) {
          match_len += (u32)__builtin_ctzll(x) >> 3;
          goto extended;
        }
        match_len += 8;
      }
      while (ip + match_len < match_limit && src[ref + match_len] == src[ip + match_len]) match_len++;
    extended:
      /* Backward over literals that also match. */
      while (ip > anchor && ref > 0 && src[ip - 1] == src[ref - 1]) {
        ip--;
        ref--;
        match_len++;
      }
      op = write_sequence(src, anchor, ip, ip - ref, match_len, op, limit);
      if (op == 0) return 0;
      ip += match_len;
      anchor = ip;
      if (ip > mf_limit) break;
      /* Index a position inside the match so the next search can find nearby repeats. */
      table[hash4(rd32(src + ip - 2))] = (int32_t)(ip - 2);
    }
  }
last_literals: {
  u32 lit_len = n - anchor;
  if (op + 1 + lit_len + (lit_len + 240) / 255 > limit) return 0;
  if (lit_len >= 15) {
    *op++ = 15 << 4;
    op = write_length(op, lit_len);
  } else {
    *op++ = (u8)(lit_len << 4);
  }
  __builtin_memcpy(op, src + anchor, lit_len);
  op += lit_len;
}
  return (u32)(op - dst);
}

/*
 * Adds a length field's extra bytes (the token held 15) to *len; 0 where the input ends first or
 * the length passes max (the output's room): unchecked, ~16.8 MB of 0xff bytes would wrap the u32
 * to a small length that lz4.ts's decoder refuses. max is under 2^32 - 255, so the sum cannot wrap.
 */
static inline const u8 *read_length(const u8 *ip, const u8 *iend, u32 *len, u32 max) {
  u32 b;
  do {
    if (ip >= iend) return 0;
    b = *ip++;
    *len += b;
    if (*len > max) return 0;
  } while (b == 255);
  return ip;
}

/*
 * Decodes one LZ4 block src[0, n) into dst, which holds cap bytes. Returns the decoded length, or
 * a negative number when the block is malformed (lz4.ts's decoder then runs on it to name the
 * fault). src and dst both need 16 bytes of slack: literals and matches move in whole vectors.
 */
EXPORT("lz4_decompress")
int32_t lz4_decompress(const u8 *src, u32 n, u8 *dst, u32 cap) {
  const u8 *ip = src;
  const u8 *const iend = src + n;
  u8 *op = dst;
  u8 *const oend = dst + cap;
  /*
   * The reference decoder's shortcut for the common sequence, fewer than 15 literals and a match
   * of under 19 bytes: while 16 input bytes remain past the token and 32 output bytes are free,
   * the literals and offset lie in the input and both copies fit, so one check covers them and
   * each copy is a fixed-size move. Under 32 bytes of output there is no shortcut (ip > src
   * always): op == dst would pass op <= short_oend, and the copies would write past the slack.
   */
  const u8 *const short_iend = n > 16 && cap >= 32 ? iend - 16 : src;
  u8 *const short_oend = cap >= 32 ? oend - 32 : dst;
  if (n == 0) return -1;
  for (;;) {
    u32 token = *ip++;
    u32 lit = token >> 4;
    u32 offset, ml;
    if (lit < 15 && ip < short_iend && op <= short_oend) {
      wasm_v128_store(op, wasm_v128_load(ip));
      ip += lit;
      op += lit;
      offset = rd16(ip);
      ip += 2;
      if (offset == 0 || offset > (u32)(op - dst)) return -6;
      ml = token & 15;
      if (ml < 15) {
        /* 4 to 18 bytes, and ip < iend still (a next token follows). */
        copy_match(op, offset, 18);
        op += ml + MIN_MATCH;
        continue;
      }
    } else {
      if (lit == 15 && (ip = read_length(ip, iend, &lit, (u32)(oend - op))) == 0) return -2;
      if ((u32)(iend - ip) < lit) return -3;
      if ((u32)(oend - op) < lit) return -4;
      if (lit > 0) copy16(op, ip, lit);
      ip += lit;
      op += lit;
      if (ip == iend) return (int32_t)(op - dst);
      if (iend - ip < 2) return -5;
      offset = rd16(ip);
      ip += 2;
      if (offset == 0 || offset > (u32)(op - dst)) return -6;
      ml = token & 15;
    }
    if (ml == 15 && (ip = read_length(ip, iend, &ml, (u32)(oend - op))) == 0) return -7;
    ml += MIN_MATCH;
    if ((u32)(oend - op) < ml) return -4;
    copy_match(op, offset, ml);
    op += ml;
    if (ip >= iend) return -8;
  }
}

/*
 * Byte unshuffle of n elements of 4 bytes (n a multiple of 16): dst[4 * i + j] = src[j * n + i].
 */
EXPORT("unshuffle4")
void unshuffle4(const u8 *src, u8 *dst, u32 n) {
  for (u32 i = 0; i < n; i += 16) {
    v128_t s0 = wasm_v128_load(src + i), s1 = wasm_v128_load(src + n + i);
    v128_t s2 = wasm_v128_load(src + 2 * n + i), s3 = wasm_v128_load(src + 3 * n + i);
    /* Bytes 0 and 1 of each element interleaved, then bytes 2 and 3. */
    v128_t lo01 = wasm_i8x16_shuffle(s0, s1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    v128_t hi01 = wasm_i8x16_shuffle(s0, s1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    v128_t lo23 = wasm_i8x16_shuffle(s2, s3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    v128_t hi23 = wasm_i8x16_shuffle(s2, s3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    u8 *d = dst + 4 * i;
    wasm_v128_store(d, wasm_i8x16_shuffle(lo01, lo23, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
    wasm_v128_store(d + 16, wasm_i8x16_shuffle(lo01, lo23, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
    wasm_v128_store(d + 32, wasm_i8x16_shuffle(hi01, hi23, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
    wasm_v128_store(d + 48, wasm_i8x16_shuffle(hi01, hi23, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
  }
}

/*
 * Byte shuffle of n elements of 4 bytes (n a multiple of 16): byte j of element i goes to
 * dst[j * n + i]. Same bytes as shuffle.ts.
 */
EXPORT("shuffle4")
void shuffle4(const u8 *src, u8 *dst, u32 n) {
  for (u32 i = 0; i < n; i += 16) {
    const u8 *s = src + 4 * i;
    v128_t a = wasm_v128_load(s), b = wasm_v128_load(s + 16), c = wasm_v128_load(s + 32), d = wasm_v128_load(s + 48);
    /* Bytes 0 and 1 of eight elements, then bytes 2 and 3. */
    v128_t ab01 = wasm_i8x16_shuffle(a, b, 0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    v128_t ab23 = wasm_i8x16_shuffle(a, b, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
    v128_t cd01 = wasm_i8x16_shuffle(c, d, 0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    v128_t cd23 = wasm_i8x16_shuffle(c, d, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
    wasm_v128_store(dst + i, wasm_i8x16_shuffle(ab01, cd01, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
    wasm_v128_store(dst + n + i, wasm_i8x16_shuffle(ab01, cd01, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
    wasm_v128_store(dst + 2 * n + i, wasm_i8x16_shuffle(ab23, cd23, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
    wasm_v128_store(dst + 3 * n + i, wasm_i8x16_shuffle(ab23, cd23, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
  }
}
