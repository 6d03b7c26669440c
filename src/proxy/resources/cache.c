/* See cache.h. */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

/* mpcr ABI wildcards (MPICH's values) */
enum { ABI_ANY_SOURCE = -2, ABI_ANY_TAG = -1, ABI_ERR_TRUNCATE = 14 };

struct cached_msg *cache;
uint32_t ncache;
static uint32_t capacity;

int cache_find(uint32_t comm, int32_t peer, int32_t tag)
{
    return cache_find_after(-1, comm, peer, tag);
}

int cache_find_after(int after, uint32_t comm, int32_t peer, int32_t tag)
{
    for (uint32_t i = (uint32_t)(after + 1); i < ncache; i++) {
        const struct cached_msg *m = &cache[i];
        if (m->comm == comm && (peer == ABI_ANY_SOURCE || peer == m->source) &&
            (tag == ABI_ANY_TAG || tag == m->tag))
            return (int)i;
    }
    return -1;
}

void cache_peek(int i, struct req_status *s)
{
    *s = (struct req_status){cache[i].rc, cache[i].source, cache[i].tag, cache[i].bytes};
}

void cache_take(int i, void *buf, uint64_t cap, struct req_status *s)
{
    struct cached_msg *m = &cache[i];
    cache_peek(i, s);
    if (m->rc) {
        s->bytes = 0; /* the data is not known to be right */
    } else if (m->bytes > cap) { /* what fits is delivered, as MPI's receive does */
        s->rc = ABI_ERR_TRUNCATE, s->bytes = cap;
        if (cap) memcpy(buf, m->data, cap);
    } else if (m->bytes) {
        memcpy(buf, m->data, m->bytes);
    }
    free(m->data);
    memmove(m, m + 1, (ncache - (uint32_t)i - 1) * sizeof *m);
    ncache--;
}

int cache_add(uint32_t comm, int32_t source, int32_t tag, int32_t rc, uint64_t bytes, void *data)
{
    if (ncache == capacity) {
        uint32_t n = capacity ? 2 * capacity : 64;
        struct cached_msg *c = realloc(cache, n * sizeof *c);
        if (!c) return -1;
        cache = c, capacity = n;
    }
    cache[ncache++] = (struct cached_msg){comm, source, tag, rc, bytes, data};
    return 0;
}

uint64_t cache_bytes(void)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < ncache; i++)
        n += cache[i].bytes;
    return n;
}
