/* See record.h. The saved form is record_form.c's. */
#include "record.h"
#include "record_form.h"
#include "proxy.h"
#include "resource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct outcome *live;
static uint32_t nlive, caplive;
static uint64_t clock; /* the largest key this rank has seen */

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

uint64_t record_key_share(void)
{
    static uint64_t last; /* the last share given: two agreements may overlap (idup.c) */
    uint64_t size = (uint64_t)proxy.size, base = clock > last ? clock : last;
    last = (base / size + 1) * size + (uint64_t)proxy.rank;
    return last;
}

int record_made(uint32_t id, MPI_Comm comm, MPI_Comm coll, uint64_t key)
{
    struct outcome o = {id, 0, key, NULL};
    int rc = members_of(comm, &o.members, &o.nmembers);
    if (rc == MPI_SUCCESS) rc = add(o);
    if (rc == MPI_SUCCESS && (rc = map_comm_put(id, comm, coll)) != MPI_SUCCESS)
        free(live[--nlive].members);
    if (rc != MPI_SUCCESS) {
        free(o.members);
        MPI_Comm_free(&coll);
        MPI_Comm_free(&comm);
        return rc;
    }
    if (key > clock) clock = key;
    return MPI_SUCCESS;
}

static const struct outcome *find_live(uint32_t id)
{
    for (uint32_t i = 0; i < nlive; i++)
        if (live[i].id == id) return &live[i];
    return NULL;
}

uint64_t record_key(uint32_t id)
{
    const struct outcome *o = find_live(id);
    return o ? o->key : 0;
}

const int32_t *record_members(uint32_t id, uint32_t *n)
{
    const struct outcome *o = find_live(id);
    if (!o) return NULL;
    *n = o->nmembers;
    return o->members;
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

/* ---- the saved form (record_form.c) ---- */

static int save(struct section *out, char *err, size_t cap)
{
    (void)err, (void)cap; /* only memory can fail: the caller's reason */
    size_t len;
    void *buf = record_encode(live, nlive, clock, &len);
    int rc = buf ? section_put(out, buf, len) : -1;
    free(buf);
    return rc;
}

/* Every rank's saved record, decoded: (*theirs)[r], (*counts)[r]. */
static int gather_records(const void *buf, size_t len, struct outcome ***theirs, uint32_t **counts,
                          char *err, size_t cap)
{
    int size = proxy.size, mylen = (int)len, rc;
    int *lens = calloc((size_t)size, sizeof *lens), *offs = calloc((size_t)size, sizeof *offs);
    *theirs = calloc((size_t)size, sizeof **theirs);
    *counts = calloc((size_t)size, sizeof **counts);
    char *all = NULL;
    if (!lens || !offs || !*theirs || !*counts || len > 1u << 30) goto oom;
    rc = MPI_Allgather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) goto mpi;
    size_t total = 0;
    for (int r = 0; r < size; r++) {
        if (lens[r] < 0 || total + (size_t)lens[r] > INT32_MAX) goto oom;
        offs[r] = (int)total, total += (size_t)lens[r];
    }
    if (!(all = malloc(total ? total : 1))) goto oom;
    rc = MPI_Allgatherv(buf, mylen, MPI_BYTE, all, lens, offs, MPI_BYTE, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) goto mpi;
    for (int r = 0; r < size; r++) {
        uint64_t clk;
        char why[160];
        if (r != proxy.rank && record_decode(all + offs[r], (size_t)lens[r], r, size, &(*theirs)[r],
                                             &(*counts)[r], &clk, why, sizeof why)) {
            snprintf(err, cap, "rank %d's record: %s", r, why);
            goto fail;
        }
    }
    free(all), free(lens), free(offs);
    return 0;
mpi:
    snprintf(err, cap, "exchanging the records of communicators failed (MPI error %d)", rc);
    goto fail;
oom:
    snprintf(err, cap, "out of memory exchanging the records of communicators");
fail:
    free(all), free(lens), free(offs);
    return -1;
}

static void free_outcomes(struct outcome *o, uint32_t n)
{
    for (uint32_t k = 0; o && k < n; k++)
        free(o[k].members);
    free(o);
}

/* A communicator this rank had freed: it takes part in what its holders do
 * with it (map_comm_add's collective duplicate), then lets it go. */
static int made_and_freed(MPI_Comm comm)
{
    MPI_Comm coll;
    int rc = MPI_Comm_dup(comm, &coll);
    if (rc == MPI_SUCCESS) MPI_Comm_free(&coll);
    MPI_Comm_free(&comm);
    return rc;
}

/* Re-creates, in key order, every communicator this rank is a member of in
 * any rank's record (record_merge): the ones it still holds go to the id
 * map, the ones it had freed before the cut are freed again once made. */
static int rebuild(const void *buf, size_t len, char *err, size_t cap)
{
    struct outcome *mine = NULL, *o = NULL, **theirs = NULL;
    uint32_t nmine = 0, n = 0, *counts = NULL;
    uint64_t clk;
    int failed = record_decode(buf, len, proxy.rank, proxy.size, &mine, &nmine, &clk, err, cap) ||
                 gather_records(buf, len, &theirs, &counts, err, cap);
    if (!failed && record_merge(mine, nmine, (const struct outcome *const *)theirs, counts,
                                proxy.size, proxy.rank, &o, &n))
        failed = snprintf(err, cap, "out of memory merging the records of communicators");
    for (int r = 0; theirs && r < proxy.size; r++)
        free_outcomes(theirs[r], counts[r]);
    free(theirs), free(counts), free_outcomes(mine, nmine);
    if (failed) return -1;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int rc = MPI_SUCCESS;
    uint32_t i = 0;
    for (; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Group g;
        MPI_Comm comm = MPI_COMM_NULL;
        rc = MPI_Group_incl(world, (int)o[i].nmembers, o[i].members, &g);
        if (rc != MPI_SUCCESS) break;
        /* One global order (keys; equal keys only for disjoint members):
         * one tag serves every creation. */
        rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &comm);
        MPI_Group_free(&g);
        if (rc == MPI_SUCCESS && !o[i].id) rc = made_and_freed(comm);
        else if (rc == MPI_SUCCESS) rc = map_comm_add(o[i].id, comm);
        if (rc == MPI_SUCCESS && o[i].id) rc = add(o[i]), o[i].members = NULL;
    }
    MPI_Group_free(&world);
    free_outcomes(o, n);
    clock = clk;
    if (rc != MPI_SUCCESS)
        return snprintf(err, cap, "re-creating communicator %u of %u failed (MPI error %d)", i, n,
                        rc),
               -1;
    return 0;
}

const struct proxy_resource resource_comms = {
    .name = "comms",
    .version = 1,
    .save = save,
    .load = rebuild, /* collective over the job: every rank's proxy loads it */
};
