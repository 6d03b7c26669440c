/* A subarray as typemap constructors (MPI 4.0 section 5.1.3): a contiguous
 * row of the fastest dimension, an hvector for each slower one, the start
 * as a displacement, the whole array's extent by a resize. The envelope is
 * the caller's to record (MPI_Type_create_subarray's own arguments). */
#include "typemap.h"

#include <errno.h>
#include <stddef.h>

/* Replaces *t by what a constructor made from it (err: its status). */
static int step(int err, struct mpcr_type **t, struct mpcr_type *const *made)
{
    mpcr_type_unref(*t);
    *t = err ? NULL : *made;
    return err;
}

int mpcr_type_subarray(int ndims, const int64_t sizes[], const int64_t subsizes[],
                       const int64_t starts[], bool c_order, struct mpcr_type *old,
                       struct mpcr_type **out)
{
    if (ndims <= 0 || !old) return -EINVAL;
    for (int i = 0; i < ndims; i++)
        if (sizes[i] <= 0 || subsizes[i] <= 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return -EINVAL;
    struct mpcr_type *t = old, *n;
    mpcr_type_ref(t);
    int64_t stride = old->extent, disp = 0;
    int err = 0;
    for (int k = 0; !err && k < ndims; k++) { /* k-th fastest dimension */
        int d = c_order ? ndims - 1 - k : k;
        if (k == 0)
            err = step(mpcr_type_contiguous(subsizes[d], t, &n), &t, &n);
        else
            err = step(mpcr_type_hvector(subsizes[d], 1, stride, t, &n), &t, &n);
        int64_t shift;
        if (!err && (__builtin_mul_overflow(starts[d], stride, &shift) ||
                     __builtin_add_overflow(disp, shift, &disp) ||
                     __builtin_mul_overflow(stride, sizes[d], &stride)))
            err = -EOVERFLOW;
    }
    if (!err) err = step(mpcr_type_hindexed_block(1, 1, &disp, t, &n), &t, &n);
    if (!err) err = step(mpcr_type_resized(t, 0, stride, &n), &t, &n);
    if (err && t) mpcr_type_unref(t);
    if (!err) *out = t;
    return err;
}
