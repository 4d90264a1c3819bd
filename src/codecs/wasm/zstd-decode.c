/*
 * A Zstandard decoder (RFC 8878; facebook/zstd doc/zstd_compression_format.md), compiled with
 * kernels.c into one WebAssembly module by tools/build-wasm.ts. It decodes whole frames into one
 * flat output, so a match may reach back to the start of its frame and no window buffer is kept.
 * It exists for runtimes without native zstd (browsers, Node before 22.15), where numcodecs.js's
 * Emscripten build of libzstd decoded the benchmark's chunks at 180-250 MB/s.
 *
 * Supported: every frame of the format without a dictionary (raw, RLE and compressed blocks;
 * raw, RLE, Huffman and treeless literals in 1 or 4 streams; predefined, RLE, FSE and repeated
 * sequence tables; repeat offsets; the XXH64 content checksum, which is verified), skippable
 * frames, and any number of concatenated frames. A frame that names a dictionary is refused.
 *
 * Beyond the format's letter it refuses what libzstd refuses: windows over 2 GiB, blocks larger
 * than their frame's window, four Huffman streams for under 6 literals, FSE-coded weights without
 * their initial states; each Huffman stream must end exactly at its last literal.
 *
 * Every read and write is bounds-checked against the input and the output capacity; damaged
 * input gives a negative ZERR_* code, never a read or write out of bounds. The output needs
 * ZSTD_OUT_SLACK bytes of room after its capacity: copies move whole 16-byte vectors.
 */
#include "common.h"

/* Error codes returned (negated) to JavaScript; zstd.ts names them. */
enum {
  ZERR_TRUNCATED = 1,   /* the input ends inside a frame */
  ZERR_HEADER = 2,      /* a frame or block header is malformed */
  ZERR_DICTIONARY = 3,  /* the frame needs a dictionary */
  ZERR_OUTPUT = 4,      /* the output does not fit the capacity */
  ZERR_CHECKSUM = 5,    /* the content checksum does not match */
  ZERR_LITERALS = 6,    /* the literals section is corrupt */
  ZERR_SEQUENCES = 7,   /* the sequences section is corrupt */
  ZERR_OFFSET = 8,      /* a match reaches before the frame's start */
  ZERR_SIZE = 9,        /* the frame decodes to another size than its header declares */
  ZERR_HUFFMAN = 10,    /* a Huffman table description is corrupt */
  ZERR_FSE = 11,        /* an FSE table description is corrupt */
  ZERR_WINDOW = 12,     /* the window is over zstd's 2 GiB, or a block is larger than the window */
};

#define BLOCK_MAX (128 * 1024)
#define HUF_LOG_MAX 11
#define LL_LOG_MAX 9
#define ML_LOG_MAX 9
#define OF_LOG_MAX 8
#define LL_MAX_SYMBOL 35
#define ML_MAX_SYMBOL 52
#define OF_MAX_SYMBOL 31

static inline u32 rd24(const u8 *p) { return rd16(p) | ((u32)p[2] << 16); }
static inline u32 highbit(u32 v) { return 31 - (u32)__builtin_clz(v); } /* v > 0 */

/* ---- Backward bit stream (FSE and Huffman streams are read from their last byte down) ---- */

typedef struct {
  u64 bits;          /* the 8 bytes at ptr; bits are taken from the top */
  u32 consumed;      /* bits of `bits` already used, from the top */
  const u8 *ptr;
  const u8 *start;
} BitIn;

/* Starts a stream of n bytes; 0 when it has no end marker. */
static int bit_init(BitIn *b, const u8 *src, u32 n) {
  if (n == 0 || src[n - 1] == 0) return 0;
  b->start = src;
  u32 marker = 8 - highbit(src[n - 1]);
  if (n >= 8) {
    b->ptr = src + n - 8;
    b->bits = rd64(b->ptr);
    b->consumed = marker;
  } else {
    b->ptr = src;
    b->bits = 0;
    for (u32 i = 0; i < n; i++) b->bits |= (u64)src[i] << (8 * i);
    b->consumed = marker + (8 - n) * 8;
  }
  return 1;
}

/* The next n (0..57) bits without using them; bits past the stream's start read as 0. */
static inline u64 bit_look(const BitIn *b, u32 n) {
  if (b->consumed >= 64) return 0;
  return ((b->bits << b->consumed) >> 1) >> (63 - n);
}

static inline u32 bit_read(BitIn *b, u32 n) {
  u64 v = bit_look(b, n);
  b->consumed += n;
  return (u32)v;
}

/*
 * bit_read without the check for a used-up container: for the sequences' hot loop, where a
 * damaged stream may read garbage bits (every value they make is bounds-checked before use, and
 * the overflow is caught by the next bit_reload).
 */
static inline u32 bit_read_fast(BitIn *b, u32 n) {
  u64 v = ((b->bits << (b->consumed & 63)) >> 1) >> (63 - n);
  b->consumed += n;
  return (u32)v;
}

/* bit_read_fast for 1 to 57 bits (not 0): two shifts instead of three. */
static inline u32 bit_read_fast1(BitIn *b, u32 n) {
  u64 v = (b->bits << (b->consumed & 63)) >> ((64 - n) & 63);
  b->consumed += n;
  return (u32)v;
}

/*
 * Refills the container: 0 while more bytes remain, 1 once the stream's first byte is loaded
 * (bits may remain), 2 when more bits were used than the stream has.
 */
