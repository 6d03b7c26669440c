/* Datatypes as type maps: every MPI datatype described once, by the
 * constructor that made it, and compiled into a small loop program that
 * packs and unpacks it (docs/datatypes.md).
 *
 * This module knows nothing of MPI handles or of the MPI runtime: it works
 * on plain integers, so it is unit-tested without MPI, and everything it
 * allocates lives in the application's heap (and so in its checkpoint).
 * The MPI layer (datatype.c) maps handles to these objects, translates
 * int/MPI_Aint/MPI_Count arguments and negative errno to MPI error classes.
 *
 * Bounds follow MPI 4.0 section 5.1: lb/ub are the lowest/highest lb/ub
 * markers when the type map has any (markers are "sticky": they survive
 * every constructor, and MPI_LB/MPI_UB or MPI_Type_create_resized make
 * them), else the bounds of the data, and a struct pads a natural upper
 * bound so that its extent is a multiple of its strictest alignment. The
 * other constructors place whole copies of their old type, bounded by its
 * lb/ub (as MPICH and Open MPI do). Displacements and bounds are byte
 * offsets from the buffer address given to pack/unpack, which may be 0
 * (MPI_BOTTOM: the displacements are then absolute addresses).
 *
 * Functions that make a type return 0 or a negative errno: -EINVAL for a
 * bad argument (negative count or block length, a NULL type), -EOVERFLOW
 * when a size or a bound does not fit in 64 bits, -ENOMEM; on error *out
 * is untouched. */
#ifndef MPCR_TYPEMAP_H
#define MPCR_TYPEMAP_H

#include <stdbool.h>
#include <stdint.h>

/* What made a type; the numbering is ours, not MPI's (the MPI layer maps
 * it to MPI_COMBINER_*). The last five are only ever set by
 * mpcr_type_set_envelope, for constructors built on top of these. */
enum mpcr_combiner {
    MPCR_COMBINER_NAMED,
    MPCR_COMBINER_DUP,
    MPCR_COMBINER_CONTIGUOUS,
    MPCR_COMBINER_VECTOR,
    MPCR_COMBINER_HVECTOR,
    MPCR_COMBINER_INDEXED,
    MPCR_COMBINER_HINDEXED,
    MPCR_COMBINER_INDEXED_BLOCK,
    MPCR_COMBINER_HINDEXED_BLOCK,
    MPCR_COMBINER_STRUCT,
    MPCR_COMBINER_RESIZED,
    MPCR_COMBINER_SUBARRAY,
    MPCR_COMBINER_DARRAY,
    MPCR_COMBINER_F90_REAL,
    MPCR_COMBINER_F90_COMPLEX,
    MPCR_COMBINER_F90_INTEGER,
};

/* Where one bound of a type comes from. */
enum mpcr_bound {
    MPCR_BOUND_NONE,    /* nothing on that side: no data, no marker */
    MPCR_BOUND_NATURAL, /* the data's bound (padded, for a struct) */
    MPCR_BOUND_MARKER,  /* a sticky lb/ub marker */
};

struct mpcr_tm_seq; /* the compiled form (typemap.c) */

/* A datatype. Read the fields; change them only through these functions.
 * Never freed while referenced: a derived type holds references to the
 * types it was made of. */
struct mpcr_type {
    int64_t size;             /* bytes of data in one element (MPI_Type_size) */
    int64_t extent;           /* ub - lb: where the next element starts */
    int64_t lb, ub;           /* MPI_Type_get_extent: lb, lb + extent */
    int64_t true_lb, true_ub; /* the data lies in [true_lb, true_ub); 0, 0 when none */
    int64_t align;            /* strictest alignment of its basic types; 1 when none */
    int64_t blocks;           /* contiguous blocks of one element, as compiled */
    enum mpcr_bound lb_kind, ub_kind;
    int refs;
    /* How it was made, for MPI_Type_get_envelope/get_contents: the integer
     * and address arguments in the order MPI_Type_get_contents returns
     * them (counts included among the integers), and the old types. */
    enum mpcr_combiner combiner;
    int64_t nints, naddrs, ntypes;
    int64_t *ints, *addrs;
    struct mpcr_type **types;
    struct mpcr_tm_seq *seq;
};

/* ---- predefined types ---- */

/* A basic type of `size` bytes (> 0) aligned as C aligns it (`align`, a
 * power of two). Combiner NAMED. */
int mpcr_type_basic(int64_t size, int64_t align, struct mpcr_type **out);
/* The deprecated MPI_LB (upper false) or MPI_UB (upper true): no data, a
 * marker at displacement 0. */
