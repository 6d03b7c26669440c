/* The MPI datatype constructors (MPI 4.0 section 5.1.2-5.1.4): each turns
 * its arguments into 64-bit integers, calls the typemap constructor of the
 * same name (typemap.h) and gives the new type a handle (datatype.c). The
 * int and _c forms share one implementation (the generator converts the
 * counts); the MPI-1 forms call the MPI-2 ones. */
#include "api/api.h"
#include "api_gen.h"
#include "dtype.h"
#include "env/attr.h"
#include "runtime/handle.h"
#include "typemap.h"

#include <stdlib.h>

/* The type maps are never changed through these pointers; the typemap
 * constructors take non-const ones only because they add references. */
static struct mpcr_type *mutable(const struct mpcr_type *t)
{
    return (struct mpcr_type *)t;
}

/* Hands out a type a constructor returned with status err. */
static int finish(int err, struct mpcr_type *const *t, MPI_Datatype *newtype)
{
    if (err) return mpcr_type_errclass(err);
    return mpcr_dtype_new(*t, newtype);
}

/* A copy of n counts as 64-bit integers (NULL when out of memory; n may be 0). */
static int64_t *counts_copy(struct mpcr_counts c, MPI_Count n)
{
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (v)
        for (MPI_Count i = 0; i < n; i++)
            v[i] = mpcr_count_at(c, i);
    return v;
}

/* Whether any of n block lengths is negative (MPI_ERR_ARG, as MPICH). */
static int negative(const int64_t *v, MPI_Count n)
{
    for (MPI_Count i = 0; i < n; i++)
        if (v[i] < 0) return 1;
    return 0;
}

int mpcr_impl_Type_contiguous(MPI_Count count, const struct mpcr_type *old, MPI_Datatype *newtype)
{
    struct mpcr_type *t;
    return finish(mpcr_type_contiguous(count, mutable(old), &t), &t, newtype);
}

int mpcr_impl_Type_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                          const struct mpcr_type *old, MPI_Datatype *newtype)
{
    struct mpcr_type *t;
    return finish(mpcr_type_vector(count, blocklength, stride, mutable(old), &t), &t, newtype);
}

int mpcr_impl_Type_create_hvector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                  const struct mpcr_type *old, MPI_Datatype *newtype)
{
    struct mpcr_type *t;
    return finish(mpcr_type_hvector(count, blocklength, stride, mutable(old), &t), &t, newtype);
}

int mpcr_impl_Type_hvector(MPI_Count count, int blocklength, MPI_Aint stride,
                           const struct mpcr_type *old, MPI_Datatype *newtype)
{
    if (blocklength < 0) return MPI_ERR_ARG;
    return mpcr_impl_Type_create_hvector(count, blocklength, stride, old, newtype);
}

/* indexed (byte_displs false) or hindexed: the displacements as 64-bit. */
static int indexed(MPI_Count count, struct mpcr_counts blocklengths, const int64_t *displs,
                   bool byte_displs, const struct mpcr_type *old, MPI_Datatype *newtype)
{
    int64_t *bl = counts_copy(blocklengths, count);
    if (!bl) return MPI_ERR_NO_MEM;
    int err = MPI_ERR_ARG;
    if (!negative(bl, count)) {
        struct mpcr_type *t;
        int e = byte_displs ? mpcr_type_hindexed(count, bl, displs, mutable(old), &t)
                            : mpcr_type_indexed(count, bl, displs, mutable(old), &t);
        err = finish(e, &t, newtype);
    }
    free(bl);
    return err;
}

int mpcr_impl_Type_indexed(MPI_Count count, struct mpcr_counts blocklengths,
                           struct mpcr_counts displacements, const struct mpcr_type *old,
                           MPI_Datatype *newtype)
{
    int64_t *d = counts_copy(displacements, count);
    if (!d) return MPI_ERR_NO_MEM;
    int err = indexed(count, blocklengths, d, false, old, newtype);
    free(d);
    return err;
}

