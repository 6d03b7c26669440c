/* See hash.h. */
#include "hash.h"

uint32_t mpcr_hash32(uint32_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 16777619u;
    return h;
}

uint64_t mpcr_hash64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    return h;
}
