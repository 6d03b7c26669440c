/* Datatype handles' life (commit, free) and queries: bounds, sizes,
 * envelopes and contents, names, MPI_Type_match_size, addresses. */
#include "api/api.h"
#include "api_gen.h"
#include "dtype.h"
#include "env/attr.h"
#include "env/errors.h"
#include "runtime/handle.h"
#include "real_type.h"
#include "typemap.h"

#include <stdio.h>
#include <string.h>

int mpcr_impl_Type_commit(MPI_Datatype *datatype)
{
    /* The compiled form is made with the type: nothing is left to do
     * (but the check of the proxy's real datatype, real_type.h). */
    if (!mpcr_type_get(*datatype)) return MPI_ERR_TYPE;
    return mpcr_real_type_checking() ? mpcr_real_type_check(*datatype) : MPI_SUCCESS;
}

int mpcr_impl_Type_free(MPI_Datatype *datatype)
{
    struct mpcr_dtype *d = mpcr_dtype_get(*datatype);
    if (!d) return MPI_ERR_TYPE; /* predefined types cannot be freed */
    int err = mpcr_attr_delete_all(MPCR_ATTR_TYPE, (uint32_t)*datatype);
    if (err) return err;
    /* Requests and derived types that use the type map hold references of
     * their own: it lives on until they are done. */
    mpcr_obj_drop_handle(d);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_get_extent(const struct mpcr_type *t, MPI_Count *lb, MPI_Count *extent)
{
    *lb = t->lb, *extent = t->extent;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_get_extent_x(const struct mpcr_type *t, MPI_Count *lb, MPI_Count *extent)
{
    return mpcr_impl_Type_get_extent(t, lb, extent);
}

int mpcr_impl_Type_get_true_extent(const struct mpcr_type *t, MPI_Count *lb, MPI_Count *extent)
{
    *lb = t->true_lb, *extent = t->true_ub - t->true_lb;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_get_true_extent_x(const struct mpcr_type *t, MPI_Count *lb, MPI_Count *extent)
{
    return mpcr_impl_Type_get_true_extent(t, lb, extent);
}

int mpcr_impl_Type_size_x(const struct mpcr_type *t, MPI_Count *size)
{
    *size = t->size;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_extent(const struct mpcr_type *t, MPI_Aint *extent)
{
    *extent = t->extent;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_lb(const struct mpcr_type *t, MPI_Aint *displacement)
{
    *displacement = t->lb;
    return MPI_SUCCESS;
}

int mpcr_impl_Type_ub(const struct mpcr_type *t, MPI_Aint *displacement)
{
    *displacement = t->ub;
    return MPI_SUCCESS;
}

/* ---- envelope and contents ---- */

static const int combiner_mpi[] = {
    [MPCR_COMBINER_NAMED] = MPI_COMBINER_NAMED,
    [MPCR_COMBINER_DUP] = MPI_COMBINER_DUP,
    [MPCR_COMBINER_CONTIGUOUS] = MPI_COMBINER_CONTIGUOUS,
    [MPCR_COMBINER_VECTOR] = MPI_COMBINER_VECTOR,
    [MPCR_COMBINER_HVECTOR] = MPI_COMBINER_HVECTOR,
    [MPCR_COMBINER_INDEXED] = MPI_COMBINER_INDEXED,
    [MPCR_COMBINER_HINDEXED] = MPI_COMBINER_HINDEXED,
    [MPCR_COMBINER_INDEXED_BLOCK] = MPI_COMBINER_INDEXED_BLOCK,
    [MPCR_COMBINER_HINDEXED_BLOCK] = MPI_COMBINER_HINDEXED_BLOCK,
    [MPCR_COMBINER_STRUCT] = MPI_COMBINER_STRUCT,
    [MPCR_COMBINER_RESIZED] = MPI_COMBINER_RESIZED,
    [MPCR_COMBINER_SUBARRAY] = MPI_COMBINER_SUBARRAY,
    [MPCR_COMBINER_DARRAY] = MPI_COMBINER_DARRAY,
    [MPCR_COMBINER_F90_REAL] = MPI_COMBINER_F90_REAL,
    [MPCR_COMBINER_F90_COMPLEX] = MPI_COMBINER_F90_COMPLEX,
    [MPCR_COMBINER_F90_INTEGER] = MPI_COMBINER_F90_INTEGER,
};

int mpcr_impl_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                                  MPI_Count *num_addresses, MPI_Count *num_large_counts,
                                  MPI_Count *num_datatypes, int *combiner)
{
    const struct mpcr_type *t = mpcr_type_get(datatype);
    if (!t) return MPI_ERR_TYPE;
    /* Predefined types are NAMED, whatever made their type maps (the pairs). */
    int named = !mpcr_dtype_get(datatype);
    *num_integers = named ? 0 : t->nints;
    *num_addresses = named ? 0 : t->naddrs;
    *num_datatypes = named ? 0 : t->ntypes;
    *num_large_counts = 0; /* every count is reported among the integers */
    *combiner = named ? MPI_COMBINER_NAMED : combiner_mpi[t->combiner];
    return MPI_SUCCESS;
}

int mpcr_impl_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                int *num_datatypes, int *combiner)
{
    MPI_Count ni, na, nl, nt;
    int err = mpcr_impl_Type_get_envelope_c(datatype, &ni, &na, &nl, &nt, combiner);
    if (err) return err;
    *num_integers = (int)ni, *num_addresses = (int)na, *num_datatypes = (int)nt;
    return MPI_SUCCESS;
}

/* A handle for one of the types a type was made of: the predefined handle,
 * or a new handle the program must free (MPI 4.0 section 5.1.13). */
static int part_handle(struct mpcr_type *t, MPI_Datatype *out)
{
    *out = mpcr_type_predefined_handle(t);
    if (*out != MPI_DATATYPE_NULL) return MPI_SUCCESS;
    mpcr_type_ref(t);
    return mpcr_dtype_new(t, out);
}

int mpcr_impl_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                  MPI_Count max_addresses, MPI_Count max_large_counts,
                                  MPI_Count max_datatypes, int integers[], MPI_Aint addresses[],
                                  MPI_Count large_counts[], MPI_Datatype datatypes[])
{
    (void)max_large_counts, (void)large_counts;
    const struct mpcr_type *t = mpcr_type_get(datatype);
    if (!t || !mpcr_dtype_get(datatype)) return MPI_ERR_TYPE; /* NAMED has no contents */
    if (max_integers < t->nints || max_addresses < t->naddrs || max_datatypes < t->ntypes)
        return MPI_ERR_ARG;
    for (int64_t i = 0; i < t->nints; i++) {
        if (t->ints[i] > INT32_MAX || t->ints[i] < INT32_MIN)
            mpcr_unsupported_feature("MPI_Type_get_contents of a type with counts beyond int");
        integers[i] = (int)t->ints[i];
    }
    for (int64_t i = 0; i < t->naddrs; i++)
        addresses[i] = t->addrs[i];
    for (int64_t i = 0; i < t->ntypes; i++) {
        int err = part_handle(t->types[i], &datatypes[i]);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

int mpcr_impl_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                int max_datatypes, int integers[], MPI_Aint addresses[],
                                MPI_Datatype datatypes[])
{
    return mpcr_impl_Type_get_contents_c(datatype, max_integers, max_addresses, 0, max_datatypes,
                                         integers, addresses, NULL, datatypes);
}

/* ---- names ---- */

static char *name_slot(MPI_Datatype datatype)
{
    struct mpcr_dtype *d = mpcr_dtype_get(datatype);
    return d ? d->name : mpcr_type_builtin_name(datatype);
}

int mpcr_impl_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    char *slot = name_slot(datatype);
    if (!slot) return MPI_ERR_TYPE;
    if (!type_name) return MPI_ERR_ARG;
    snprintf(slot, MPI_MAX_OBJECT_NAME, "%s", type_name);
    return MPI_SUCCESS;
}

int mpcr_impl_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const char *slot = name_slot(datatype);
    if (!slot) return MPI_ERR_TYPE;
    if (!type_name || !resultlen) return MPI_ERR_ARG;
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", slot);
    return MPI_SUCCESS;
}

/* ---- MPI_Type_match_size: MPICH answers with the Fortran sized types ---- */

int mpcr_impl_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const MPI_Datatype real[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16},
                              integer[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8},
                              complex[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    const MPI_Datatype *v;
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL:
        v = real, n = sizeof real / sizeof *real;
        break;
    case MPI_TYPECLASS_INTEGER:
        v = integer, n = sizeof integer / sizeof *integer;
        break;
    case MPI_TYPECLASS_COMPLEX:
        v = complex, n = sizeof complex / sizeof *complex;
        break;
    default:
        return MPI_ERR_ARG;
    }
    for (size_t i = 0; i < n; i++)
        if (mpcr_type_get(v[i]) && mpcr_type_get(v[i])->size == size) {
            *datatype = v[i];
            return MPI_SUCCESS;
        }
    return MPI_ERR_ARG;
}

/* ---- addresses ---- */

int mpcr_impl_Get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* MPI-1's name of MPI_Get_address (removed in MPI-3; MPICH still exports it). */
int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}
MPCR_ALIAS(Address);

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MPCR_ALIAS(Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MPCR_ALIAS(Aint_diff);
