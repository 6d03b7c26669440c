/* CRC32C (Castagnoli) over byte buffers, shared by the image writer and the
 * freestanding restorer. Header-only and libc-free so both can include it.
 * Uses the SSE4.2 crc32 instruction (every x86-64 CPU since 2008); the
 * restorer refuses an image written on a CPU with features this one lacks,
 * and the writer checks for SSE4.2 once at start-up.
 *
 * One crc32 instruction waits for the previous one (3 cycles), so a single
 * chain does 8 bytes per 3 cycles. Long buffers go through three chains at
 * once, over three neighbouring lanes of MPCR_CRC_LANE bytes, and the three
 * results are joined: the raw CRC state is linear, so running it over a
 * lane's worth of zero bytes is a fixed 32x32 bit matrix, applied by four
 * table lookups (mpcr_crc32c_init builds the tables; until then, and in a
 * process that never calls it, the single chain is used). */
#ifndef MPCR_CRC32C_H
#define MPCR_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#define MPCR_CRC_LANE 4096

/* shift[k][v]: the raw state v << 8k after MPCR_CRC_LANE zero bytes */
static struct {
    uint32_t shift[4][256];
    int ready;
} mpcr_crc_lanes;

__attribute__((target("sse4.2"))) static inline uint64_t mpcr_crc_chain(uint64_t c, const unsigned char *p, size_t len)
{
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t v;
        __builtin_memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    while (len--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return c;
}

__attribute__((target("sse4.2"))) static inline void mpcr_crc32c_init(void)
{
    if (mpcr_crc_lanes.ready) return;
    uint32_t column[32]; /* where each single bit of the state goes */
    for (int b = 0; b < 32; b++) {
        uint64_t c = 1u << b;
        for (int i = 0; i < MPCR_CRC_LANE; i += 8) c = __builtin_ia32_crc32di(c, 0);
        column[b] = (uint32_t)c;
    }
    for (int k = 0; k < 4; k++)
        for (int v = 0; v < 256; v++) {
            uint32_t x = 0;
            for (int b = 0; b < 8; b++)
                if (v >> b & 1) x ^= column[8 * k + b];
            mpcr_crc_lanes.shift[k][v] = x;
        }
    mpcr_crc_lanes.ready = 1;
}

static inline uint32_t mpcr_crc_skip_lane(uint32_t c)
{
    return mpcr_crc_lanes.shift[0][c & 255] ^ mpcr_crc_lanes.shift[1][c >> 8 & 255] ^
           mpcr_crc_lanes.shift[2][c >> 16 & 255] ^ mpcr_crc_lanes.shift[3][c >> 24];
}

__attribute__((target("sse4.2"))) static inline uint32_t mpcr_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    if (mpcr_crc_lanes.ready)
        for (; len >= 3 * MPCR_CRC_LANE; p += 3 * MPCR_CRC_LANE, len -= 3 * MPCR_CRC_LANE) {
            uint64_t a = c, b = 0, d = 0; /* lanes 2 and 3 start from 0 and are added in */
            for (size_t i = 0; i < MPCR_CRC_LANE; i += 8) {
                uint64_t x, y, z;
                __builtin_memcpy(&x, p + i, 8);
                __builtin_memcpy(&y, p + MPCR_CRC_LANE + i, 8);
                __builtin_memcpy(&z, p + 2 * MPCR_CRC_LANE + i, 8);
                a = __builtin_ia32_crc32di(a, x);
                b = __builtin_ia32_crc32di(b, y);
                d = __builtin_ia32_crc32di(d, z);
            }
            c = mpcr_crc_skip_lane(mpcr_crc_skip_lane((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)d;
        }
    return ~(uint32_t)mpcr_crc_chain(c, p, len);
}

#endif