static inline int bit_reload(BitIn *b) {
  if (b->consumed > 64) return 2;
  if (b->ptr >= b->start + 8) {
    b->ptr -= b->consumed >> 3;
    b->consumed &= 7;
    b->bits = rd64(b->ptr);
    return 0;
  }
  if (b->ptr == b->start) return 1;
  u32 nb = b->consumed >> 3;
  int end = 0;
  if ((u32)(b->ptr - b->start) <= nb) {
    nb = (u32)(b->ptr - b->start);
    end = 1;
  }
  b->ptr -= nb;
  b->consumed -= nb * 8;
  b->bits = rd64(b->ptr);
  return end;
}

/* Whether the stream was used exactly to its first bit. */
static inline int bit_done(const BitIn *b) { return b->ptr == b->start && b->consumed == 64; }

/* ---- FSE tables ---- */

/* One state of a decoding table: the symbol, and how to find the next state. */
typedef struct {
  u16 base;   /* next state = base + nbBits bits */
  u8 nbBits;
  u8 symbol;
} FseEntry;

/* A sequence-symbol table: the symbol's baseline and extra bits are resolved when it is built. */
typedef struct {
  u32 value;  /* baseline of the decoded length or offset */
  u16 base;
  u8 nbBits;
  u8 extra;   /* extra bits to read after the baseline */
} SeqEntry;

/* n bits (up to 25) at bit position pos of a forward little-endian stream; bytes past len are 0. */
static inline u32 fwd_bits(const u8 *src, u32 len, u32 pos, u32 n) {
  u32 at = pos >> 3;
  u32 v = 0;
  for (u32 i = 0; i < 4 && at + i < len; i++) v |= (u32)src[at + i] << (8 * i);
  return (v >> (pos & 7)) & ((1u << n) - 1);
}

/*
 * Reads an FSE table description (a normalized distribution) at src; returns the bytes it took,
 * or 0 when it is malformed. norm gets *maxSymbol + 1 counts (at most the *maxSymbol passed in);
 * *log gets the accuracy (at most maxLog).
 */
static u32 fse_read_counts(const u8 *src, u32 n, s16 *norm, u32 *maxSymbol, u32 *log, u32 maxLog) {
  if (n < 1) return 0;
  u32 accuracy = (src[0] & 15) + 5;
  if (accuracy > maxLog) return 0;
  u32 pos = 4;
  s32 remaining = (1 << accuracy) + 1;
  s32 threshold = 1 << accuracy;
  u32 nbBits = accuracy + 1;
  u32 symbol = 0;
  int previous0 = 0;
  while (remaining > 1) {
    if (previous0) {
      /* Runs of zero counts: 2-bit repeat flags, 3 meaning "three more, and another flag". */
      u32 repeat;
      do {
        repeat = fwd_bits(src, n, pos, 2);
        pos += 2;
        for (u32 k = 0; k < repeat; k++) {
          if (symbol > *maxSymbol) return 0;
          norm[symbol++] = 0;
        }
        if (pos > n * 8) return 0;
      } while (repeat == 3);
    }
    if (symbol > *maxSymbol) return 0;
    s32 max = (2 * threshold - 1) - remaining;
    u32 v = fwd_bits(src, n, pos, nbBits);
    s32 count;
    if ((s32)(v & (u32)(threshold - 1)) < max) {
      count = (s32)(v & (u32)(threshold - 1));
      pos += nbBits - 1;
    } else {
      count = (s32)(v & (u32)(2 * threshold - 1));
      if (count >= threshold) count -= max;
      pos += nbBits;
    }
    count--;
    remaining -= count < 0 ? -count : count;
    norm[symbol++] = (s16)count;
    previous0 = count == 0;
    while (remaining < threshold) {
      nbBits--;
      threshold >>= 1;
    }
  }
  if (remaining != 1) return 0;
  u32 bytes = (pos + 7) >> 3;
  if (bytes > n) return 0;
  *maxSymbol = symbol - 1;
  *log = accuracy;
  return bytes;
}

/*
 * Spreads a normalized distribution over a table of 1 << log states (at most 512), the format's
 * rule: "less than 1" symbols from the top down, the others by the fixed step. Writes each
 * state's symbol and, per symbol, the count its states' numbering starts from. Returns 0 when
 * the counts do not fill the table exactly.
 */
static int fse_spread(u8 *symbols, u16 *next, const s16 *norm, u32 maxSymbol, u32 log) {
  u32 size = 1u << log;
  u32 high = size - 1;
  for (u32 s = 0; s <= maxSymbol; s++) {
    if (norm[s] == -1) {
      symbols[high--] = (u8)s;
      next[s] = 1;
    } else {
      next[s] = (u16)norm[s];
    }
  }
  u32 step = (size >> 1) + (size >> 3) + 3;
  u32 mask = size - 1;
  u32 pos = 0;
  if (high == size - 1) {
    /* No "less than 1" symbols (the common case): lay the symbols out in order eight bytes at
       a time, then deal them to the states by the step, with no skipping to test. */
    u8 runs[512 + 8];
    u32 at = 0;
    for (u32 s = 0; s <= maxSymbol; s++) {
      u32 count = (u32)norm[s];
      if (count > size - at) return 0;
      u64 eight = (u64)s * 0x0101010101010101ull;
      for (u32 i = 0; i < count; i += 8) __builtin_memcpy(runs + at + i, &eight, 8);
      at += count;
    }
    if (at != size) return 0;
    for (u32 i = 0; i < size; i++) {
      symbols[pos] = runs[i];
      pos = (pos + step) & mask;
    }
    return 1;
  }
  for (u32 s = 0; s <= maxSymbol; s++) {
    for (s32 i = 0; i < norm[s]; i++) {
      symbols[pos] = (u8)s;
      do pos = (pos + step) & mask;
      while (pos > high);
    }
  }
  return pos == 0;
}

