/* See record_form.h. */
#include "record_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h" /* MPCR_COLL_CONTEXT */


struct saved_head {
    uint64_t clock;
    uint32_t count, zero;
};
struct saved_comm {
    uint32_t id, nmembers;
    uint64_t key;
};

static size_t padded(uint32_t nmembers)
{
    return ((size_t)nmembers * 4 + 7) / 8 * 8;
}

void *record_encode(const struct outcome *live, uint32_t nlive, uint64_t clock, size_t *len)
{
    size_t n = sizeof(struct saved_head);
    for (uint32_t i = 0; i < nlive; i++)
        n += sizeof(struct saved_comm) + padded(live[i].nmembers);
    char *buf = calloc(1, n), *p = buf;
    if (!buf) return NULL;
    struct saved_head h = {clock, nlive, 0};
    memcpy(p, &h, sizeof h), p += sizeof h;
    for (uint32_t i = 0; i < nlive; i++) {
        struct saved_comm s = {live[i].id, live[i].nmembers, live[i].key};
        memcpy(p, &s, sizeof s), p += sizeof s;
        memcpy(p, live[i].members, (size_t)live[i].nmembers * 4), p += padded(live[i].nmembers);
    }
    *len = n;
    return buf;
}

static int by_key(const void *a, const void *b)
{
    const struct outcome *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

int record_decode(const void *buf, size_t len, int rank, int size, struct outcome **out,
                  uint32_t *n, uint64_t *clk, char *err, size_t cap)
{
    const char *p = buf, *end = p + len;
    struct saved_head h;
    if ((size_t)(end - p) < sizeof h) return snprintf(err, cap, "its record is truncated"), -1;
    memcpy(&h, p, sizeof h), p += sizeof h;
    if (h.count > (size_t)(end - p) / sizeof(struct saved_comm))
        return snprintf(err, cap, "its record counts %u communicators, more than it holds", h.count),
               -1;
    struct outcome *o = calloc((size_t)h.count + 1, sizeof *o);
    if (!o) return snprintf(err, cap, "out of memory"), -1;
    for (uint32_t i = 0; i < h.count; i++) {
        struct saved_comm s;
        if ((size_t)(end - p) < sizeof s) goto bad;
        memcpy(&s, p, sizeof s), p += sizeof s;
        if (s.nmembers == 0 || s.nmembers > (uint32_t)size ||
            padded(s.nmembers) > (size_t)(end - p) || s.id < 2 || (s.id & MPCR_COLL_CONTEXT))
            goto bad;
        o[i] = (struct outcome){s.id, s.nmembers, s.key, malloc((size_t)s.nmembers * 4)};
        if (!o[i].members) goto bad;
        memcpy(o[i].members, p, (size_t)s.nmembers * 4), p += padded(s.nmembers);
        int self = 0;
        for (uint32_t k = 0; k < s.nmembers; k++) {
            if (o[i].members[k] < 0 || o[i].members[k] >= size) goto bad;
            self |= o[i].members[k] == rank;
        }
        if (!self || s.key > h.clock) goto bad;
    }
    *n = h.count;
    qsort(o, h.count, sizeof *o, by_key);
    *out = o, *clk = h.clock;
    return 0;
bad:
    for (uint32_t i = 0; i < h.count; i++)
        free(o[i].members);
    free(o);
    return snprintf(err, cap, "its record of communicators is damaged"), -1;
}


static int same(const struct outcome *a, const struct outcome *b)
{
    return a->key == b->key && a->nmembers == b->nmembers &&
           !memcmp(a->members, b->members, (size_t)a->nmembers * 4);
}

static int has_member(const struct outcome *o, int rank)
{
    for (uint32_t k = 0; k < o->nmembers; k++)
        if (o->members[k] == rank) return 1;
    return 0;
}

/* Appends a copy of o (with id) unless it is there already. */
static int merge_one(struct outcome **all, uint32_t *n, uint32_t *cap, const struct outcome *o,
                     uint32_t id)
{
    for (uint32_t i = 0; i < *n; i++)
        if (same(&(*all)[i], o)) return 0;
    if (*n == *cap) {
        uint32_t c = *cap ? 2 * *cap : 16;
        struct outcome *t = realloc(*all, c * sizeof *t);
        if (!t) return -1;
        *all = t, *cap = c;
    }
    int32_t *m = malloc((size_t)o->nmembers * 4);
    if (!m) return -1;
    memcpy(m, o->members, (size_t)o->nmembers * 4);
    (*all)[(*n)++] = (struct outcome){id, o->nmembers, o->key, m};
    return 0;
}

int record_merge(const struct outcome *mine, uint32_t nmine, const struct outcome *const *theirs,
                 const uint32_t *counts, int size, int rank, struct outcome **out, uint32_t *n)
{
    struct outcome *all = NULL;
    uint32_t nall = 0, cap = 0;
    int rc = 0;
    for (uint32_t i = 0; i < nmine && !rc; i++)
        rc = merge_one(&all, &nall, &cap, &mine[i], mine[i].id);
    for (int r = 0; r < size && !rc; r++)
        for (uint32_t i = 0; r != rank && i < counts[r] && !rc; i++)
            if (has_member(&theirs[r][i], rank)) rc = merge_one(&all, &nall, &cap, &theirs[r][i], 0);
    if (rc) {
        for (uint32_t i = 0; i < nall; i++)
            free(all[i].members);
        free(all);
        return -1;
    }
    if (nall) qsort(all, nall, sizeof *all, by_key);
    *out = all, *n = nall;
    return 0;
}
