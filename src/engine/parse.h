/* Number parsing for /proc text, libc-free and header-only: shared by the
 * engine (inside the frozen process) and the freestanding restorer. Each
 * advances *p past the digits it consumed. */
#ifndef MPCR_PARSE_H
#define MPCR_PARSE_H

#include <stdint.h>

static inline uint64_t mpcr_parse_hex(const char **p)
{
    uint64_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9') v = v * 16 + (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (uint64_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v = v * 16 + (uint64_t)(c - 'A' + 10);
        else return v;
    }
}

static inline uint64_t mpcr_parse_dec(const char **p)
{
    uint64_t v = 0;
    while (**p >= '0' && **p <= '9') v = v * 10 + (uint64_t)(*(*p)++ - '0');
    return v;
}

static inline uint64_t mpcr_parse_oct(const char **p)
{
    uint64_t v = 0;
    while (**p >= '0' && **p <= '7') v = v * 8 + (uint64_t)(*(*p)++ - '0');
    return v;
}

#endif
