/* MPI_Type_create_darray (MPI 4.0 section 5.1.4): the elements of a
 * block, cyclic or undistributed global array that one process of a
 * row-major process grid owns. Built dimension by dimension, fastest
 * first: the elements this process owns along dimension k, as blocks of
 * the type made for the faster dimensions, resized to a whole row of
 * dimension k; then the process's first element as a displacement and the
 * whole array's extent, as MPICH and ROMIO build it. */
#include "api/api.h"
#include "api_gen.h"
#include "dtype.h"
#include "typemap.h"

#include <stdlib.h>

/* One dimension of the array as this process sees it. */
struct dim {
    int64_t gsize;
    int distrib, darg, psize, coord;
};

/* The blocks this process owns along one dimension, in elements: n
 * blocks, *starts and *lens. The first block starts at 0 (the process's
 * first element, *first, is applied by the caller). MPI_ERR_ARG when the
 * distribution cannot cover the dimension. */
static int owned(const struct dim *d, int64_t **starts, int64_t **lens, int64_t *n, int64_t *first)
{
    int64_t g = d->gsize, p = d->psize, c = d->coord, blk;
    *n = 0;
    if (d->distrib == MPI_DISTRIBUTE_NONE) {
        if (p != 1) return MPI_ERR_ARG;
        blk = g, p = 1, c = 0;
    } else if (d->distrib == MPI_DISTRIBUTE_BLOCK) {
        blk = d->darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : d->darg;
        if (blk <= 0 || blk * p < g) return MPI_ERR_ARG;
    } else if (d->distrib == MPI_DISTRIBUTE_CYCLIC) {
        blk = d->darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : d->darg;
        if (blk <= 0) return MPI_ERR_ARG;
    } else {
        return MPI_ERR_ARG;
    }
    /* Blocks of blk elements dealt round-robin (BLOCK: one round at most). */
    int64_t max = g / (blk * p) + 2;
    *starts = malloc((size_t)max * sizeof **starts);
    *lens = malloc((size_t)max * sizeof **lens);
    if (!*starts || !*lens) return MPI_ERR_NO_MEM;
    *first = c * blk;
    for (int64_t at = c * blk; at < g; at += blk * p) {
        (*starts)[*n] = at - *first;
        (*lens)[*n] = g - at < blk ? g - at : blk;
        ++*n;
    }
    return MPI_SUCCESS;
}

/* Replaces *t by what a constructor made from it (e: its status). */
static int step(int e, struct mpcr_type **t, struct mpcr_type *const *made)
{
    mpcr_type_unref(*t);
    *t = e ? NULL : *made;
    return e ? mpcr_type_errclass(e) : MPI_SUCCESS;
}

static int build(int ndims, const struct dim *dims, struct mpcr_type *old, struct mpcr_type **out)
{
    struct mpcr_type *t = old, *n;
    mpcr_type_ref(t);
    int64_t row = old->extent, disp = 0;
    int err = MPI_SUCCESS;
    for (int k = 0; !err && k < ndims; k++) {
        int64_t *starts = NULL, *lens = NULL, nb = 0, first = 0;
        err = owned(&dims[k], &starts, &lens, &nb, &first);
        for (int64_t i = 0; !err && i < nb; i++)
            starts[i] *= row;
        if (!err) err = step(mpcr_type_hindexed(nb, lens, starts, t, &n), &t, &n);
        if (!err) err = step(mpcr_type_resized(t, 0, dims[k].gsize * row, &n), &t, &n);
        disp += first * row;
        row *= dims[k].gsize;
        free(starts);
        free(lens);
    }
    if (!err) err = step(mpcr_type_hindexed_block(1, 1, &disp, t, &n), &t, &n);
    if (!err) err = step(mpcr_type_resized(t, 0, row, &n), &t, &n);
    if (err && t) mpcr_type_unref(t);
    if (!err) *out = t;
    return err;
}

int mpcr_impl_Type_create_darray(int size, int rank, int ndims, struct mpcr_counts gsizes,
                                 const int distribs[], const int dargs[], const int psizes[],
                                 int order, const struct mpcr_type *oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0 || size <= 0 || rank < 0 || rank >= size ||
        (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
        return MPI_ERR_ARG;
    struct dim *dims = malloc((size_t)ndims * sizeof *dims);
    int64_t *ints = malloc((size_t)(4 * ndims + 4) * sizeof *ints);
    int err = dims && ints ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* The process grid is row-major whatever the array's order. */
    int64_t procs = 1, left = rank;
    for (int i = 0; !err && i < ndims; i++)
        if (psizes[i] <= 0 || mpcr_count_at(gsizes, i) <= 0)
            err = MPI_ERR_ARG;
        else
            procs *= psizes[i];
    if (!err && procs != size) err = MPI_ERR_ARG;
    for (int i = 0; !err && i < ndims; i++) {
        procs /= psizes[i];
        int k = order == MPI_ORDER_C ? ndims - 1 - i : i; /* fastest first */
        dims[k] = (struct dim){mpcr_count_at(gsizes, i), distribs[i], dargs[i], psizes[i],
                               (int)(left / procs)};
        left %= procs;
        ints[3 + i] = dims[k].gsize, ints[3 + ndims + i] = distribs[i];
        ints[3 + 2 * ndims + i] = dargs[i], ints[3 + 3 * ndims + i] = psizes[i];
    }
    struct mpcr_type *old = (struct mpcr_type *)oldtype, *t = NULL;
    if (!err) err = build(ndims, dims, old, &t);
    if (!err) {
        ints[0] = size, ints[1] = rank, ints[2] = ndims, ints[4 * ndims + 3] = order;
        int e =
            mpcr_type_set_envelope(t, MPCR_COMBINER_DARRAY, 4 * ndims + 4, ints, 0, NULL, 1, &old);
        if (e) mpcr_type_unref(t);
        err = e ? mpcr_type_errclass(e) : mpcr_dtype_new(t, newtype);
    }
    free(dims);
    free(ints);
    return err;
}
