/* Pack and unpack: runs a type's compiled form (typemap_seq.h) over a
 * range of the packed bytes. Both directions share one walk; only the
 * innermost copy differs. The common cases stay short: a contiguous range
 * is one memcpy, a vector of small blocks a loop of fixed-size copies.
 * Seeking to the first byte wanted costs a division per level and a binary
 * search per sequence, so packing a message in pieces stays linear. */
#include "typemap.h"
#include "typemap_seq.h"

#include <string.h>

/* Moves n bytes between memory (the typed buffer) and buf (packed). */
static inline __attribute__((always_inline)) void move(char *mem, char *buf, int64_t n, bool unpack)
{
    if (unpack)
        memcpy(mem, buf, (size_t)n);
    else
        memcpy(buf, mem, (size_t)n);
}

/* One block of n bytes, usually a few words (an indexed type's blocks):
 * the common sizes get a fixed-size copy the compiler inlines, the rest
 * memcpy. */
static inline __attribute__((always_inline)) void block(char *mem, char *buf, int64_t n,
                                                        bool unpack)
{
#define BLOCK(u)                                                                                   \
    case u:                                                                                        \
        move(mem, buf, u, unpack);                                                                 \
        return
    switch (n) {
        BLOCK(1);
        BLOCK(2);
        BLOCK(4);
        BLOCK(8);
        BLOCK(12);
        BLOCK(16);
        BLOCK(24);
        BLOCK(32);
        BLOCK(40);
        BLOCK(48);
        BLOCK(56);
        BLOCK(64);
    default:
        move(mem, buf, n, unpack);
    }
#undef BLOCK
}

/* n blocks of `unit` bytes, `stride` apart at mem, to or from buf where
 * they lie end to end. The usual sizes get a copy the compiler inlines. */
static inline __attribute__((always_inline)) void strided(char *mem, int64_t stride, char *buf,
                                                          int64_t unit, int64_t n, bool unpack)
{
#define STRIDED(u)                                                                                 \
    _Pragma("GCC unroll 4") for (int64_t i = 0; i < n; i++, mem += stride, buf += (u))             \
    {                                                                                              \
        move(mem, buf, (u), unpack);                                                               \
    }
    switch (unit) {
    case 1:
        STRIDED(1);
        break;
    case 2:
        STRIDED(2);
        break;
    case 4:
        STRIDED(4);
        break;
    case 8:
        STRIDED(8);
        break;
    case 16:
        STRIDED(16);
        break;
    default:
        for (int64_t i = 0; i < n; i++, mem += stride, buf += unit)
            block(mem, buf, unit, unpack);
    }
#undef STRIDED
}

static void strided_pack(char *mem, int64_t stride, char *buf, int64_t unit, int64_t n)
{
    strided(mem, stride, buf, unit, n, false);
}

static void strided_unpack(char *mem, int64_t stride, char *buf, int64_t unit, int64_t n)
{
    strided(mem, stride, buf, unit, n, true);
}

static int64_t seq_copy(const struct mpcr_tm_seq *s, uintptr_t base, char *buf, int64_t skip,
                        int64_t max, bool unpack);

/* Copies packed bytes [skip, skip + max) of item `it` of an element at
 * base; 0 <= skip < its packed size, max > 0. Returns the bytes copied. */
static int64_t item_copy(const struct tm_item *it, uintptr_t base, char *buf, int64_t skip,
                         int64_t max, bool unpack)
{
    int64_t left = it->count * it->unit - skip, k = skip / it->unit, off = skip % it->unit;
    int64_t done = 0;
    if (max > left) max = left;
    /* Unsigned arithmetic: displacements may be negative, base may be 0. */
    uintptr_t at = base + (uintptr_t)it->disp + (uintptr_t)k * (uintptr_t)it->stride;
    if (it->body) {
        for (; done < max; off = 0, at += (uintptr_t)it->stride)
            done += seq_copy(it->body, at, buf + done, off, max - done, unpack);
        return done;
    }
    if (off) { /* the end of a block begun by an earlier piece */
        done = it->unit - off < max ? it->unit - off : max;
        move((char *)(at + (uintptr_t)off), buf, done, unpack);
        at += (uintptr_t)it->stride;
    }
    int64_t whole = (max - done) / it->unit;
    if (whole) {
        (unpack ? strided_unpack : strided_pack)((char *)at, it->stride, buf + done, it->unit,
                                                 whole);
        done += whole * it->unit;
        at += (uintptr_t)whole * (uintptr_t)it->stride;
    }
    if (done < max) move((char *)at, buf + done, max - done, unpack); /* a block begun */
    return max;
}