int mpcr_impl_Type_create_hindexed(MPI_Count count, struct mpcr_counts blocklengths,
                                   const MPI_Count *displacements, const struct mpcr_type *old,
                                   MPI_Datatype *newtype)
{
    return indexed(count, blocklengths, displacements, true, old, newtype);
}

int mpcr_impl_Type_hindexed(MPI_Count count, int blocklengths[], MPI_Aint displacements[],
                            const struct mpcr_type *old, MPI_Datatype *newtype)
{
    return indexed(count, (struct mpcr_counts){blocklengths, 0}, displacements, true, old, newtype);
}

int mpcr_impl_Type_create_indexed_block(MPI_Count count, MPI_Count blocklength,
                                        struct mpcr_counts displacements,
                                        const struct mpcr_type *old, MPI_Datatype *newtype)
{
    int64_t *d = counts_copy(displacements, count);
    if (!d) return MPI_ERR_NO_MEM;
    struct mpcr_type *t;
    int err = finish(mpcr_type_indexed_block(count, blocklength, d, mutable(old), &t), &t, newtype);
    free(d);
    return err;
}

int mpcr_impl_Type_create_hindexed_block(MPI_Count count, MPI_Count blocklength,
                                         const MPI_Count *displacements,
                                         const struct mpcr_type *old, MPI_Datatype *newtype)
{
    struct mpcr_type *t;
    return finish(mpcr_type_hindexed_block(count, blocklength, displacements, mutable(old), &t), &t,
                  newtype);
}

int mpcr_impl_Type_create_struct(MPI_Count count, struct mpcr_counts blocklengths,
                                 const MPI_Count *displacements, const MPI_Datatype types[],
                                 MPI_Datatype *newtype)
{
    int64_t *bl = counts_copy(blocklengths, count);
    struct mpcr_type **tv = malloc((size_t)(count ? count : 1) * sizeof *tv);
    int err = bl && tv ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (MPI_Count i = 0; !err && i < count; i++)
        if (!(tv[i] = mutable(mpcr_type_get(types[i])))) err = MPI_ERR_TYPE;
    if (!err && negative(bl, count)) err = MPI_ERR_ARG;
    if (!err) {
        struct mpcr_type *t;
        err = finish(mpcr_type_struct(count, bl, displacements, tv, &t), &t, newtype);
    }
    free(bl);
    free(tv);
    return err;
}

int mpcr_impl_Type_struct(MPI_Count count, int blocklengths[], MPI_Aint displacements[],
                          MPI_Datatype types[], MPI_Datatype *newtype)
{
    return mpcr_impl_Type_create_struct(count, (struct mpcr_counts){blocklengths, 0}, displacements,
                                        types, newtype);
}

int mpcr_impl_Type_create_resized(const struct mpcr_type *old, MPI_Count lb, MPI_Count extent,
                                  MPI_Datatype *newtype)
{
    struct mpcr_type *t;
    return finish(mpcr_type_resized(mutable(old), lb, extent, &t), &t, newtype);
}

int mpcr_impl_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct mpcr_type *old = mutable(mpcr_type_get(oldtype)), *t;
    if (!old) return MPI_ERR_TYPE;
    MPI_Datatype h;
    *newtype = MPI_DATATYPE_NULL; /* on failure (MPI 4.0 section 7.7.4) */
    int err = finish(mpcr_type_dup(old, &t), &t, &h);
    if (err) return err;
    err = mpcr_attr_copy_all(MPCR_ATTR_TYPE, (uint32_t)oldtype, (uint32_t)h);
    if (err) { /* a copy callback failed: the copies made so far go with the type */
        mpcr_attr_delete_all(MPCR_ATTR_TYPE, (uint32_t)h);
        mpcr_obj_drop_handle(mpcr_dtype_get(h));
        return err;
    }
    *newtype = h;
    return MPI_SUCCESS;
}
