/* MPI_Type_create_f90_real, _complex, _integer (MPI 4.0 section 19.1.9):
 * the smallest Fortran sized type with the precision and range asked for
 * (MPI_UNDEFINED: any), as a type of its own whose envelope records (p, r).
 * MPI makes these predefined-like: the same arguments give the same
 * handle, so they are kept in a small table (in the heap: kept across a
 * restart, like every handle). */
#include "api_gen.h"
#include "dtype.h"
#include "env/errors.h"
#include "typemap.h"

#include <float.h>

/* The sized types in increasing size, with their decimal precision and
 * exponent range (C's float and double). MPICH offers no larger real for
 * these functions (its REAL16 is not IEEE quad here): neither does mpcr. */
struct f90 {
    MPI_Datatype type;
    int p, r;
};
static const struct f90 reals[] = {{MPI_REAL4, FLT_DIG, FLT_MAX_10_EXP},
                                   {MPI_REAL8, DBL_DIG, DBL_MAX_10_EXP}};
static const struct f90 complexes[] = {{MPI_COMPLEX8, FLT_DIG, FLT_MAX_10_EXP},
                                       {MPI_COMPLEX16, DBL_DIG, DBL_MAX_10_EXP}};
static const struct f90 integers[] = {
    {MPI_INTEGER1, 0, 2}, {MPI_INTEGER2, 0, 4}, {MPI_INTEGER4, 0, 9}, {MPI_INTEGER8, 0, 18}};

#define CACHE 64
static struct {
    enum mpcr_combiner combiner;
    int p, r;
    MPI_Datatype handle;
} made[CACHE];
static int nmade;

static int create(enum mpcr_combiner combiner, const struct f90 *v, int n, int p, int r,
                  MPI_Datatype *newtype)
{
    if (!newtype) return MPI_ERR_ARG;
    for (int i = 0; i < nmade; i++)
        if (made[i].combiner == combiner && made[i].p == p && made[i].r == r) {
            *newtype = made[i].handle;
            return MPI_SUCCESS;
        }
    const struct f90 *pick = NULL;
    for (int i = 0; i < n && !pick; i++)
        if ((p == MPI_UNDEFINED || p <= v[i].p) && (r == MPI_UNDEFINED || r <= v[i].r))
            pick = &v[i];
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return MPI_ERR_ARG;
    if (!pick) return MPI_ERR_OTHER; /* none precise enough: MPICH's class */
    if (nmade == CACHE) mpcr_unsupported_feature("more than 64 distinct MPI_Type_create_f90 types");
    struct mpcr_type *old = (struct mpcr_type *)mpcr_type_get(pick->type), *t;
    int err = mpcr_type_dup(old, &t);
    if (!err) {
        int64_t pr[2] = {p, r};
        err = combiner == MPCR_COMBINER_F90_INTEGER
                  ? mpcr_type_set_envelope(t, combiner, 1, pr + 1, 0, NULL, 0, NULL)
                  : mpcr_type_set_envelope(t, combiner, 2, pr, 0, NULL, 0, NULL);
        if (err) mpcr_type_unref(t);
    }
    if (err) return mpcr_type_errclass(err);
    MPI_Datatype h;
    if ((err = mpcr_dtype_new(t, &h))) return err;
    made[nmade].combiner = combiner, made[nmade].p = p, made[nmade].r = r;
    made[nmade++].handle = h;
    *newtype = h;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return create(MPCR_COMBINER_F90_REAL, reals, 2, p, r, newtype);
}

int mpcr_impl_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return create(MPCR_COMBINER_F90_COMPLEX, complexes, 2, p, r, newtype);
}

int mpcr_impl_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return create(MPCR_COMBINER_F90_INTEGER, integers, 4, MPI_UNDEFINED, r, newtype);
}