/* The whole of sequence s at base: no seeking, no bounds per item (an
 * indexed type's many short blocks are the case that counts). */
static inline __attribute__((always_inline)) int64_t whole_seq(const struct mpcr_tm_seq *s,
                                                                uintptr_t base, char *buf,
                                                                bool unpack)
{
    char *p = buf;
    for (const struct tm_item *it = s->item, *end = it + s->n; it < end; it++) {
        char *mem = (char *)(base + (uintptr_t)it->disp);
        int64_t bytes = it->count * it->unit;
        if (it->body)
            item_copy(it, base, p, 0, bytes, unpack);
        else if (it->count == 1)
            block(mem, p, it->unit, unpack);
        else
            strided(mem, it->stride, p, it->unit, it->count, unpack);
        p += bytes;
    }
    return p - buf;
}

/* Copies packed bytes [skip, skip + max) of sequence s at base; 0 <= skip
 * < s->size, max > 0. Returns the bytes copied. */
static int64_t seq_copy(const struct mpcr_tm_seq *s, uintptr_t base, char *buf, int64_t skip,
                        int64_t max, bool unpack)
{
    if (skip == 0 && max >= s->size) return whole_seq(s, base, buf, unpack);
    int64_t lo = 0, hi = s->n - 1, done = 0;
    while (lo < hi) { /* the last item starting at or before skip */
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (s->item[mid].pos <= skip)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (int64_t i = lo; i < s->n && done < max; i++) {
        const struct tm_item *it = &s->item[i];
        int64_t in = skip > it->pos ? skip - it->pos : 0;
        if (!it->body && !in && it->count * it->unit <= max - done) {
            /* whole blocks (an indexed type's irregular ones): no seeking */
            char *mem = (char *)(base + (uintptr_t)it->disp);
            if (it->count == 1)
                block(mem, buf + done, it->unit, unpack);
            else
                strided(mem, it->stride, buf + done, it->unit, it->count, unpack);
            done += it->count * it->unit;
            continue;
        }
        done += item_copy(it, base, buf + done, in, max - done, unpack);
    }
    return done;
}

/* count elements as one item: an element that is one block or one strided
 * run becomes a longer run, so whole arrays of them need no recursion. */
static int64_t copy(const struct mpcr_type *t, uintptr_t base, char *buf, int64_t count,
                    int64_t skip, int64_t max, bool unpack)
{
    int64_t total;
    if (count <= 0 || t->size == 0 || skip < 0 || max <= 0 ||
        __builtin_mul_overflow(count, t->size, &total) || skip >= total)
        return 0;
    struct tm_item all = {.count = count, .stride = t->extent, .unit = t->size, .body = t->seq};
    const struct tm_item *e = &t->seq->item[0];
    if (t->seq->n == 1 && e->count == 1) {
        all.disp = e->disp, all.unit = e->unit, all.body = e->body;
        if (!all.body && all.stride == all.unit) all.unit *= count, all.count = 1;
    } else if (t->seq->n == 1 && e->count * e->stride == t->extent) {
        all = *e;
        all.count *= count;
    }
    return item_copy(&all, base, buf, skip, max, unpack);
}

int64_t mpcr_type_pack(void *dst, const void *base, int64_t count, const struct mpcr_type *t,
                       int64_t skip, int64_t max)
{
    return copy(t, (uintptr_t)base, dst, count, skip, max, false);
}

int64_t mpcr_type_unpack(void *base, const void *src, int64_t count, const struct mpcr_type *t,
                         int64_t skip, int64_t max)
{
    return copy(t, (uintptr_t)base, (char *)src, count, skip, max, true);
}
