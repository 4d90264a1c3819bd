/*
 * Inflate (RFC 1951) with the zlib (RFC 1950) and gzip (RFC 1952) wrappers, compiled with
 * kernels.c into one WebAssembly module by tools/build-wasm.ts. It is the zlib and gzip decoder
 * where the runtime has no node:zlib (browsers), in place of pako's JavaScript. It decodes a whole
 * stream into one flat output, so a match may reach back to the start of its stream and no window
 * is kept; it follows zlib's rules on what it accepts (complete Huffman codes but for a lone
 * distance code, no more than 286 length and 30 distance codes, checksums verified, trailing
 * bytes after a zlib stream ignored, concatenated gzip members joined, data after a gzip member
 * that starts with a zero byte ignored, anything else there refused).
 *
 * Every read and write is bounds-checked; damaged input gives a negative IERR_* code. The output
 * needs 32 bytes of room after its capacity: matches move as 16-byte vectors.
 */
#include "common.h"

/* Error codes returned (negated) to JavaScript; deflate.ts names them. */
enum {
  IERR_TRUNCATED = 1,  /* the input ends inside the stream */
  IERR_HEADER = 2,     /* a zlib or gzip header is malformed, or a block type is reserved */
  IERR_DICTIONARY = 3, /* a zlib stream that needs a preset dictionary */
  IERR_OUTPUT = 4,     /* the output does not fit the capacity */
  IERR_CHECKSUM = 5,   /* the Adler-32 or CRC-32 (or gzip's length) does not match */
  IERR_CODES = 6,      /* a Huffman code description is invalid */
  IERR_SYMBOL = 7,     /* an invalid length or distance symbol */
  IERR_DISTANCE = 8,   /* a match reaches before the start of the output */
  IERR_STORED = 9,     /* a stored block's length does not match its complement */
};


/* ---- Checksums ---- */

static u32 crcTable[8][256];
static int crcReady;

static void crc_init(void) {
  for (u32 n = 0; n < 256; n++) {
    u32 c = n;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crcTable[0][n] = c;
  }
  for (u32 n = 0; n < 256; n++)
    for (int t = 1; t < 8; t++) crcTable[t][n] = (crcTable[t - 1][n] >> 8) ^ crcTable[0][crcTable[t - 1][n] & 255];
  crcReady = 1;
}

/* CRC-32 (gzip's), eight bytes a step. */
static u32 crc32(u32 crc, const u8 *p, u32 n) {
  if (!crcReady) crc_init();
  crc = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    u32 a = rd32(p) ^ crc, b = rd32(p + 4);
    crc = crcTable[7][a & 255] ^ crcTable[6][(a >> 8) & 255] ^ crcTable[5][(a >> 16) & 255] ^ crcTable[4][a >> 24] ^
          crcTable[3][b & 255] ^ crcTable[2][(b >> 8) & 255] ^ crcTable[1][(b >> 16) & 255] ^ crcTable[0][b >> 24];
  }
  while (n--) crc = crcTable[0][(crc ^ *p++) & 255] ^ (crc >> 8);
  return ~crc;
}

