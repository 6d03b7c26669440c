/* Datatypes as the rest of the library uses them (datatype.c, pack.c,
 * type_*.c): handles, the predefined types, packing; the type maps
 * themselves are typemap.h's. A derived datatype is an object of the handle
 * system (runtime/handle.h) in the application's heap, so it is in every
 * image and keeps its handle value across a restart; none has a
 * counterpart in the proxy. */
#ifndef MPCR_DTYPE_H
#define MPCR_DTYPE_H

#include <sys/types.h>
#include <errno.h>
#include <mpi.h>
#include <stdint.h>

#include "runtime/handle.h"
#include "typemap.h"

/* ---- derived datatypes (datatype.c) ---- */

/* A derived datatype's handle object: the type map it names (one
 * reference) and the program's name for it. */
struct mpcr_dtype {
    struct mpcr_object h;
    struct mpcr_type *t;
    char name[MPI_MAX_OBJECT_NAME];
    pid_t real_proxy; /* the proxy that has its real datatype (real_type.c), or 0 */
};
/* Gives t (its creator's reference is taken over) a new handle in *out; on
 * failure t is released and MPI_ERR_NO_MEM returned. */
int mpcr_dtype_new(struct mpcr_type *t, MPI_Datatype *out);
/* The derived datatype a handle names, or NULL (predefined, freed, garbage). */
struct mpcr_dtype *mpcr_dtype_get(MPI_Datatype h);
/* The predefined handle whose type map t is, or MPI_DATATYPE_NULL. */
MPI_Datatype mpcr_type_predefined_handle(const struct mpcr_type *t);
/* The name slot of a predefined type (MPI_Type_set_name may change it), or NULL. */
char *mpcr_type_builtin_name(MPI_Datatype h);
/* The swap unit of a basic predefined type (1, 2, 4, 8, 16: a complex's
 * part) and in *ext32 its size in external32 (MPI_LONG: 4); 0 for the pair
 * types and markers. */
int mpcr_type_builtin_unit(MPI_Datatype h, int *ext32);

/* Converts a typemap errno to an MPI error class. */
static inline int mpcr_type_errclass(int neg_errno)
{
    return neg_errno == -EINVAL   ? MPI_ERR_ARG
           : neg_errno == -ENOMEM ? MPI_ERR_NO_MEM
                                  : MPI_ERR_OTHER;
}

/* ---- all datatypes (datatype.c; struct mpcr_type and pack/unpack: typemap.h) ---- */
/* NULL when the handle is not a valid datatype. */
const struct mpcr_type *mpcr_type_get(MPI_Datatype type);
int64_t mpcr_type_pair_first(const struct mpcr_type *t); /* datatype.c */
void mpcr_pack(void *dst, const void *src, MPI_Count count, const struct mpcr_type *t);
void mpcr_unpack(void *dst, const void *src, uint64_t bytes, const struct mpcr_type *t);
/* Where count elements of t at buf lie when they are one range of bytes
 * (packing them is one memcpy), or NULL. */
const void *mpcr_type_flat_data(const void *buf, MPI_Count count, const struct mpcr_type *t);

/* Whether a datatype handle is one of MPI's predefined types (a NULL buffer
 * with one of them is an error; with a derived type it is MPI_BOTTOM). */
static inline int mpcr_type_is_predefined(MPI_Datatype type)
{
    uint32_t u = (uint32_t)type;
    return (u >> 30) == 1 || (u >= 0x8c000000u && u <= 0x8c000004u); /* the MINLOC pairs */
}

#endif
