/* See abandoned.h. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abandoned.h"
#include "coord.h"

static int rank_pending(const struct mpcr_abandoned_rank *k)
{
    return k->state || k->image;
}

/* Removes entry i and its directory. */
static void drop(struct mpcr_abandons *s, int i)
{
    struct mpcr_abandoned *a = &s->v[i];
    for (int r = 0; r < s->nranks; r++)
        if (a->r[r].writer_end >= 0) close(a->r[r].writer_end);
    mpcr_gen_remove(s->dir, a->gen);
    free(a->r);
    s->v[i] = s->v[--s->n];
}

struct mpcr_abandoned_rank *mpcr_abandoned_add(struct mpcr_abandons *s, unsigned long gen,
                                               double now)
{
    struct mpcr_abandoned_rank *r = calloc((size_t)s->nranks, sizeof *r);
    if (!r) return NULL;
    if (s->n == MPCR_ABANDONED_MAX) {
        fprintf(stderr, "mpcr: coordinator: %d failed checkpoints wait for their writers; gen-%lu "
                        "removed regardless\n", s->n, s->v[0].gen);
        drop(s, 0);
    }
    for (int i = 0; i < s->nranks; i++)
        r[i].writer_end = -1;
    s->v[s->n++] = (struct mpcr_abandoned){gen, now, r};
    return r;
}

struct mpcr_abandoned_rank *mpcr_abandoned_rank(struct mpcr_abandons *s, unsigned long gen,
                                                int r)
{
    if (r < 0 || r >= s->nranks) return NULL;
    for (int i = 0; i < s->n; i++)
        if (s->v[i].gen == gen) return &s->v[i].r[r];
    return NULL;
}

void mpcr_abandoned_proxy_gone(struct mpcr_abandons *s, int r)
{
    for (int i = 0; i < s->n && r >= 0 && r < s->nranks; i++) {
        struct mpcr_abandoned_rank *k = &s->v[i].r[r];
        k->state = 0;
        if (!k->went_on) k->image = 0;
    }
}

void mpcr_abandoned_settle(struct mpcr_abandons *s, double now, double timeout)
{
    for (int i = s->n - 1; i >= 0; i--) {
        struct mpcr_abandoned *a = &s->v[i];
        int pending = 0, late = -1;
        for (int r = 0; r < s->nranks; r++) {
            struct mpcr_abandoned_rank *k = &a->r[r];
            struct pollfd p = {k->writer_end, POLLIN, 0};
            if (k->writer_end >= 0 && poll(&p, 1, 0) > 0) { /* the copy has ended */
                close(k->writer_end);
                k->writer_end = -1;
                k->image = 0;
            }
            if (rank_pending(k)) pending++, late = late < 0 ? r : late;
        }
        if (pending && now - a->since <= timeout) continue;
        if (pending)
            fprintf(stderr, "mpcr: coordinator: gen-%lu of a failed checkpoint removed after %.0f s, "
                            "although %d rank%s (rank %d first) may still write into it\n",
                    a->gen, now - a->since, pending, pending > 1 ? "s" : "", late);
        drop(s, i);
    }
}

int mpcr_abandoned_count(const struct mpcr_abandons *s)
{
    return s->n;
}

void mpcr_abandoned_remove_all(struct mpcr_abandons *s)
{
    while (s->n)
        drop(s, s->n - 1);
}
