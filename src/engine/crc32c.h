/* CRC32C (Castagnoli) over byte buffers, shared by the image writer and the
 * freestanding restorer. Header-only and libc-free so both can include it.
 * Uses the SSE4.2 crc32 instruction (every x86-64 CPU since 2008); the
 * restorer refuses an image written on a CPU with features this one lacks,
 * and the writer checks for SSE4.2 once at start-up. */
#ifndef MPCR_CRC32C_H
#define MPCR_CRC32C_H

#include <stddef.h>
#include <stdint.h>

__attribute__((target("sse4.2"))) static inline uint32_t mpcr_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    while (len && ((uintptr_t)p & 7)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t v;
        __builtin_memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        len -= 8;
    }
    while (len--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

#endif