/* Adler-32 (zlib's), reducing modulo 65521 every 5552 bytes, where the sums cannot overflow. */
static u32 adler32(const u8 *p, u32 n) {
  u32 a = 1, b = 0;
  while (n > 0) {
    u32 k = n < 5552 ? n : 5552;
    n -= k;
    while (k--) {
      a += *p++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return (b << 16) | a;
}

/* ---- Huffman codes ---- */

#define FAST_BITS 12
#define MAX_BITS 15

/*
 * A canonical Huffman code: codes up to FAST_BITS long are found in one lookup of that many
 * stream bits (entries: symbol | length << 9, 0 for a longer code); longer ones are decoded a bit
 * at a time from the counts of codes per length and the symbols sorted by code.
 */
typedef struct {
  u32 mask;            /* (1 << table bits) - 1: the table is as wide as the longest code, up to FAST_BITS */
  u16 fast[1 << FAST_BITS];
  u16 count[MAX_BITS + 1];
  u16 sorted[288];
} Huffman;

/* Code kinds, for the completeness rule. */
enum { CODE_LENGTHS, LITLEN, DIST };

/* Reverses the low `len` bits of `code`. */
static inline u32 reverse_bits(u32 code, u32 len) {
  u32 r = 0;
  for (u32 i = 0; i < len; i++, code >>= 1) r = (r << 1) | (code & 1);
  return r;
}

/*
 * Builds `h` from the code lengths of n symbols; 0 when the lengths describe an over-subscribed
 * code, or an incomplete one other than a single one-bit code (zlib's rule; never for the
 * code-length code). A code with no symbols at all is allowed for distances.
 */
static int huffman_build(Huffman *h, const u8 *lengths, u32 n, int kind) {
  u16 offs[MAX_BITS + 2];
  for (u32 len = 0; len <= MAX_BITS; len++) h->count[len] = 0;
  for (u32 s = 0; s < n; s++) h->count[lengths[s]]++;
  u32 maxLen = 0;
  for (u32 len = 1; len <= MAX_BITS; len++)
    if (h->count[len]) maxLen = len;
  /* Only as many table bits as the longest code needs: a stream of many small blocks must not pay
     for clearing and filling 4096 entries per table per block. */
  u32 tableBits = maxLen < FAST_BITS ? (maxLen ? maxLen : 1) : FAST_BITS;
  h->mask = (1u << tableBits) - 1;
  __builtin_memset(h->fast, 0, (1u << tableBits) * sizeof h->fast[0]);
  if (maxLen == 0) return kind == DIST;
  s32 left = 1;
  for (u32 len = 1; len <= MAX_BITS; len++) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return 0;
  }
  if (left > 0 && (kind == CODE_LENGTHS || maxLen != 1)) return 0;
  offs[1] = 0;
  for (u32 len = 1; len < MAX_BITS; len++) offs[len + 1] = offs[len] + h->count[len];
  for (u32 s = 0; s < n; s++)
    if (lengths[s]) h->sorted[offs[lengths[s]]++] = (u16)s;
  /* The fast table: each short code at its bit-reversed value and every extension of it. */
  u32 code = 0, index = 0;
  for (u32 len = 1; len <= tableBits; len++) {
    for (u32 i = 0; i < h->count[len]; i++, code++, index++) {
      u16 entry = (u16)(h->sorted[index] | (len << 9));
      for (u32 r = reverse_bits(code, len); r <= h->mask; r += 1u << len) h->fast[r] = entry;
    }
    code <<= 1;
  }
  return 1;
}

/* ---- The bit reader: least significant bit first, refilled from a 64-bit container ---- */

typedef struct {
  u64 hold;
  u32 bits;        /* valid bits in hold */
  const u8 *ip, *end;
  u32 overread;    /* zero bytes added past the end, so lookups never need a check */
} Bits;

static inline void refill(Bits *b) {
  if (b->end - b->ip >= 8) {
    b->hold |= rd64(b->ip) << b->bits;
    b->ip += (63 - b->bits) >> 3;
    b->bits |= 56;
    return;
  }
  while (b->bits <= 56) {
    if (b->ip < b->end) b->hold |= (u64)*b->ip++ << b->bits;
    else b->overread++;
    b->bits += 8;
  }
}

static inline u32 take(Bits *b, u32 n) {
  u32 v = (u32)(b->hold & ((1ull << n) - 1));
  b->hold >>= n;
  b->bits -= n;
  return v;
}

/* A symbol of `h`; the container holds at least 15 bits. Returns -1 for a code that is not one. */
static inline s32 decode_symbol(Bits *b, const Huffman *h) {
  u32 e = h->fast[b->hold & h->mask];
  if (e) {
    take(b, e >> 9);
    return (s32)(e & 511);
  }
  /* A longer code: first code, and index of its first symbol, per length. */
  u32 code = 0, first = 0, index = 0;
  for (u32 len = 1; len <= MAX_BITS; len++) {
    code |= take(b, 1);
    u32 count = h->count[len];
    if (code - first < count) return h->sorted[index + (code - first)];
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

/* ---- Blocks ---- */

static const u16 LEN_BASE[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const u8 LEN_EXTRA[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const u16 DIST_BASE[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                  193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const u8 DIST_EXTRA[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const u8 CODE_LENGTH_ORDER[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* The current dynamic block's codes, the code-length code, and the fixed codes (built once: a
   stream of many tiny fixed blocks must not rebuild them per block). */
static Huffman litlen, dist, lencode, fixedLit, fixedDist;
static int fixedReady;

/*
 * The literal/length and distance codes of one block, applied until its end-of-block symbol.
 * Works on a local copy of the reader: output bytes could alias *in, which would make the
 * compiler reload its fields for every symbol. (On an error the caller stops, so the copy is
 * written back only on success.)
 */
static s32 inflate_codes(Bits *in, u8 **opp, u8 *start, u8 *oend, const Huffman *lit, const Huffman *dis) {
  Bits local = *in, *b = &local;
  u8 *op = *opp;
  for (;;) {
    /* A refill leaves 56 bits or more: three literals of up to 15 bits, or one length/distance
       pair (15 + 5 + 15 + 13 bits at most) after a refill of its own. */
    if (b->bits < MAX_BITS) {
      refill(b);
      if (b->overread > 8) return -IERR_TRUNCATED;
    }
    s32 sym = decode_symbol(b, lit);
    if (sym < 256) {
      if (sym < 0) return -IERR_CODES;
      if (op >= oend) return -IERR_OUTPUT;
      *op++ = (u8)sym;
      continue;
    }
    if (sym == 256) break;
    sym -= 257;
    if (sym >= 29) return -IERR_SYMBOL;
    if (b->bits < 33) {
      refill(b);
      if (b->overread > 8) return -IERR_TRUNCATED;
    }
    u32 len = LEN_BASE[sym] + take(b, LEN_EXTRA[sym]);
    s32 ds = decode_symbol(b, dis);
    if (ds < 0) return -IERR_CODES;
    if (ds >= 30) return -IERR_SYMBOL;
    u32 d = DIST_BASE[ds] + take(b, DIST_EXTRA[ds]);
    if (d > (u32)(op - start)) return -IERR_DISTANCE;
    if (len > (u32)(oend - op)) return -IERR_OUTPUT;
    copy_match(op, d, len);
    op += len;
  }
  *in = local;
  *opp = op;
  return 0;
}

static s32 fixed_tables(void) {
  if (fixedReady) return 0;
  u8 lengths[320];
  u32 s = 0;
  for (; s < 144; s++) lengths[s] = 8;
  for (; s < 256; s++) lengths[s] = 9;
  for (; s < 280; s++) lengths[s] = 7;
  for (; s < 288; s++) lengths[s] = 8;
  for (; s < 320; s++) lengths[s] = 5;
  /* The fixed distance code has 30 symbols and 2 invalid ones; it is complete as 32. */
  if (!huffman_build(&fixedLit, lengths, 288, LITLEN) || !huffman_build(&fixedDist, lengths + 288, 32, LITLEN)) return -IERR_CODES;
  fixedReady = 1;
  return 0;
}

static s32 dynamic_tables(Bits *b) {
  u8 lengths[320];
  refill(b);
  u32 nlen = take(b, 5) + 257, ndist = take(b, 5) + 1, ncode = take(b, 4) + 4;
  if (nlen > 286 || ndist > 30) return -IERR_CODES;
  u8 cl[19] = {0};
  for (u32 i = 0; i < ncode; i++) {
    if (b->bits < 3) refill(b);
    cl[CODE_LENGTH_ORDER[i]] = (u8)take(b, 3);
  }
  if (!huffman_build(&lencode, cl, 19, CODE_LENGTHS)) return -IERR_CODES;
  for (u32 i = 0; i < nlen + ndist;) {
    refill(b);
    if (b->overread > 8) return -IERR_TRUNCATED;
    s32 sym = decode_symbol(b, &lencode);
    if (sym < 0) return -IERR_CODES;
    if (sym < 16) {
      lengths[i++] = (u8)sym;
      continue;
    }
    u32 repeat, value = 0;
    if (sym == 16) {
      if (i == 0) return -IERR_CODES;
      value = lengths[i - 1];
      repeat = 3 + take(b, 2);
    } else if (sym == 17) {
      repeat = 3 + take(b, 3);
    } else {
      repeat = 11 + take(b, 7);
    }
    if (i + repeat > nlen + ndist) return -IERR_CODES;
    while (repeat--) lengths[i++] = (u8)value;
  }
  if (lengths[256] == 0) return -IERR_CODES;
  if (!huffman_build(&litlen, lengths, nlen, LITLEN) || !huffman_build(&dist, lengths + nlen, ndist, DIST)) return -IERR_CODES;
  return 0;
}

/*
 * Inflates the raw deflate stream at b into [*opp, oend); returns 0 or a negative IERR_* code.
 * On return b->ip is just past the stream's last whole byte (unused container bytes given back).
 */
static s32 inflate_raw(Bits *b, u8 **opp, u8 *start, u8 *oend) {
  for (;;) {
    refill(b);
    u32 last = take(b, 1), type = take(b, 2);
    s32 r;
    if (type == 0) {
      /* Stored: back to a byte boundary, then LEN, NLEN and LEN bytes straight from the input. */
      take(b, b->bits & 7);
      u32 back = b->bits >> 3;
      if (back < b->overread) return -IERR_TRUNCATED;
      b->ip -= back - b->overread;
      b->hold = 0;
      b->bits = 0;
      b->overread = 0;
      if (b->end - b->ip < 4) return -IERR_TRUNCATED;
      u32 len = rd16(b->ip), nlen = rd16(b->ip + 2);
      if ((len ^ 0xFFFF) != nlen) return -IERR_STORED;
      b->ip += 4;
      if ((u32)(b->end - b->ip) < len) return -IERR_TRUNCATED;
      if ((u32)(oend - *opp) < len) return -IERR_OUTPUT;
      __builtin_memcpy(*opp, b->ip, len);
      *opp += len;
      b->ip += len;
      r = 0;
    } else if (type == 3) {
      return -IERR_HEADER;
    } else {
      const Huffman *lit = &fixedLit, *dis = &fixedDist;
      if (type == 1) {
        r = fixed_tables();
      } else {
        r = dynamic_tables(b);
        lit = &litlen;
        dis = &dist;
      }
      if (r == 0) r = inflate_codes(b, opp, start, oend, lit, dis);
    }
    if (r < 0) return r;
    if (b->overread * 8 > b->bits) return -IERR_TRUNCATED;
    if (last) break;
  }
  /* Give back the whole bytes still in the container. */
  u32 back = b->bits >> 3;
  b->ip -= back - b->overread;
  b->hold = 0;
  b->bits = 0;
  b->overread = 0;
  return 0;
}

/*
 * Inflates src[0..n) into dst (room for cap bytes, and 32 more of slack): format 0 a raw deflate
 * stream, 1 a zlib stream, 2 gzip members. Returns the decoded length or a negative IERR_* code.
 */
EXPORT("inflate")
s32 inflate(const u8 *src, u32 n, u8 *dst, u32 cap, u32 format) {
  Bits b = {0, 0, src, src + n, 0};
  u8 *op = dst, *oend = dst + cap;
  if (format == 0) {
    s32 r = inflate_raw(&b, &op, dst, oend);
    return r < 0 ? r : (s32)(op - dst);
  }
  if (format == 1) {
    if (n < 2) return -IERR_TRUNCATED;
    u32 cmf = src[0], flg = src[1];
    if ((cmf & 15) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0) return -IERR_HEADER;
    if (flg & 0x20) return -IERR_DICTIONARY;
    b.ip += 2;
    s32 r = inflate_raw(&b, &op, dst, oend);
    if (r < 0) return r;
    if (b.end - b.ip < 4) return -IERR_TRUNCATED;
    const u8 *t = b.ip;
    u32 want = ((u32)t[0] << 24) | ((u32)t[1] << 16) | ((u32)t[2] << 8) | t[3];
    if (adler32(dst, (u32)(op - dst)) != want) return -IERR_CHECKSUM;
    return (s32)(op - dst);
  }
  /* gzip: members one after another, each checked by its CRC-32 and length. */
  do {
    const u8 *h = b.ip;
    u32 left = (u32)(b.end - h);
    if (left < 10) return -IERR_TRUNCATED;
    if (h[0] != 0x1f || h[1] != 0x8b || h[2] != 8) return -IERR_HEADER;
    u32 flags = h[3];
    if (flags & 0xe0) return -IERR_HEADER;
    u32 at = 10;
    if (flags & 4) {
      if (left < at + 2) return -IERR_TRUNCATED;
      at += 2 + rd16(h + at);
    }
    for (u32 f = 8; f <= 16; f <<= 1) {
      if (!(flags & f)) continue;
      while (at < left && h[at] != 0) at++;
      at++;
    }
    if (flags & 2) {
      if (left < at + 2) return -IERR_TRUNCATED;
      if ((crc32(0, h, at) & 0xFFFF) != rd16(h + at)) return -IERR_CHECKSUM;
      at += 2;
    }
    if (at > left) return -IERR_TRUNCATED;
    b.ip = h + at;
    /* Each member is a stream of its own: its matches may not reach into the member before. */
    u8 *memberStart = op;
    s32 r = inflate_raw(&b, &op, memberStart, oend);
    if (r < 0) return r;
    if (b.end - b.ip < 8) return -IERR_TRUNCATED;
    u32 size = (u32)(op - memberStart);
    if (crc32(0, memberStart, size) != rd32(b.ip)) return -IERR_CHECKSUM;
    if (size != rd32(b.ip + 4)) return -IERR_CHECKSUM;
    b.ip += 8;
    /* zlib and pako stop at a zero byte after a member (padding some writers leave), and ignore
       what follows; anything else must be another member. */
    if (b.ip < b.end && *b.ip == 0) break;
  } while (b.ip < b.end);
  return (s32)(op - dst);
}
