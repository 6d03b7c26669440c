/* Groups: an ordered set of processes, kept as their ranks in
 * MPI_COMM_WORLD. A group lives entirely in the program's memory (no proxy
 * call makes or frees one), so it is in every image and means the same
 * after a restart, whatever MPI or placement the job has then. Results
 * that are empty are MPI_GROUP_EMPTY, as MPICH answers them. */
#include "api_gen.h"
#include "comm.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

static struct mpcr_group empty = {.size = 0};

struct mpcr_group *mpcr_group_get(MPI_Group group)
{
    if (group == MPI_GROUP_EMPTY) return &empty;
    return mpcr_obj_get(MPCR_KIND_GROUP, (uint32_t)group);
}

int mpcr_group_make(const int32_t *ranks, int n, MPI_Group *handle)
{
    if (n == 0) {
        *handle = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct mpcr_group *g =
        mpcr_obj_new(MPCR_KIND_GROUP, (uint32_t)(sizeof *g + (size_t)n * sizeof(int32_t)), NULL);
    if (!g) return MPI_ERR_NO_MEM;
    g->size = n;
    memcpy(g->ranks, ranks, (size_t)n * sizeof(int32_t));
    *handle = (MPI_Group)mpcr_obj_handle(g);
    return MPI_SUCCESS;
}

int mpcr_group_rank_of(const struct mpcr_group *g, int32_t w)
{
    for (int i = 0; i < g->size; i++)
        if (g->ranks[i] == w) return i;
    return MPI_UNDEFINED;
}

int mpcr_impl_Comm_group(struct mpcr_comm *c, MPI_Group *group)
{
    int32_t *ranks = malloc((size_t)c->size * sizeof *ranks);
    if (!ranks) return MPI_ERR_NO_MEM;
    for (int r = 0; r < c->size; r++)
        ranks[r] = mpcr_comm_world_rank(c, r);
    int err = mpcr_group_make(ranks, c->size, group);
    free(ranks);
    return err;
}

int mpcr_impl_Group_size(struct mpcr_group *g, int *size)
{
    if (!size) return MPI_ERR_ARG;
    *size = g->size;
    return MPI_SUCCESS;
}

int mpcr_impl_Group_rank(struct mpcr_group *g, int *rank)
{
    if (!rank) return MPI_ERR_ARG;
    *rank = mpcr_group_rank_of(g, mpcr.rank);
    return MPI_SUCCESS;
}

int mpcr_impl_Group_free(MPI_Group *group, struct mpcr_group *g)
{
    if (g != &empty) mpcr_obj_drop_handle(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Group_translate_ranks(struct mpcr_group *g1, int n, const int ranks1[],
                                    struct mpcr_group *g2, int ranks2[])
{
    if (n < 0) return MPI_ERR_ARG;
    if (n > 0 && (!ranks1 || !ranks2)) return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return MPI_ERR_RANK;
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
                                               : mpcr_group_rank_of(g2, g1->ranks[ranks1[i]]);
    return MPI_SUCCESS;
}

/* Whether both hold the same processes, whatever their order. */
static int same_set(const struct mpcr_group *a, const struct mpcr_group *b)
{
    if (a->size != b->size) return 0;
    for (int i = 0; i < a->size; i++)
        if (mpcr_group_rank_of(b, a->ranks[i]) == MPI_UNDEFINED) return 0;
    return 1;
}

int mpcr_impl_Group_compare(struct mpcr_group *g1, struct mpcr_group *g2, int *result)
{
    if (!result) return MPI_ERR_ARG;
    if (g1->size == g2->size && !memcmp(g1->ranks, g2->ranks, (size_t)g1->size * sizeof(int32_t)))
        *result = MPI_IDENT;
    else
        *result = same_set(g1, g2) ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

/* The members of a (in a's order) that are in b (keep 1) or not (keep 0),
 * then, for a union, b's members not in a. */
static int combine(const struct mpcr_group *a, const struct mpcr_group *b, int keep, int add_b,
                   MPI_Group *out)
{
    if (!out) return MPI_ERR_ARG;
    int32_t *ranks = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof *ranks);
    if (!ranks) return MPI_ERR_NO_MEM;
    int n = 0;
    for (int i = 0; i < a->size; i++)
        if ((mpcr_group_rank_of(b, a->ranks[i]) != MPI_UNDEFINED) == keep || add_b)
            ranks[n++] = a->ranks[i];
    if (add_b)
        for (int i = 0; i < b->size; i++)
            if (mpcr_group_rank_of(a, b->ranks[i]) == MPI_UNDEFINED) ranks[n++] = b->ranks[i];
    int err = mpcr_group_make(ranks, n, out);
    free(ranks);
    return err;
}

int mpcr_impl_Group_union(struct mpcr_group *g1, struct mpcr_group *g2, MPI_Group *newgroup)
{
    return combine(g1, g2, 1, 1, newgroup);
}

int mpcr_impl_Group_intersection(struct mpcr_group *g1, struct mpcr_group *g2, MPI_Group *newgroup)
{
    return combine(g1, g2, 1, 0, newgroup);
}

int mpcr_impl_Group_difference(struct mpcr_group *g1, struct mpcr_group *g2, MPI_Group *newgroup)
{
    return combine(g1, g2, 0, 0, newgroup);
}

/* Marks the ranks of g listed in ranks[0..n): MPI_ERR_RANK for one out of
 * range or listed twice. `picked` has g->size bytes, zeroed. */
static int pick(const struct mpcr_group *g, int n, const int ranks[], uint8_t *picked)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || picked[ranks[i]]) return MPI_ERR_RANK;
        picked[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

int mpcr_impl_Group_incl(struct mpcr_group *g, int n, const int ranks[], MPI_Group *newgroup)
{
    if (n < 0 || n > g->size || (n > 0 && !ranks)) return MPI_ERR_ARG;
    uint8_t *picked = calloc((size_t)g->size + 1, 1);
    int32_t *out = malloc(((size_t)n + 1) * sizeof *out);
    int err = picked && out ? pick(g, n, ranks, picked) : MPI_ERR_NO_MEM;
    if (!err) {
        for (int i = 0; i < n; i++)
            out[i] = g->ranks[ranks[i]];
        err = mpcr_group_make(out, n, newgroup);
    }
    free(picked), free(out);
    return err;
}

/* The members of g whose `picked` byte is `which`, in g's order. */
static int select_picked(const struct mpcr_group *g, const uint8_t *picked, int which,
                         MPI_Group *newgroup)
{
    int32_t *out = malloc(((size_t)g->size + 1) * sizeof *out);
    if (!out) return MPI_ERR_NO_MEM;
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if (picked[i] == which) out[n++] = g->ranks[i];
    int err = mpcr_group_make(out, n, newgroup);
    free(out);
    return err;
}

int mpcr_impl_Group_excl(struct mpcr_group *g, int n, const int ranks[], MPI_Group *newgroup)
{
    if (n < 0 || n > g->size || (n > 0 && !ranks)) return MPI_ERR_ARG;
    uint8_t *picked = calloc((size_t)g->size + 1, 1);
    int err = picked ? pick(g, n, ranks, picked) : MPI_ERR_NO_MEM;
    if (!err) err = select_picked(g, picked, 0, newgroup);
    free(picked);
    return err;
}

/* The ranks that ranges (first, last, stride) name, in order: MPI_ERR_ARG
 * for a zero stride, MPI_ERR_RANK for a rank out of range or named twice.
 * *out is malloc'd. */
static int expand_ranges(const struct mpcr_group *g, int n, int ranges[][3], int **out, int *count)
{
    if (n < 0 || (n > 0 && !ranges)) return MPI_ERR_ARG;
    uint8_t *seen = calloc((size_t)g->size + 1, 1);
    int *ranks = malloc(((size_t)g->size + 1) * sizeof *ranks);
    if (!seen || !ranks) {
        free(seen), free(ranks);
        return MPI_ERR_NO_MEM;
    }
    int k = 0, err = MPI_SUCCESS;
    for (int i = 0; i < n && !err; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0) {
            err = MPI_ERR_ARG;
            break;
        }
        if (first < 0 || first >= g->size || last < 0 || last >= g->size) {
            err = MPI_ERR_RANK;
            break;
        }
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (seen[r]) {
                err = MPI_ERR_RANK;
                break;
            }
            seen[r] = 1;
            ranks[k++] = (int)r;
        }
    }
    free(seen);
    if (err) {
        free(ranks);
        return err;
    }
    *out = ranks, *count = k;
    return MPI_SUCCESS;
}

/* The ranks the ranges name, included or excluded. */
static int range_pick(struct mpcr_group *g, int n, int ranges[][3], int incl, MPI_Group *newgroup)
{
    int *ranks, k;
    int err = expand_ranges(g, n, ranges, &ranks, &k);
    if (err) return err;
    err = incl ? mpcr_impl_Group_incl(g, k, ranks, newgroup)
               : mpcr_impl_Group_excl(g, k, ranks, newgroup);
    free(ranks);
    return err;
}

int mpcr_impl_Group_range_incl(struct mpcr_group *g, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_pick(g, n, ranges, 1, newgroup);
}

int mpcr_impl_Group_range_excl(struct mpcr_group *g, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_pick(g, n, ranges, 0, newgroup);
}