int mpcr_type_marker(bool upper, struct mpcr_type **out);
/* A MINLOC/MAXLOC pair type laid out as the C struct {value a; int b;}:
 * `value` at 0, `index` at `index_disp`. Built as a struct (its extent is
 * padded as the C struct's size is) but reported as NAMED. */
int mpcr_type_pair(struct mpcr_type *value, struct mpcr_type *index, int64_t index_disp,
                   struct mpcr_type **out);

/* ---- constructors (MPI 4.0 section 5.1.2); counts are 64-bit ---- */

int mpcr_type_contiguous(int64_t count, struct mpcr_type *old, struct mpcr_type **out);
/* Stride in elements of old (MPI_Type_vector) or in bytes (hvector). */
int mpcr_type_vector(int64_t count, int64_t blocklen, int64_t stride, struct mpcr_type *old,
                     struct mpcr_type **out);
int mpcr_type_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, struct mpcr_type *old,
                      struct mpcr_type **out);
/* Displacements in elements of old (indexed) or in bytes (hindexed). */
int mpcr_type_indexed(int64_t count, const int64_t blocklens[], const int64_t displs[],
                      struct mpcr_type *old, struct mpcr_type **out);
int mpcr_type_hindexed(int64_t count, const int64_t blocklens[], const int64_t byte_displs[],
                       struct mpcr_type *old, struct mpcr_type **out);
int mpcr_type_indexed_block(int64_t count, int64_t blocklen, const int64_t displs[],
                            struct mpcr_type *old, struct mpcr_type **out);
int mpcr_type_hindexed_block(int64_t count, int64_t blocklen, const int64_t byte_displs[],
                             struct mpcr_type *old, struct mpcr_type **out);
/* MPI_LB and MPI_UB (mpcr_type_marker) may appear among the types. */
int mpcr_type_struct(int64_t count, const int64_t blocklens[], const int64_t byte_displs[],
                     struct mpcr_type *const types[], struct mpcr_type **out);
/* MPI_Type_create_subarray's type map (typemap_subarray.c): dimensions in
 * C order (the last fastest) or Fortran order; extent the whole array's.
 * Its envelope is left as built: the caller records its own. */
int mpcr_type_subarray(int ndims, const int64_t sizes[], const int64_t subsizes[],
                       const int64_t starts[], bool c_order, struct mpcr_type *old,
                       struct mpcr_type **out);
/* The same data with markers at lb and lb + extent (the old ones erased). */
int mpcr_type_resized(struct mpcr_type *old, int64_t lb, int64_t extent, struct mpcr_type **out);
int mpcr_type_dup(struct mpcr_type *old, struct mpcr_type **out);

/* Replaces how t says it was made (a constructor built from the ones above,
 * such as MPI_Type_create_subarray, records its own arguments); the types
 * given gain a reference, the ones replaced lose one. 0 or -ENOMEM. */
int mpcr_type_set_envelope(struct mpcr_type *t, enum mpcr_combiner combiner, int64_t nints,
                           const int64_t ints[], int64_t naddrs, const int64_t addrs[],
                           int64_t ntypes, struct mpcr_type *const types[]);

/* References: a new type starts with one, its creator's. unref frees the
 * type when the last goes, and drops its references to its old types. */
void mpcr_type_ref(struct mpcr_type *t);
void mpcr_type_unref(struct mpcr_type *t);

/* ---- queries ---- */

/* Whether `count` elements (count >= 1) are one block of count * size
 * bytes at true_lb, in the order they are packed: then pack is a memcpy. */
bool mpcr_type_is_contiguous(const struct mpcr_type *t, int64_t count);

/* ---- pack and unpack ---- */

/* The packed form of `count` elements of t at `base` (element i at
 * base + i * extent) is their data in type-map order, count * size bytes.
 * pack copies bytes [skip, skip + max) of it to dst; unpack copies them
 * from src into place (bytes outside the type map are not touched, a
 * partial element is unpacked as far as the bytes go). Both return the
 * bytes copied: min(max, count * size - skip), 0 when skip is past the end.
 * So a message can be packed in pieces, and a truncated receive unpacked
 * with skip 0 and max the bytes received. base may be NULL (MPI_BOTTOM). */
int64_t mpcr_type_pack(void *dst, const void *base, int64_t count, const struct mpcr_type *t,
                       int64_t skip, int64_t max);
int64_t mpcr_type_unpack(void *base, const void *src, int64_t count, const struct mpcr_type *t,
                         int64_t skip, int64_t max);

#endif
