/* Lines of the coordinator's protocol built from its table
 * (src/common/coord_protocol.h), for fuzz_lines and unit.coord_protocol: a
 * row's pattern filled with arguments drawn from bytes, so that every kind
 * of line reaches its handler, well-formed, whatever the corpus holds. */
#ifndef MPCR_TABLE_LINE_H
#define MPCR_TABLE_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coord_protocol.h"

struct table_bytes {
    const uint8_t *p;
    size_t n;
};

static unsigned table_byte(struct table_bytes *b)
{
    if (!b->n) return 0;
    b->n--;
    return *b->p++;
}

/* A number: mostly small (the fuzzed job's generation is 7, its ranks 0
 * and 1), sometimes up to 2^64 - 1. */
static unsigned long long table_number(struct table_bytes *b)
{
    unsigned c = table_byte(b);
    if (c < 224) return c % 10;
    unsigned long long v = 0;
    for (unsigned i = 0; i < (c & 7) + 1; i++)
        v = v << 8 | table_byte(b);
    return v;
}

/* Row k's line into out (cap > 0, NUL-terminated); its length. */
static size_t table_line(int k, const uint8_t *data, size_t size, char *out, size_t cap)
{
    static const char *const words[] = {"checkpoint", "exit", "a0a0a0", "b1b1b1"};
    struct table_bytes b = {data, size};
    const struct mpcr_line_row *row = &mpcr_coord_lines[k];
    size_t len = (size_t)snprintf(out, cap, "%s", row->word);
    const char *p = row->args;
    while (*p && len + 2 < cap) {
        if (*p == ' ' || *p == ']') {
            p++;
            continue;
        }
        if (*p == '[' && !(table_byte(&b) & 1)) break; /* without the optional tail */
        if (*p == '[') p++;
        out[len++] = ' '; /* one space before every argument */
        size_t n = strcspn(p, " ]");
        if (p[0] == '%' && p[1] == 'u')
            len += (size_t)snprintf(out + len, cap - len, "%llu", table_number(&b));
        else if (p[0] == '%' && p[1] == 'w')
            len += (size_t)snprintf(out + len, cap - len, "%s", words[table_byte(&b) % 4]);
        else if (p[0] == '%' && p[1] == 't') {
            out[len++] = 'x'; /* text: one character at least, then the rest of the bytes */
            while (b.n && len + 1 < cap) {
                unsigned c = table_byte(&b);
                out[len++] = c == '\n' || c == 0 ? '_' : (char)c;
            }
        } else
            len += (size_t)snprintf(out + len, cap - len, "%.*s", (int)n, p);
        p += n;
    }
    if (len >= cap) len = cap - 1;
    out[len] = 0;
    return len;
}

#endif
