/* SHA-256 (FIPS 180-4), shared by the image writer and the freestanding
 * restorer. Header-only and libc-free, as crc32c.h is, so that both include
 * it.
 *
 * Why a cryptographic hash and not CRC32C: the content hash of a mapped file
 * (the program, its libraries) is what tells a restart that a file another
 * user could have made is the file the checkpoint mapped (docs/security.md,
 * "Files the image maps"). Anyone can make a file with a chosen CRC32C; no
 * one can make one with a chosen SHA-256. Portable C, and the x86 SHA
 * extensions where the CPU has them (asked once with CPUID: the restorer has
 * no libc to ask): both speeds are in docs/security.md. */
#ifndef MPCR_SHA256_H
#define MPCR_SHA256_H

#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#define MPCR_SHA256_LEN 32

struct mpcr_sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes so far */
    unsigned char buf[64];
    uint32_t fill; /* bytes in buf */
};

static const uint32_t mpcr_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t mpcr_sha256_ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static inline void mpcr_sha256_block(uint32_t st[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = mpcr_sha256_ror(w[i - 15], 7) ^ mpcr_sha256_ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = mpcr_sha256_ror(w[i - 2], 17) ^ mpcr_sha256_ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (mpcr_sha256_ror(e, 6) ^ mpcr_sha256_ror(e, 11) ^ mpcr_sha256_ror(e, 25)) +
                      ((e & f) ^ (~e & g)) + mpcr_sha256_k[i] + w[i];
        uint32_t t2 = (mpcr_sha256_ror(a, 2) ^ mpcr_sha256_ror(a, 13) ^ mpcr_sha256_ror(a, 22)) +
                      ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    st[0] += a, st[1] += b, st[2] += c, st[3] += d, st[4] += e, st[5] += f, st[6] += g, st[7] += h;
}

#if defined(__x86_64__)
/* The same compression with SHA256RNDS2/MSG1/MSG2. The instructions keep the
 * eight words as two registers, (A, B, E, F) and (C, D, G, H), highest lane
 * first; each SHA256RNDS2 does two rounds and returns the new (A, B, E, F),
 * whose value before is then the new (C, D, G, H). Message words sit four to a
 * register, lowest lane first, and each group of four is made from the four
 * before it: MSG1 adds sigma0 of the next word to each of W[t-16..t-13],
 * W[t-7..t-4] come from two groups joined by PALIGNR, and MSG2 adds sigma1 of
 * W[t-2], the last two of which are words of the new group itself. */
__attribute__((target("sha,ssse3"))) static inline void mpcr_sha256_blocks_hw(uint32_t st[8], const unsigned char *p,
                                                                                size_t nblocks)
{
    const __m128i be_words = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef = _mm_set_epi32((int)st[0], (int)st[1], (int)st[4], (int)st[5]);
    __m128i cdgh = _mm_set_epi32((int)st[2], (int)st[3], (int)st[6], (int)st[7]);
    for (; nblocks--; p += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i w[4]; /* the last four groups of message words, group g in w[g % 4] */
        for (int g = 0; g < 16; g++) {
            __m128i *now = &w[g & 3];
            if (g < 4) {
                *now = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)), be_words);
            } else {
                const __m128i prev = w[(g - 1) & 3], prev2 = w[(g - 2) & 3];
                __m128i x = _mm_add_epi32(_mm_sha256msg1_epu32(*now, w[(g - 3) & 3]), _mm_alignr_epi8(prev, prev2, 4));
                *now = _mm_sha256msg2_epu32(x, prev);
            }
            __m128i wk = _mm_add_epi32(*now, _mm_loadu_si128((const __m128i *)(const void *)(mpcr_sha256_k + 4 * g)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }
    uint32_t x[4], y[4]; /* lane 0 first: (F, E, B, A) and (H, G, D, C) */
    _mm_storeu_si128((__m128i *)(void *)x, abef);
    _mm_storeu_si128((__m128i *)(void *)y, cdgh);
    st[0] = x[3], st[1] = x[2], st[4] = x[1], st[5] = x[0];
    st[2] = y[3], st[3] = y[2], st[6] = y[1], st[7] = y[0];
}

/* -1 until asked, then whether the CPU has the SHA extensions and SSSE3; a
 * test sets it to 0 to check the portable path where they are. */
static int mpcr_sha256_hw = -1;

static inline int mpcr_sha256_hw_present(void)
{
    if (mpcr_sha256_hw < 0) {
        unsigned a, b, c, d;
        int ssse3 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3);
        int sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
        mpcr_sha256_hw = ssse3 && sha;
    }
    return mpcr_sha256_hw;
}
#endif

/* Whole blocks, the fastest way this CPU has. */
static inline void mpcr_sha256_blocks(uint32_t st[8], const unsigned char *p, size_t nblocks)
{
#if defined(__x86_64__)
    if (mpcr_sha256_hw_present()) {
        mpcr_sha256_blocks_hw(st, p, nblocks);
        return;
    }
#endif
    for (; nblocks--; p += 64) mpcr_sha256_block(st, p);
}

static inline void mpcr_sha256_init(struct mpcr_sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (int i = 0; i < 8; i++) s->h[i] = iv[i];
    s->len = 0;
    s->fill = 0;
}

static inline void mpcr_sha256_update(struct mpcr_sha256 *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->len += n;
    while (n) {
        if (!s->fill && n >= 64) { /* whole blocks straight from the caller's buffer */
            size_t whole = n / 64;
            mpcr_sha256_blocks(s->h, p, whole);
            p += 64 * whole, n -= 64 * whole;
            continue;
        }
        while (n && s->fill < 64) s->buf[s->fill++] = *p++, n--;
        if (s->fill == 64) mpcr_sha256_blocks(s->h, s->buf, 1), s->fill = 0;
    }
}

static inline void mpcr_sha256_final(struct mpcr_sha256 *s, unsigned char out[MPCR_SHA256_LEN])
{
    uint64_t bits = s->len * 8;
    s->buf[s->fill++] = 0x80;
    if (s->fill > 56) {
        while (s->fill < 64) s->buf[s->fill++] = 0;
        mpcr_sha256_blocks(s->h, s->buf, 1);
        s->fill = 0;
    }
    while (s->fill < 56) s->buf[s->fill++] = 0;
    for (int i = 0; i < 8; i++) s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    mpcr_sha256_blocks(s->h, s->buf, 1);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
}

#endif
