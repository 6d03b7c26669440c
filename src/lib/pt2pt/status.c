/* MPI_Status in MPICH's layout: the byte count split over count_lo and
 * count_hi_and_cancelled (whose lowest bit is the cancelled flag).
 * MPI_ERROR is left alone: single-completion calls must not set it (MPI 4.0
 * section 3.2.5); calls completing several requests set it themselves.
 * Also the status functions of MPI 4.0 sections 3.2.5, 3.8.4 and 13.2. */
#include "api_gen.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "p2p.h"
#include <stddef.h>
#include <string.h>

void mpcr_status_set(MPI_Status *st, int source, int tag, uint64_t bytes)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->count_lo = (int)(uint32_t)bytes;
    st->count_hi_and_cancelled = (int)(uint32_t)((bytes >> 32) << 1);
}

/* MPI 4.0 3.7.3's empty status: MPI_ANY_SOURCE, MPI_ANY_TAG, no bytes, not
 * cancelled, MPI_ERROR MPI_SUCCESS (as MPICH sets it). */
void mpcr_status_set_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    mpcr_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    st->MPI_ERROR = MPI_SUCCESS;
}

/* The byte count, keeping the cancelled flag (MPI_Status_set_elements). */
static void set_bytes(MPI_Status *st, uint64_t bytes)
{
    st->count_lo = (int)(uint32_t)bytes;
    st->count_hi_and_cancelled =
        (int)((uint32_t)((bytes >> 32) << 1) | ((uint32_t)st->count_hi_and_cancelled & 1));
}

/* ---- basic elements (MPI_Get_elements) ---- */

/* The parts of one element of t in the order its data is packed: n
 * groups, group i being copies[i] elements of types[i]. A basic type has
 * none. Returns -1 for a type whose parts are not known here. */
static int64_t parts(const struct mpcr_type *t, struct mpcr_type *const **types,
                     const int64_t **copies, int64_t *one)
{
    *types = t->types;
    *copies = one;
    switch (t->combiner) {
    case MPCR_COMBINER_NAMED:
    case MPCR_COMBINER_F90_REAL:
    case MPCR_COMBINER_F90_COMPLEX:
    case MPCR_COMBINER_F90_INTEGER:
        return 0;
    case MPCR_COMBINER_DUP:
    case MPCR_COMBINER_RESIZED:
        *one = 1;
        return 1;
    case MPCR_COMBINER_CONTIGUOUS:
        *one = t->ints[0];
        return 1;
    case MPCR_COMBINER_VECTOR:
    case MPCR_COMBINER_HVECTOR:
    case MPCR_COMBINER_INDEXED_BLOCK:
    case MPCR_COMBINER_HINDEXED_BLOCK:
        *one = t->ints[0] * t->ints[1];
        return 1;
    case MPCR_COMBINER_INDEXED:
    case MPCR_COMBINER_HINDEXED:
        *one = 0;
        for (int64_t i = 0; i < t->ints[0]; i++)
            *one += t->ints[1 + i];
        return 1;
    case MPCR_COMBINER_STRUCT: /* blocks in the order given: types[i], ints[1 + i] copies */
        *copies = t->ints + 1;
        return t->ints[0];
    case MPCR_COMBINER_SUBARRAY: { /* ndims, sizes, subsizes, starts, order */
        int64_t n = t->ints[0];
        *one = 1;
        for (int64_t i = 0; i < n; i++)
            *one *= t->ints[1 + n + i];
        return 1;
    }
    case MPCR_COMBINER_DARRAY: /* only whole copies of its one old type */
        *one = t->types[0]->size ? t->size / t->types[0]->size : 0;
        return 1;
    default:
        return -1;
    }
}

/* Basic elements wholly in the first `bytes` bytes of the packed form of
 * elements of t (bytes may cover several); *partial is set when t is basic
 * and they end inside an element (MPICH counts what a derived type's
 * partial element holds, but answers MPI_UNDEFINED for a basic one). */
static int64_t elements(const struct mpcr_type *t, uint64_t bytes, int *partial)
{
    if (t->size <= 0) return 0;
    struct mpcr_type *const *types;
    const int64_t *copies;
    int64_t one, n = parts(t, &types, &copies, &one);
    if (n < 0) mpcr_unsupported_feature("MPI_Get_elements with a datatype of this combiner");
    uint64_t whole = bytes / (uint64_t)t->size, rest = bytes % (uint64_t)t->size;
    int64_t first = n == 0 ? mpcr_type_pair_first(t) : 0;
    if (first) /* a pair: two basic elements; a part one counts what it holds, as a struct's */
        return 2 * (int64_t)whole + (rest >= (uint64_t)first);
    if (n == 0) {
        *partial |= rest != 0;
        return (int64_t)whole;
    }
    int64_t per = 0, got = 0;
    for (int64_t i = 0; i < n; i++) {
        int ignore = 0;
        uint64_t group = (uint64_t)(types[i]->size * copies[i]);
        int64_t e = elements(types[i], group, &ignore);
        per += e;
        if (rest >= group) {
            got += e, rest -= group;
        } else if (rest) {
            got += elements(types[i], rest, &ignore);
            rest = 0;
        }
    }
    return (int64_t)whole * per + got;
}

int mpcr_impl_Get_elements(const MPI_Status *status, const struct mpcr_type *t, MPI_Count *count)
{
    int partial = 0;
    int64_t n = elements(t, mpcr_status_bytes(status), &partial);
    *count = partial ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int mpcr_impl_Get_elements_x(const MPI_Status *status, const struct mpcr_type *t, MPI_Count *count)
{
    if (!count) return MPI_ERR_ARG;
    return mpcr_impl_Get_elements(status, t, count);
}

/* As MPICH: the byte count becomes count elements of the type's size, so
 * that MPI_Get_elements and MPI_Get_count answer from it. */
int mpcr_impl_Status_set_elements(MPI_Status *status, const struct mpcr_type *t, MPI_Count count)
{
    uint64_t bytes;
    if (status == MPI_STATUS_IGNORE || count < 0) return MPI_ERR_ARG;
    if (__builtin_mul_overflow((uint64_t)count, (uint64_t)t->size, &bytes)) return MPI_ERR_COUNT;
    set_bytes(status, bytes);
    return MPI_SUCCESS;
}

int mpcr_impl_Status_set_elements_x(MPI_Status *status, const struct mpcr_type *t, MPI_Count count)
{
    return mpcr_impl_Status_set_elements(status, t, count);
}

int mpcr_impl_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (status == MPI_STATUS_IGNORE) return MPI_ERR_ARG;
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return MPI_SUCCESS;
}

int mpcr_impl_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == MPI_STATUS_IGNORE || !flag) return MPI_ERR_ARG;
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}

/* ---- Fortran statuses (MPI 4.0 section 19.3.5) ----
 * MPICH's Fortran status is its C status word for word (MPI_F_STATUS_SIZE
 * INTEGERs: count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG,
 * MPI_ERROR, with MPI_F_SOURCE/TAG/ERROR indexing the last three), which
 * is what MPICH's own libmpichfort relies on when it hands a Fortran
 * status to the C functions unconverted. The conversions copy. The
 * IGNORE sentinels are no statuses: converting one is an error, as in
 * MPICH. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_Status is not MPICH's Fortran status layout");

int mpcr_impl_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (c_status == MPI_STATUS_IGNORE || !c_status || !f_status) return MPI_ERR_ARG;
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

int mpcr_impl_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE || !f_status ||
        c_status == MPI_STATUS_IGNORE || !c_status)
        return MPI_ERR_ARG;
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
