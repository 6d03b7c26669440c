/* See record.h. Saved form, little-endian:
 *   u64 clock; u32 count, u32 0;
 *   count x { u32 id, u32 nmembers, u64 key, nmembers x i32 world rank,
 *             padded to 8 bytes } */
#include "record.h"
#include "proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct outcome {
    uint32_t id, nmembers;
    uint64_t key;
    int32_t *members; /* world ranks, in the order of their ranks in the communicator */
};

static struct outcome *live;
static uint32_t nlive, caplive;
static uint64_t clock; /* the largest key this rank has seen */

uint32_t record_count(void)
{
    return nlive;
}

static int add(struct outcome o)
{
    if (nlive == caplive) {
        uint32_t cap = caplive ? 2 * caplive : 16;
        struct outcome *t = realloc(live, cap * sizeof *t);
        if (!t) return MPI_ERR_NO_MEM;
        live = t, caplive = cap;
    }
    live[nlive++] = o;
    return MPI_SUCCESS;
}

/* The world ranks of comm's members, in comm's rank order. */
static int members_of(MPI_Comm comm, int32_t **out, uint32_t *n)
{
    MPI_Group g, wg;
    int size, rc = MPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS) return rc;
    int *in = malloc((size_t)size * sizeof *in), *ranks = malloc((size_t)size * sizeof *ranks);
    if (!in || !ranks) {
        free(in), free(ranks);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < size; i++)
        in[i] = i;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    rc = MPI_Group_translate_ranks(g, size, in, wg, ranks);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(in);
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return rc;
    }
    *out = ranks, *n = (uint32_t)size; /* int32_t and int: the same on every platform we build */
    return MPI_SUCCESS;
}

/* A communicator was made: agree on its key with its members and record
 * its outcome, then hand it to the id map. */
static int made(uint32_t id, MPI_Comm comm)
{
    unsigned long long mine = clock + 1, key = 0;
    int rc = MPI_Allreduce(&mine, &key, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    struct outcome o = {id, 0, key, NULL};
    if (rc == MPI_SUCCESS) rc = members_of(comm, &o.members, &o.nmembers);
    if (rc == MPI_SUCCESS) rc = add(o);
    if (rc != MPI_SUCCESS) {
        free(o.members);
        MPI_Comm_free(&comm);
        return rc;
    }
    clock = key;
    rc = map_comm_add(id, comm);
    if (rc != MPI_SUCCESS) free(live[--nlive].members);
    return rc;
}

int comm_dup(uint32_t parent, uint32_t new_id)
{
    MPI_Comm comm;
    int rc = MPI_Comm_dup(real_comm(parent), &comm);
    return rc == MPI_SUCCESS ? made(new_id, comm) : rc;
}

int comm_split(uint32_t parent, int32_t color, int32_t key, uint32_t new_id, int *member, int *rank,
               int *size)
{
    enum { ABI_UNDEFINED = -32766 };
    MPI_Comm comm;
    int rc = MPI_Comm_split(real_comm(parent), color == ABI_UNDEFINED ? MPI_UNDEFINED : color, key,
                            &comm);
    *member = rc == MPI_SUCCESS && comm != MPI_COMM_NULL;
    if (!*member) return rc;
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
    return made(new_id, comm);
}

int comm_free(uint32_t id)
{
    int rc = map_comm_free(id);
    if (rc != MPI_SUCCESS) return rc;
    for (uint32_t i = 0; i < nlive; i++)
        if (live[i].id == id) {
            free(live[i].members);
            live[i] = live[--nlive];
            break;
        }
    return MPI_SUCCESS;
}

/* ---- the saved form ---- */

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

void *record_save(size_t *len)
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

/* Reads the saved form into `out` (sorted by key); every count is bounded
 * by the bytes there are, every rank by the job's size. */
static int parse(const char *p, const char *end, struct outcome **out, uint32_t *n,
                 uint64_t *clk, char *err, size_t cap)
{
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
        if (s.nmembers == 0 || s.nmembers > (uint32_t)proxy.size ||
            padded(s.nmembers) > (size_t)(end - p) || s.id < 2 || (s.id & MPCR_COLL_CONTEXT))
            goto bad;
        o[i] = (struct outcome){s.id, s.nmembers, s.key, malloc((size_t)s.nmembers * 4)};
        if (!o[i].members) goto bad;
        memcpy(o[i].members, p, (size_t)s.nmembers * 4), p += padded(s.nmembers);
        int self = 0;
        for (uint32_t k = 0; k < s.nmembers; k++) {
            if (o[i].members[k] < 0 || o[i].members[k] >= proxy.size) goto bad;
            self |= o[i].members[k] == proxy.rank;
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

int record_rebuild(const void *buf, size_t len, char *err, size_t cap)
{
    struct outcome *o;
    uint32_t n = 0;
    uint64_t clk;
    if (parse(buf, (const char *)buf + len, &o, &n, &clk, err, cap)) return -1;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int rc = MPI_SUCCESS;
    uint32_t i = 0;
    for (; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Group g;
        MPI_Comm comm = MPI_COMM_NULL;
        rc = MPI_Group_incl(world, (int)o[i].nmembers, o[i].members, &g);
        if (rc != MPI_SUCCESS) break;
        /* Same key, disjoint members: one tag serves every creation. */
        rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &comm);
        MPI_Group_free(&g);
        if (rc == MPI_SUCCESS) rc = map_comm_add(o[i].id, comm);
        if (rc == MPI_SUCCESS) rc = add(o[i]), o[i].members = NULL;
    }
    MPI_Group_free(&world);
    for (uint32_t k = 0; k < n; k++)
        free(o[k].members);
    free(o);
    clock = clk;
    if (rc != MPI_SUCCESS)
        return snprintf(err, cap, "re-creating communicator %u of %u failed (MPI error %d)", i, n,
                        rc),
               -1;
    return 0;
}
