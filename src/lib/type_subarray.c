/* MPI_Type_create_subarray (MPI 4.0 section 5.1.3): built from typemap's
 * constructors (a contiguous row, hvectors for the outer dimensions, the
 * start as a displacement, the whole array's extent by a resize), then
 * made to report its own envelope. */
#include "api_gen.h"
#include "dtype.h"

#include <stdlib.h>

/* Replaces *t with what a constructor made from it (err: its status). */
static int step(int err, struct mpcr_type **t, struct mpcr_type *const *made)
{
    mpcr_type_unref(*t);
    *t = err ? NULL : *made;
    return err;
}

/* The type of a validated subarray; dims given fastest first. */
static int build(int ndims, const int64_t *size, const int64_t *sub, const int64_t *start,
                 struct mpcr_type *old, struct mpcr_type **out)
{
    struct mpcr_type *t = old, *n;
    mpcr_type_ref(t);
    int64_t stride = old->extent, disp = 0;
    int err = 0;
    for (int k = 0; !err && k < ndims; k++) {
        if (k == 0)
            err = step(mpcr_type_contiguous(sub[0], t, &n), &t, &n);
        else
            err = step(mpcr_type_hvector(sub[k], 1, stride, t, &n), &t, &n);
        disp += start[k] * stride;
        stride *= size[k];
    }
    if (!err) err = step(mpcr_type_hindexed_block(1, 1, &disp, t, &n), &t, &n);
    if (!err) err = step(mpcr_type_resized(t, 0, stride, &n), &t, &n);
    if (!err) *out = t;
    return err;
}

int mpcr_impl_Type_create_subarray(int ndims, struct mpcr_counts sizes, struct mpcr_counts subsizes,
                                   struct mpcr_counts starts, int order,
                                   const struct mpcr_type *oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0 || (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)) return MPI_ERR_ARG;
    /* The envelope's integers: ndims, sizes, subsizes, starts, order; then
     * the same dimensions fastest first for the construction. */
    int64_t *ints = malloc((size_t)(3 * ndims + 2) * sizeof *ints);
    int64_t *fast = malloc((size_t)(3 * ndims) * sizeof *fast);
    if (!ints || !fast) {
        free(ints);
        free(fast);
        return MPI_ERR_NO_MEM;
    }
    int err = MPI_SUCCESS;
    ints[0] = ndims, ints[3 * ndims + 1] = order;
    for (int i = 0; i < ndims; i++) {
        int64_t n = mpcr_count_at(sizes, i), s = mpcr_count_at(subsizes, i),
                b = mpcr_count_at(starts, i);
        if (n <= 0 || s <= 0 || s > n || b < 0 || b > n - s) err = MPI_ERR_ARG;
        ints[1 + i] = n, ints[1 + ndims + i] = s, ints[1 + 2 * ndims + i] = b;
        int k = order == MPI_ORDER_C ? ndims - 1 - i : i;
        fast[k] = n, fast[ndims + k] = s, fast[2 * ndims + k] = b;
    }
    struct mpcr_type *old = (struct mpcr_type *)oldtype, *t = NULL;
    if (!err) {
        int e = build(ndims, fast, fast + ndims, fast + 2 * ndims, old, &t);
        if (!e)
            e = mpcr_type_set_envelope(t, MPCR_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1,
                                       &old);
        if (e && t) mpcr_type_unref(t);
        err = e ? mpcr_type_errclass(e) : mpcr_dtype_new(t, newtype);
    }
    free(ints);
    free(fast);
    return err;
}
