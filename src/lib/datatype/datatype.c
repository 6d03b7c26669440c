/* Datatypes as the library sees them: the predefined types as type maps
 * (typemap.h), and packing. Messages travel as packed bytes, so type
 * handling is entirely the application's (and so survives a restart under
 * any MPI implementation).
 *
 * MPICH's ABI encodes a predefined type's size in bits 8-15 of the handle
 * and its index in bits 0-7; the pair types used by MINLOC/MAXLOC are
 * "direct" handles with holes in their layout. */
#include "api_gen.h"
#include "dtype.h"
#include "pt2pt/p2p.h"
#include "runtime/handle.h"
#include "real_type.h"
#include "typemap.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Every basic predefined datatype of MPICH's mpi.h, with the C type whose
 * alignment it has (its size is in the handle). */
// clang-format off
#define MPCR_BASIC_TYPES(X)                                                                        \
    X(MPI_CHAR, char) X(MPI_SIGNED_CHAR, signed char) X(MPI_UNSIGNED_CHAR, unsigned char)          \
    X(MPI_BYTE, char) X(MPI_WCHAR, wchar_t) X(MPI_SHORT, short) X(MPI_UNSIGNED_SHORT, short)       \
    X(MPI_INT, int) X(MPI_UNSIGNED, int) X(MPI_LONG, long) X(MPI_UNSIGNED_LONG, long)              \
    X(MPI_FLOAT, float) X(MPI_DOUBLE, double) X(MPI_LONG_DOUBLE, long double)                      \
    X(MPI_LONG_LONG_INT, long long) X(MPI_UNSIGNED_LONG_LONG, long long) X(MPI_PACKED, char)       \
    X(MPI_2INT, int) X(MPI_COMPLEX, float) X(MPI_DOUBLE_COMPLEX, double) X(MPI_LOGICAL, int)       \
    X(MPI_REAL, float) X(MPI_DOUBLE_PRECISION, double) X(MPI_INTEGER, int) X(MPI_2INTEGER, int)    \
    X(MPI_2REAL, float) X(MPI_2DOUBLE_PRECISION, double) X(MPI_CHARACTER, char)                    \
    X(MPI_REAL4, float) X(MPI_REAL8, double) X(MPI_REAL16, long double) X(MPI_COMPLEX8, float)     \
    X(MPI_COMPLEX16, double) X(MPI_COMPLEX32, long double) X(MPI_INTEGER1, int8_t)                 \
    X(MPI_INTEGER2, int16_t) X(MPI_INTEGER4, int32_t) X(MPI_INTEGER8, int64_t)                     \
    X(MPI_INT8_T, int8_t) X(MPI_INT16_T, int16_t) X(MPI_INT32_T, int32_t) X(MPI_INT64_T, int64_t)  \
    X(MPI_UINT8_T, int8_t) X(MPI_UINT16_T, int16_t) X(MPI_UINT32_T, int32_t)                       \
    X(MPI_UINT64_T, int64_t) X(MPI_C_BOOL, _Bool) X(MPI_C_FLOAT_COMPLEX, float)                    \
    X(MPI_C_DOUBLE_COMPLEX, double) X(MPI_C_LONG_DOUBLE_COMPLEX, long double)                      \
    X(MPIX_C_FLOAT16, int16_t) X(MPI_AINT, MPI_Aint) X(MPI_OFFSET, MPI_Offset)                     \
    X(MPI_COUNT, MPI_Count) X(MPI_CXX_BOOL, _Bool) X(MPI_CXX_FLOAT_COMPLEX, float)                 \
    X(MPI_CXX_DOUBLE_COMPLEX, double) X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double)
// clang-format on

#define BUILTIN_PREFIX 0x4c000000u
#define DIRECT_PREFIX  0x8c000000u

/* Indexed by the low byte of a builtin handle; handle 0 marks a free slot.
 * The types are made when the library loads, in the heap like every other
 * (so in every image); one that could not be made reads as invalid. */
static struct {
    MPI_Datatype handle;
    struct mpcr_type *type;
    unsigned char unit;  /* external32: bytes swapped as one (a complex's part) */
    unsigned char ext32; /* its size in external32 */
    char name[MPI_MAX_OBJECT_NAME];
} builtin[256];

