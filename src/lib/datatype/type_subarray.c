/* MPI_Type_create_subarray (MPI 4.0 section 5.1.3): the type map from
 * typemap (mpcr_type_subarray), made to report its own envelope. */
#include "api/api.h"
#include "api_gen.h"
#include "dtype.h"
#include "typemap.h"

#include <stdlib.h>

int mpcr_impl_Type_create_subarray(int ndims, struct mpcr_counts sizes, struct mpcr_counts subsizes,
                                   struct mpcr_counts starts, int order,
                                   const struct mpcr_type *oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0 || (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)) return MPI_ERR_ARG;
    /* The envelope's integers: ndims, sizes, subsizes, starts, order. */
    int64_t *ints = malloc((size_t)(3 * ndims + 2) * sizeof *ints);
    if (!ints) return MPI_ERR_NO_MEM;
    ints[0] = ndims, ints[3 * ndims + 1] = order;
    for (int i = 0; i < ndims; i++) {
        ints[1 + i] = mpcr_count_at(sizes, i);
        ints[1 + ndims + i] = mpcr_count_at(subsizes, i);
        ints[1 + 2 * ndims + i] = mpcr_count_at(starts, i);
    }
    struct mpcr_type *old = (struct mpcr_type *)oldtype, *t = NULL;
    int e = mpcr_type_subarray(ndims, ints + 1, ints + 1 + ndims, ints + 1 + 2 * ndims,
                               order == MPI_ORDER_C, old, &t);
    if (!e) {
        e = mpcr_type_set_envelope(t, MPCR_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1,
                                   &old);
        if (e) mpcr_type_unref(t);
    }
    free(ints);
    return e ? mpcr_type_errclass(e) : mpcr_dtype_new(t, newtype);
}