/*
 * The next-state rule of the state after the ones already numbered for `symbol`: the bits to read
 * (low byte) and their baseline (above it).
 */
static inline u32 fse_next_state(u16 *next, u32 symbol, u32 log) {
  u32 state = next[symbol]++;
  u32 nb = log - highbit(state);
  return nb | (((state << nb) - (1u << log)) << 8);
}

/* An FSE decoding table: each state's symbol, and its next state's baseline and bit count. */
static int fse_build(FseEntry *t, const s16 *norm, u32 maxSymbol, u32 log) {
  u8 symbols[512];
  u16 next[256];
  if (!fse_spread(symbols, next, norm, maxSymbol, log)) return 0;
  for (u32 u = 0; u < (1u << log); u++) {
    u32 rule = fse_next_state(next, symbols[u], log);
    t[u].symbol = symbols[u];
    t[u].nbBits = (u8)rule;
    t[u].base = (u16)(rule >> 8);
  }
  return 1;
}

/* ---- XXH64, for the content checksum ---- */

#define P64_1 11400714785074694791ull
#define P64_2 14029467366897019727ull
#define P64_3 1609587929392839161ull
#define P64_4 9650029242287828579ull
#define P64_5 2870177450012600261ull

static inline u64 rotl64(u64 x, u32 r) { return (x << r) | (x >> (64 - r)); }
static inline u64 xxh_round(u64 acc, u64 input) {
  acc += input * P64_2;
  return rotl64(acc, 31) * P64_1;
}
static inline u64 xxh_merge(u64 acc, u64 v) {
  acc ^= xxh_round(0, v);
  return acc * P64_1 + P64_4;
}