/* The pair types of MINLOC/MAXLOC, in handle order from MPI_FLOAT_INT
 * (0x8c000000), laid out as the C structs they describe. */
static struct mpcr_type *pair[5];
static char pair_name[5][MPI_MAX_OBJECT_NAME] = {"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT",
                                                 "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT"};
struct float_int {
    float a;
    int b;
};
struct double_int {
    double a;
    int b;
};
struct long_int {
    long a;
    int b;
};
struct short_int {
    short a;
    int b;
};
struct long_double_int {
    long double a;
    int b;
};

#define NPAIRS (sizeof pair / sizeof pair[0])

/* The external32 size of a basic type (MPI 4.0 table 13.2) where it is not
 * the native one on LP64 Linux (as MPICH's MPI_Pack_external_size says). */
static int64_t ext32_size(MPI_Datatype h)
{
    if (h == MPI_LONG || h == MPI_UNSIGNED_LONG) return 4;
    if (h == MPI_WCHAR) return 2;
    return ((uint32_t)h >> 8) & 0xff;
}

static struct mpcr_type *builtin_type(MPI_Datatype h)
{
    return builtin[(uint32_t)h & 0xff].type;
}

static void add(MPI_Datatype h, struct mpcr_type *t, const char *name, int unit)
{
    unsigned i = (uint32_t)h & 0xff;
    builtin[i].handle = h;
    builtin[i].type = t;
    builtin[i].unit = (unsigned char)unit;
    builtin[i].ext32 = (unsigned char)ext32_size(h);
    snprintf(builtin[i].name, sizeof builtin[i].name, "%s", name);
}

static int64_t pair_value_size[NPAIRS];

static void add_pair(MPI_Datatype h, MPI_Datatype value, int64_t index_disp)
{
    struct mpcr_type *v = builtin_type(value), *i = builtin_type(MPI_INT);
    if (v && i && !mpcr_type_pair(v, i, index_disp, &pair[(uint32_t)h - DIRECT_PREFIX]))
        pair_value_size[(uint32_t)h - DIRECT_PREFIX] = v->size;
}

/* MINLOC/MAXLOC pair types are two basic elements each for
 * MPI_Get_elements (MPI 4.0 5.1.11; MPICH builds them as structs), though
 * reported as NAMED: the size of the first half, 0 for any other type. */
int64_t mpcr_type_pair_first(const struct mpcr_type *t)
{
    for (unsigned i = 0; i < NPAIRS; i++)
        if (pair[i] == t) return pair_value_size[i];
    static const MPI_Datatype halves[] = {MPI_2INT, MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION};
    for (unsigned i = 0; i < sizeof halves / sizeof halves[0]; i++)
        if (builtin_type(halves[i]) == t) return t->size / 2;
    return 0;
}

__attribute__((constructor)) static void builtin_table(void)
{
    struct mpcr_type *t;
#define ADD(h, c)                                                                                  \
    if (!mpcr_type_basic(((uint32_t)(h) >> 8) & 0xff, _Alignof(c), &t)) add(h, t, #h, sizeof(c));
    MPCR_BASIC_TYPES(ADD)
#undef ADD
    /* MPICH's name for the handle MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX share. */
    snprintf(builtin[(uint32_t)MPI_C_COMPLEX & 0xff].name, MPI_MAX_OBJECT_NAME, "MPI_C_COMPLEX");
    if (!mpcr_type_marker(false, &t)) add(MPI_LB, t, "MPI_LB", 0);
    if (!mpcr_type_marker(true, &t)) add(MPI_UB, t, "MPI_UB", 0);
    add_pair(MPI_FLOAT_INT, MPI_FLOAT, offsetof(struct float_int, b));
    add_pair(MPI_DOUBLE_INT, MPI_DOUBLE, offsetof(struct double_int, b));
    add_pair(MPI_LONG_INT, MPI_LONG, offsetof(struct long_int, b));
    add_pair(MPI_SHORT_INT, MPI_SHORT, offsetof(struct short_int, b));
    add_pair(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, offsetof(struct long_double_int, b));
}

const struct mpcr_type *mpcr_type_get(MPI_Datatype h)
{
    uint32_t u = (uint32_t)h;
    if ((u & 0xffff0000u) == BUILTIN_PREFIX) {
        if (builtin[u & 0xff].handle == h) return builtin[u & 0xff].type;
        return NULL;
    }
    if (u >= DIRECT_PREFIX && u < DIRECT_PREFIX + NPAIRS) return pair[u - DIRECT_PREFIX];
    struct mpcr_dtype *d = mpcr_dtype_get(h);
    return d ? d->t : NULL;
}

/* ---- derived datatypes' handles ---- */

static void dtype_destroy(void *obj)
{
    mpcr_real_type_forget(obj);
    mpcr_type_unref(((struct mpcr_dtype *)obj)->t);
}

int mpcr_dtype_new(struct mpcr_type *t, MPI_Datatype *out)
{
    struct mpcr_dtype *d = mpcr_obj_new(MPCR_KIND_DATATYPE, sizeof *d, dtype_destroy);
    if (!d) {
        mpcr_type_unref(t);
        return MPI_ERR_NO_MEM;
    }
    d->t = t;
    *out = (MPI_Datatype)mpcr_obj_handle(d);
    return MPI_SUCCESS;
}

struct mpcr_dtype *mpcr_dtype_get(MPI_Datatype h)
{
    return mpcr_obj_get(MPCR_KIND_DATATYPE, (uint32_t)h);
}

MPI_Datatype mpcr_type_predefined_handle(const struct mpcr_type *t)
{
    for (unsigned i = 0; i < NPAIRS; i++)
        if (pair[i] == t) return (MPI_Datatype)(DIRECT_PREFIX + i);
    for (unsigned i = 0; i < 256; i++)
        if (builtin[i].type == t) return builtin[i].handle;
    return MPI_DATATYPE_NULL;
}

char *mpcr_type_builtin_name(MPI_Datatype h)
{
    uint32_t u = (uint32_t)h;
    if ((u & 0xffff0000u) == BUILTIN_PREFIX && builtin[u & 0xff].handle == h)
        return builtin[u & 0xff].name;
    if (u >= DIRECT_PREFIX && u < DIRECT_PREFIX + NPAIRS) return pair_name[u - DIRECT_PREFIX];
    return NULL;
}

int mpcr_type_builtin_unit(MPI_Datatype h, int *ext32)
{
    uint32_t u = (uint32_t)h;
    *ext32 = 0;
    if ((u & 0xffff0000u) != BUILTIN_PREFIX || builtin[u & 0xff].handle != h) return 0;
    *ext32 = builtin[u & 0xff].ext32;
    return builtin[u & 0xff].unit;
}

void mpcr_pack(void *dst, const void *src, MPI_Count count, const struct mpcr_type *t)
{
    mpcr_type_pack(dst, src, count, t, 0, INT64_MAX);
}

/* Unpacks `bytes` of packed data; a partial trailing element is unpacked as
 * far as it goes (as after a truncated receive). */
void mpcr_unpack(void *dst, const void *src, uint64_t bytes, const struct mpcr_type *t)
{
    if (t->size == 0) return;
    uint64_t count = (bytes + (uint64_t)t->size - 1) / (uint64_t)t->size;
    mpcr_type_unpack(dst, src, (int64_t)count, t, 0, (int64_t)bytes);
}

const void *mpcr_type_flat_data(const void *buf, MPI_Count count, const struct mpcr_type *t)
{
    if (t->blocks != 1 || (count > 1 && t->size != t->extent)) return NULL;
    return (const char *)buf + t->true_lb;
}

int mpcr_impl_Type_size(const struct mpcr_type *t, MPI_Count *size)
{
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}

int mpcr_impl_Get_count(const MPI_Status *status, const struct mpcr_type *t, MPI_Count *count)
{
    uint64_t bytes = mpcr_status_bytes(status);
    if (t->size == 0)
        *count = bytes ? MPI_UNDEFINED : 0;
    else if (bytes % t->size)
        *count = MPI_UNDEFINED;
    else
        *count = (MPI_Count)(bytes / t->size);
    return MPI_SUCCESS;
}