static u64 xxh64(const u8 *p, u32 len) {
  const u8 *end = p + len;
  u64 h;
  if (len >= 32) {
    u64 v1 = P64_1 + P64_2, v2 = P64_2, v3 = 0, v4 = 0 - P64_1;
    const u8 *limit = end - 32;
    do {
      v1 = xxh_round(v1, rd64(p));
      v2 = xxh_round(v2, rd64(p + 8));
      v3 = xxh_round(v3, rd64(p + 16));
      v4 = xxh_round(v4, rd64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
    h = xxh_merge(h, v1);
    h = xxh_merge(h, v2);
    h = xxh_merge(h, v3);
    h = xxh_merge(h, v4);
  } else {
    h = P64_5;
  }
  h += len;
  for (; p + 8 <= end; p += 8) h = rotl64(h ^ xxh_round(0, rd64(p)), 27) * P64_1 + P64_4;
  if (p + 4 <= end) {
    h = rotl64(h ^ ((u64)rd32(p) * P64_1), 23) * P64_2 + P64_3;
    p += 4;
  }
  for (; p < end; p++) h = rotl64(h ^ (*p * P64_5), 11) * P64_1;
  h ^= h >> 33;
  h *= P64_2;
  h ^= h >> 29;
  h *= P64_3;
  h ^= h >> 32;
  return h;
}

/* ---- Huffman literals ---- */

typedef struct {
  u8 symbol;
  u8 nbBits;
} HufEntry;

/* The decoder's state across blocks of one frame. */
static struct {
  HufEntry huf[1 << HUF_LOG_MAX];
  u32 hufLog;       /* 0: no table yet in this frame */
  SeqEntry ll[1 << LL_LOG_MAX], ml[1 << ML_LOG_MAX], of[1 << OF_LOG_MAX];
  u32 llLog, mlLog, ofLog;
  int haveSeqTables;
  u32 rep[3];
} st;

/* Decoded literals of the current block, with slack for 16-byte copies. */
static u8 literals[BLOCK_MAX + 32];

/*
 * Reads a Huffman tree description into st.huf; returns the bytes it took, or 0 when it is
 * malformed.
 */
static u32 huf_read_table(const u8 *src, u32 n) {
  u8 weights[256];
  u32 count;
  u32 used;
  if (n < 1) return 0;
  u32 header = src[0];
  if (header >= 128) {
    /* Direct: 4-bit weights, two per byte. */
    count = header - 127;
    used = 1 + (count + 1) / 2;
    if (used > n) return 0;
    for (u32 i = 0; i < count; i++) weights[i] = (i & 1) ? (src[1 + i / 2] & 15) : (src[1 + i / 2] >> 4);
  } else {
    /* FSE-compressed weights: two interleaved states over one table of accuracy <= 6. */
    used = 1 + header;
    if (used > n || header == 0) return 0;
    s16 norm[16];
    u32 maxSymbol = 12, log;
    u32 hb = fse_read_counts(src + 1, header, norm, &maxSymbol, &log, 6);
    if (hb == 0) return 0;
    FseEntry t[64];
    if (!fse_build(t, norm, maxSymbol, log)) return 0;
    BitIn b;
    if (!bit_init(&b, src + 1 + hb, header - hb)) return 0;
    u32 s1 = bit_read(&b, log), s2 = bit_read(&b, log);
    /* The stream must hold both initial states (libzstd 1.5.6 and later check this too). */
    if (bit_reload(&b) == 2) return 0;
    count = 0;
    /* Until a state update runs past the stream's start; then the other state's symbol ends it. */
    for (;;) {
      if (count >= 255) return 0;
      weights[count++] = t[s1].symbol;
      s1 = t[s1].base + bit_read(&b, t[s1].nbBits);
      if (bit_reload(&b) == 2) {
        if (count >= 255) return 0;
        weights[count++] = t[s2].symbol;
        break;
      }
      if (count >= 255) return 0;
      weights[count++] = t[s2].symbol;
      s2 = t[s2].base + bit_read(&b, t[s2].nbBits);
      if (bit_reload(&b) == 2) {
        if (count >= 255) return 0;
        weights[count++] = t[s1].symbol;
        break;
      }
    }
  }
  /* The last symbol's weight completes the sum of 2^(w-1) to a power of two. */
  u32 total = 0;
  u32 rank[HUF_LOG_MAX + 2] = {0};
  for (u32 i = 0; i < count; i++) {
    if (weights[i] > HUF_LOG_MAX) return 0;
    rank[weights[i]]++;
    if (weights[i]) total += 1u << (weights[i] - 1);
  }
  if (total == 0) return 0;
  u32 log = highbit(total) + 1;
  if (log > HUF_LOG_MAX) return 0;
  u32 rest = (1u << log) - total;
  if (rest & (rest - 1)) return 0;
  u32 last = highbit(rest) + 1;
  weights[count++] = (u8)last;
  rank[last]++;
  if (rank[1] < 2 || (rank[1] & 1)) return 0;
  /* Codes go to symbols by increasing weight, in symbol order within a weight. */
  u32 start[HUF_LOG_MAX + 2];
  u32 at = 0;
  for (u32 w = 1; w <= log; w++) {
    start[w] = at;
    at += rank[w] << (w - 1);
  }
  for (u32 s = 0; s < count; s++) {
    u32 w = weights[s];
    if (w == 0) continue;
    u32 len = 1u << (w - 1);
    HufEntry e = {(u8)s, (u8)(log + 1 - w)};
    HufEntry *at = st.huf + start[w];
    start[w] += len;
    if (len < 4) {
      at[0] = e;
      at[len - 1] = e;
      continue;
    }
    /* Runs of 4 and more entries (a table is rebuilt for every block that has one) four at a time. */
    u64 four = (u64)(e.symbol | ((u32)e.nbBits << 8)) * 0x0001000100010001ull;
    for (u32 i = 0; i < len; i += 4) __builtin_memcpy(at + i, &four, 8);
  }
  st.hufLog = log;
  return used;
}

static inline u8 huf_decode(BitIn *b, const HufEntry *t, u32 log) {
  HufEntry e = t[(b->bits << b->consumed) >> (64 - log)];
  b->consumed += e.nbBits;
  return e.symbol;
}

/* Decodes one Huffman stream of n bytes into out[0..len); 0 when it is malformed. */
static int huf_stream(u8 *out, u32 len, const u8 *src, u32 n) {
  BitIn b;
  if (!bit_init(&b, src, n)) return 0;
  const HufEntry *t = st.huf;
  u32 log = st.hufLog;
  u8 *op = out, *end = out + len;
  /* Five symbols per refill: after one, at most 7 bits are used, and 5 x 11 <= 57. */
  while (end - op >= 5 && bit_reload(&b) == 0) {
    op[0] = huf_decode(&b, t, log);
    op[1] = huf_decode(&b, t, log);
    op[2] = huf_decode(&b, t, log);
    op[3] = huf_decode(&b, t, log);
    op[4] = huf_decode(&b, t, log);
    op += 5;
  }
  while (op < end) {
    if (bit_reload(&b) == 2) return 0;
    if (b.consumed >= 64) return 0;
    *op++ = huf_decode(&b, t, log);
  }
  return b.consumed <= 64 && bit_reload(&b) != 2 && bit_done(&b);
}

/*
 * The four streams' hot loop, as long as every stream has 8 bytes to refill from and the last
 * has 5 symbols to go. Each container holds its bits from the top with a sentinel 1 below them:
 * a symbol is a lookup by the top (table log) bits and a shift by its length, and the sentinel's position
 * (count of trailing zeros) tells how many bits were used, so no count is kept per symbol. Five
 * symbols use at most 55 bits after at most 7, so the sentinel is never shifted out.
 */
static void huf_4streams_fast(BitIn *b, u8 **op, u8 *const *end) {
  /* A stream of under 8 bytes (or one near its start) is the careful loop's alone. */
  for (int i = 0; i < 4; i++)
    if (b[i].ptr < b[i].start + 8) return;
  const HufEntry *t = st.huf;
  const u32 shift = 64 - st.hufLog;
  u64 c0 = (rd64(b[0].ptr) | 1) << b[0].consumed, c1 = (rd64(b[1].ptr) | 1) << b[1].consumed;
  u64 c2 = (rd64(b[2].ptr) | 1) << b[2].consumed, c3 = (rd64(b[3].ptr) | 1) << b[3].consumed;
  const u8 *p0 = b[0].ptr, *p1 = b[1].ptr, *p2 = b[2].ptr, *p3 = b[3].ptr;
  u8 *o0 = op[0], *o1 = op[1], *o2 = op[2], *o3 = op[3];
#define FAST_REFILL(c, p, k)                     \
  {                                              \
    u32 n = (u32)__builtin_ctzll(c);             \
    p -= n >> 3;                                 \
    c = (rd64(p) | 1) << (n & 7);                \
  }
#define FAST_SYMBOL(c, o, k)                     \
  {                                              \
    HufEntry e = t[c >> shift];                  \
    o[k] = e.symbol;                             \
    c <<= e.nbBits;                              \
  }
  for (;;) {
    if (end[3] - o3 < 5) break;
    /* Refill only where the refilled container still lies within the stream. */
    if ((u32)(p0 - b[0].start) < ((u32)__builtin_ctzll(c0) >> 3)) break;
    if ((u32)(p1 - b[1].start) < ((u32)__builtin_ctzll(c1) >> 3)) break;
    if ((u32)(p2 - b[2].start) < ((u32)__builtin_ctzll(c2) >> 3)) break;
    if ((u32)(p3 - b[3].start) < ((u32)__builtin_ctzll(c3) >> 3)) break;
    FAST_REFILL(c0, p0, 0)
    FAST_REFILL(c1, p1, 1)
    FAST_REFILL(c2, p2, 2)
    FAST_REFILL(c3, p3, 3)
    for (int k = 0; k < 5; k++) {
      FAST_SYMBOL(c0, o0, k)
      FAST_SYMBOL(c1, o1, k)
      FAST_SYMBOL(c2, o2, k)
      FAST_SYMBOL(c3, o3, k)
    }
    o0 += 5;
    o1 += 5;
    o2 += 5;
    o3 += 5;
  }
#undef FAST_REFILL
#undef FAST_SYMBOL
  /* Back to the careful reader's state: the container at ptr, and the bits used of it. */
  b[0].ptr = p0;
  b[0].bits = rd64(p0);
  b[0].consumed = (u32)__builtin_ctzll(c0);
  b[1].ptr = p1;
  b[1].bits = rd64(p1);
  b[1].consumed = (u32)__builtin_ctzll(c1);
  b[2].ptr = p2;
  b[2].bits = rd64(p2);
  b[2].consumed = (u32)__builtin_ctzll(c2);
  b[3].ptr = p3;
  b[3].bits = rd64(p3);
  b[3].consumed = (u32)__builtin_ctzll(c3);
  op[0] = o0;
  op[1] = o1;
  op[2] = o2;
  op[3] = o3;
}

/* Four streams of one block, decoded in turn a refill at a time so their work interleaves. */
static int huf_4streams(u8 *out, u32 len, const u8 *src, u32 n) {
  /* libzstd's limits: a jump table and a byte per stream, and at least 6 literals. */
  if (n < 10 || len < 6) return 0;
  u32 s1 = rd16(src), s2 = rd16(src + 2), s3 = rd16(src + 4);
  if (6 + s1 + s2 + s3 >= n) return 0;
  u32 s4 = n - 6 - s1 - s2 - s3;
  u32 seg = (len + 3) / 4;
  if (3 * seg > len) return 0;
  const u8 *p = src + 6;
  BitIn b[4];
  if (!bit_init(&b[0], p, s1) || !bit_init(&b[1], p + s1, s2) || !bit_init(&b[2], p + s1 + s2, s3) ||
      !bit_init(&b[3], p + s1 + s2 + s3, s4))
    return 0;
  u8 *op[4] = {out, out + seg, out + 2 * seg, out + 3 * seg};
  u8 *end[4] = {out + seg, out + 2 * seg, out + 3 * seg, out + len};
  const HufEntry *t = st.huf;
  u32 log = st.hufLog;
  huf_4streams_fast(b, op, end);
  /* The last stream is the shortest; while it has 5 symbols to go, so have the others. */
  while (end[3] - op[3] >= 5) {
    if (bit_reload(&b[0]) | bit_reload(&b[1]) | bit_reload(&b[2]) | bit_reload(&b[3])) break;
    for (int k = 0; k < 5; k++) {
      op[0][k] = huf_decode(&b[0], t, log);
      op[1][k] = huf_decode(&b[1], t, log);
      op[2][k] = huf_decode(&b[2], t, log);
      op[3][k] = huf_decode(&b[3], t, log);
    }
    op[0] += 5;
    op[1] += 5;
    op[2] += 5;
    op[3] += 5;
  }
  for (int i = 0; i < 4; i++) {
    BitIn *d = &b[i];
    while (op[i] < end[i]) {
      if (bit_reload(d) == 2 || d->consumed >= 64) return 0;
      *op[i]++ = huf_decode(d, t, log);
    }
    if (bit_reload(d) == 2 || !bit_done(d)) return 0;
  }
  return 1;
}

/*
 * Decodes the literals section at src (n bytes: the rest of the block) into `literals`; returns
 * the bytes it took, or 0 when it is malformed. *count gets the number of literals, *lits where
 * they are (in the block itself for raw literals).
 */
static u32 decode_literals(const u8 *src, u32 n, const u8 **lits, u32 *count) {
  if (n < 1) return 0;
  u32 type = src[0] & 3;
  u32 format = (src[0] >> 2) & 3;
  if (type < 2) {
    u32 size, hl;
    if (format == 0 || format == 2) {
      size = src[0] >> 3;
      hl = 1;
    } else if (format == 1) {
      if (n < 2) return 0;
      size = (src[0] >> 4) | ((u32)src[1] << 4);
      hl = 2;
    } else {
      if (n < 3) return 0;
      size = (src[0] >> 4) | ((u32)src[1] << 4) | ((u32)src[2] << 12);
      hl = 3;
    }
    if (size > BLOCK_MAX) return 0;
    *count = size;
    if (type == 0) {
      if (hl + size > n) return 0;
      *lits = src + hl;
      return hl + size;
    }
    if (hl + 1 > n) return 0;
    __builtin_memset(literals, src[hl], size);
    *lits = literals;
    return hl + 1;
  }
  u32 regen, comp, hl, streams = format == 0 ? 1 : 4;
  if (format < 2) {
    if (n < 3) return 0;
    u32 h = rd24(src);
    regen = (h >> 4) & 1023;
    comp = (h >> 14) & 1023;
    hl = 3;
  } else if (format == 2) {
    if (n < 4) return 0;
    u32 h = rd32(src);
    regen = (h >> 4) & 16383;
    comp = h >> 18;
    hl = 4;
  } else {
    if (n < 5) return 0;
    u64 h = rd32(src) | ((u64)src[4] << 32);
    regen = (u32)(h >> 4) & 262143;
    comp = (u32)(h >> 22) & 262143;
    hl = 5;
  }
  if (regen > BLOCK_MAX || hl + comp > n) return 0;
  const u8 *p = src + hl;
  u32 left = comp;
  if (type == 2) {
    u32 t = huf_read_table(p, left);
    if (t == 0) return 0;
    p += t;
    left -= t;
  } else if (st.hufLog == 0) {
    return 0; /* treeless literals with no earlier table */
  }
  int ok = streams == 1 ? huf_stream(literals, regen, p, left) : huf_4streams(literals, regen, p, left);
  if (!ok) return 0;
  *lits = literals;
  *count = regen;
  return hl + comp;
}

/* ---- Sequences ---- */

static const u32 LL_BASE[LL_MAX_SYMBOL + 1] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,   10,  11,  12,   13,   14,   15,   16,    18,
                                               20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
static const u8 LL_EXTRA[LL_MAX_SYMBOL + 1] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  1,  1,
                                               1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const u32 ML_BASE[ML_MAX_SYMBOL + 1] = {3,  4,  5,  6,  7,  8,  9,  10, 11, 12,  13,  14,  15,  16,   17,   18,   19,   20,
                                               21, 22, 23, 24, 25, 26, 27, 28, 29, 30,  31,  32,  33,  34,   35,   37,   39,   41,
                                               43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
static const u8 ML_EXTRA[ML_MAX_SYMBOL + 1] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const s16 LL_DEFAULT[LL_MAX_SYMBOL + 1] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2,
                                                  2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
static const s16 ML_DEFAULT[ML_MAX_SYMBOL + 1] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
static const s16 OF_DEFAULT[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

enum { KIND_LL, KIND_OF, KIND_ML };

/* A symbol's baseline and extra bits, by kind (offset codes: 1 << code and code bits). */
static inline void seq_symbol(SeqEntry *e, u32 kind, u32 symbol) {
  if (kind == KIND_LL) {
    e->value = LL_BASE[symbol];
    e->extra = LL_EXTRA[symbol];
  } else if (kind == KIND_ML) {
    e->value = ML_BASE[symbol];
    e->extra = ML_EXTRA[symbol];
  } else {
    e->value = 1u << symbol;
    e->extra = (u8)symbol;
  }
}

static int seq_table_from(SeqEntry *t, u32 kind, const s16 *norm, u32 maxSymbol, u32 log) {
  u8 symbols[1 << 9];
  u16 next[64];
  if (!fse_spread(symbols, next, norm, maxSymbol, log)) return 0;
  /* Each symbol's baseline and extra bits once, then copied to its states. */
  SeqEntry bySymbol[64];
  for (u32 s = 0; s <= maxSymbol; s++) seq_symbol(&bySymbol[s], kind, s);
  for (u32 u = 0; u < (1u << log); u++) {
    u32 rule = fse_next_state(next, symbols[u], log);
    SeqEntry e = bySymbol[symbols[u]];
    e.nbBits = (u8)rule;
    e.base = (u16)(rule >> 8);
    t[u] = e;
  }
  return 1;
}

/*
 * Sets up one of the three sequence tables for `mode`; returns the bytes of description it took
 * (0 for predefined and repeat), or -1 when it is malformed.
 */
static s32 seq_table(u32 kind, u32 mode, const u8 *src, u32 n) {
  static const u32 maxSymbols[3] = {LL_MAX_SYMBOL, OF_MAX_SYMBOL, ML_MAX_SYMBOL};
  static const u32 maxLogs[3] = {LL_LOG_MAX, OF_LOG_MAX, ML_LOG_MAX};
  SeqEntry *t = kind == KIND_LL ? st.ll : kind == KIND_OF ? st.of : st.ml;
  u32 *log = kind == KIND_LL ? &st.llLog : kind == KIND_OF ? &st.ofLog : &st.mlLog;
  if (mode == 0) {
    const s16 *norm = kind == KIND_LL ? LL_DEFAULT : kind == KIND_OF ? OF_DEFAULT : ML_DEFAULT;
    u32 maxSymbol = kind == KIND_LL ? LL_MAX_SYMBOL : kind == KIND_OF ? 28 : ML_MAX_SYMBOL;
    *log = kind == KIND_OF ? 5 : 6;
    return seq_table_from(t, kind, norm, maxSymbol, *log) ? 0 : -1;
  }
  if (mode == 1) {
    if (n < 1 || src[0] > maxSymbols[kind]) return -1;
    t[0].base = 0;
    t[0].nbBits = 0;
    seq_symbol(&t[0], kind, src[0]);
    *log = 0;
    return 1;
  }
  if (mode == 2) {
    s16 norm[64];
    u32 maxSymbol = maxSymbols[kind], l;
    u32 used = fse_read_counts(src, n, norm, &maxSymbol, &l, maxLogs[kind]);
    if (used == 0 || !seq_table_from(t, kind, norm, maxSymbol, l)) return -1;
    *log = l;
    return (s32)used;
  }
  return st.haveSeqTables ? 0 : -1;
}

/*
 * Decodes the sequences section (n bytes) and executes it with the block's literals, writing at
 * *opp (not past oend); returns 0 or a negative ZERR_* code.
 */
static s32 decode_sequences(const u8 *src, u32 n, u8 **opp, u8 *oend, const u8 *frameStart, const u8 *lits, u32 litCount) {
  if (n < 1) return -ZERR_SEQUENCES;
  u32 nbSeq = src[0], at = 1;
  if (nbSeq >= 128) {
    if (nbSeq == 255) {
      if (n < 3) return -ZERR_SEQUENCES;
      nbSeq = rd16(src + 1) + 0x7F00;
      at = 3;
    } else {
      if (n < 2) return -ZERR_SEQUENCES;
      nbSeq = ((nbSeq - 128) << 8) + src[1];
      at = 2;
    }
  }
  u8 *op = *opp;
  const u8 *lp = lits, *lend = lits + litCount;
  if (nbSeq > 0) {
    if (at >= n) return -ZERR_SEQUENCES;
    u32 modes = src[at++];
    if (modes & 3) return -ZERR_SEQUENCES;
    s32 used = seq_table(KIND_LL, modes >> 6, src + at, n - at);
    if (used < 0) return -ZERR_FSE;
    at += (u32)used;
    used = seq_table(KIND_OF, (modes >> 4) & 3, src + at, n - at);
    if (used < 0) return -ZERR_FSE;
    at += (u32)used;
    used = seq_table(KIND_ML, (modes >> 2) & 3, src + at, n - at);
    if (used < 0) return -ZERR_FSE;
    at += (u32)used;
    st.haveSeqTables = 1;
    BitIn b;
    if (at >= n || !bit_init(&b, src + at, n - at)) return -ZERR_SEQUENCES;
    u32 sll = bit_read(&b, st.llLog), sof = bit_read(&b, st.ofLog), sml = bit_read(&b, st.mlLog);
    bit_reload(&b);
    u32 r0 = st.rep[0], r1 = st.rep[1], r2 = st.rep[2];
    for (u32 i = 0; i < nbSeq; i++) {
      const SeqEntry ell = st.ll[sll], eof = st.of[sof], eml = st.ml[sml];
      u32 offset;
      u32 ofBits = eof.extra;
      u32 ll = ell.value, ml = eml.value;
      if (ofBits > 1) {
        offset = eof.value + bit_read_fast1(&b, ofBits) - 3;
        r2 = r1;
        r1 = r0;
        r0 = offset;
      } else if (ofBits == 0) {
        /* Repeat offset 1 (or 2 when the sequence has no literals), the commonest: selects, no branch. */
        u32 ll0 = ell.value == 0;
        offset = ll0 ? r1 : r0;
        r1 = ll0 ? r0 : r1;
        r0 = offset;
      } else {
        /* Repeat offsets 2 and 3, shifted by one when the sequence has no literals. */
        u32 rep = eof.value + bit_read_fast(&b, 1) - 1 + (ell.value == 0);
        if (rep == 0) {
          offset = r0;
        } else {
          offset = rep == 1 ? r1 : rep == 2 ? r2 : r0 - 1;
          if (offset == 0) return -ZERR_OFFSET;
          if (rep != 1) r2 = r1;
          r1 = r0;
          r0 = offset;
        }
      }
      if (eml.extra) ml += bit_read_fast1(&b, eml.extra);
      if (ofBits + eml.extra + ell.extra >= 31) bit_reload(&b);
      if (ell.extra) ll += bit_read_fast1(&b, ell.extra);
      if (i + 1 < nbSeq) {
        sll = ell.base + bit_read_fast(&b, ell.nbBits);
        sml = eml.base + bit_read_fast(&b, eml.nbBits);
        sof = eof.base + bit_read_fast(&b, eof.nbBits);
      }
      if (bit_reload(&b) == 2) return -ZERR_SEQUENCES;
      /* Execute: literals, then the match. */
      if (ll > (u32)(lend - lp)) return -ZERR_SEQUENCES;
      if ((u64)ll + ml > (u64)(oend - op)) return -ZERR_OUTPUT;
      copy16(op, lp, ll); /* also for none: cheaper than the branch, and the slack takes it */
      op += ll;
      lp += ll;
      if (offset > (u32)(op - frameStart)) return -ZERR_OFFSET;
      /*
       * Most matches reach 16 bytes back or more: their copy is inline, the rest is a call.
       * copy_match tests offset >= 16 too, but clang does not inline it here: without this
       * branch every match pays a call (seen in the built module's code).
       */
      if (offset >= 16) copy16(op, op - offset, ml);
      else copy_match(op, offset, ml);
      op += ml;
    }
    if (!bit_done(&b)) return -ZERR_SEQUENCES;
    st.rep[0] = r0;
    st.rep[1] = r1;
    st.rep[2] = r2;
  } else if (at != n) {
    return -ZERR_SEQUENCES;
  }
  u32 rest = (u32)(lend - lp);
  if (rest > (u32)(oend - op)) return -ZERR_OUTPUT;
  if (rest) copy16(op, lp, rest);
  *opp = op + rest;
  return 0;
}

/* ---- Frames ---- */

/*
 * Decodes the zstd frames (and skippable frames) of src[0..n) into dst, which holds `cap` bytes
 * and has ZSTD_OUT_SLACK (32) more after them; src needs 16 bytes of readable slack. Returns the
 * decoded length, or a negative ZERR_* code.
 */
EXPORT("zstd_decompress")
s32 zstd_decompress(const u8 *src, u32 n, u8 *dst, u32 cap) {
  const u8 *ip = src, *iend = src + n;
  u8 *op = dst, *oend = dst + cap;
  if (n == 0) return -ZERR_TRUNCATED;
  while (ip < iend) {
    u32 left = (u32)(iend - ip);
    if (left < 4) return -ZERR_TRUNCATED;
    u32 magic = rd32(ip);
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
      if (left < 8) return -ZERR_TRUNCATED;
      u32 size = rd32(ip + 4);
      if (size > left - 8) return -ZERR_TRUNCATED;
      ip += 8 + size;
      continue;
    }
    if (magic != 0xFD2FB528u) return -ZERR_HEADER;
    if (left < 5) return -ZERR_TRUNCATED;
    u32 fhd = ip[4];
    if (fhd & 8) return -ZERR_HEADER;
    u32 single = (fhd >> 5) & 1, fcsFlag = fhd >> 6;
    u32 didSize = (fhd & 3) == 3 ? 4 : (fhd & 3);
    u32 fcsSize = fcsFlag == 0 ? single : 1u << fcsFlag;
    u32 hsize = 5 + (single ? 0 : 1) + didSize + fcsSize;
    if (left < hsize) return -ZERR_TRUNCATED;
    const u8 *h = ip + 5 + (single ? 0 : 1);
    u32 did = didSize == 1 ? h[0] : didSize == 2 ? rd16(h) : didSize == 4 ? rd32(h) : 0;
    if (did != 0) return -ZERR_DICTIONARY;
    h += didSize;
    u64 fcs = fcsSize == 1 ? h[0] : fcsSize == 2 ? rd16(h) + 256 : fcsSize == 4 ? rd32(h) : fcsSize == 8 ? rd64(h) : ~0ull;
    if (fcsSize && fcs > (u64)(oend - op)) return -ZERR_OUTPUT;
    /* No block may decode to more than the window (the content size in a single-segment frame)
       or 128 KiB. We keep no window, but libzstd refuses such blocks, and so do we. */
    u32 blockMax = BLOCK_MAX;
    if (single) {
      if (fcs < blockMax) blockMax = (u32)fcs;
    } else {
      u32 wd = ip[5], wlog = 10 + (wd >> 3);
      if (wlog > 31) return -ZERR_WINDOW;
      u64 window = (1ull << wlog) + ((1ull << wlog) >> 3) * (wd & 7);
      if (window < blockMax) blockMax = (u32)window;
    }
    ip += hsize;
    u8 *frameStart = op;
    st.hufLog = 0;
    st.haveSeqTables = 0;
    st.rep[0] = 1;
    st.rep[1] = 4;
    st.rep[2] = 8;
    for (;;) {
      if (iend - ip < 3) return -ZERR_TRUNCATED;
      u32 bh = rd24(ip);
      u32 last = bh & 1, type = (bh >> 1) & 3, size = bh >> 3;
      ip += 3;
      if (type == 3) return -ZERR_HEADER;
      if (size > blockMax) return -ZERR_WINDOW;
      if (type == 1) {
        if (ip >= iend) return -ZERR_TRUNCATED;
        if (size > (u32)(oend - op)) return -ZERR_OUTPUT;
        __builtin_memset(op, *ip, size);
        ip += 1;
        op += size;
      } else {
        if (size > (u32)(iend - ip)) return -ZERR_TRUNCATED;
        if (type == 0) {
          if (size > (u32)(oend - op)) return -ZERR_OUTPUT;
          __builtin_memcpy(op, ip, size);
          op += size;
        } else {
          const u8 *lits;
          u32 litCount;
          u32 used = decode_literals(ip, size, &lits, &litCount);
          if (used == 0) return -ZERR_LITERALS;
          u8 *blockEnd = (u32)(oend - op) > blockMax ? op + blockMax : oend;
          s32 r = decode_sequences(ip + used, size - used, &op, blockEnd, frameStart, lits, litCount);
          if (r < 0) return r == -ZERR_OUTPUT && blockEnd != oend ? -ZERR_WINDOW : r;
        }
        ip += size;
      }
      if (last) break;
    }
    u32 produced = (u32)(op - frameStart);
    if (fcsSize && fcs != produced) return -ZERR_SIZE;
    if (fhd & 4) {
      if (iend - ip < 4) return -ZERR_TRUNCATED;
      if ((u32)xxh64(frameStart, produced) != rd32(ip)) return -ZERR_CHECKSUM;
      ip += 4;
    }
  }
  return (s32)(op - dst);
}

/* The low 32 bits of XXH64 (seed 0) of n bytes at src: a zstd frame's content checksum. */
EXPORT("xxh64_low32")
u32 xxh64_low32(const u8 *src, u32 n) { return (u32)xxh64(src, n); }
