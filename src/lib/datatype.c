/* Datatypes as the library sees them: how many bytes of data an element
 * holds, its extent, and where the bytes lie. Messages travel as packed
 * bytes, so type handling is entirely the application's (and so survives a
 * restart under any MPI implementation).
 *
 * MPICH's ABI encodes a predefined type's size in bits 8-15 of the handle
 * and its index in bits 0-7; the pair types used by MINLOC/MAXLOC are
 * "direct" handles with holes in their layout. */
#include "lib.h"

#include <stddef.h>
#include <string.h>

/* Every contiguous predefined datatype of MPICH's mpi.h, described once. */
// clang-format off
#define MPCR_CONTIGUOUS_TYPES(X)                                                                   \
    X(MPI_CHAR) X(MPI_SIGNED_CHAR) X(MPI_UNSIGNED_CHAR) X(MPI_BYTE) X(MPI_WCHAR) X(MPI_SHORT)      \
    X(MPI_UNSIGNED_SHORT) X(MPI_INT) X(MPI_UNSIGNED) X(MPI_LONG) X(MPI_UNSIGNED_LONG)              \
    X(MPI_FLOAT) X(MPI_DOUBLE) X(MPI_LONG_DOUBLE) X(MPI_LONG_LONG_INT) X(MPI_UNSIGNED_LONG_LONG)   \
    X(MPI_PACKED) X(MPI_2INT) X(MPI_COMPLEX) X(MPI_DOUBLE_COMPLEX) X(MPI_LOGICAL) X(MPI_REAL)      \
    X(MPI_DOUBLE_PRECISION) X(MPI_INTEGER) X(MPI_2INTEGER) X(MPI_2REAL)                            \
    X(MPI_2DOUBLE_PRECISION) X(MPI_CHARACTER) X(MPI_REAL4) X(MPI_REAL8) X(MPI_REAL16)              \
    X(MPI_COMPLEX8) X(MPI_COMPLEX16) X(MPI_COMPLEX32) X(MPI_INTEGER1) X(MPI_INTEGER2)              \
    X(MPI_INTEGER4) X(MPI_INTEGER8) X(MPI_INT8_T) X(MPI_INT16_T) X(MPI_INT32_T) X(MPI_INT64_T)     \
    X(MPI_UINT8_T) X(MPI_UINT16_T) X(MPI_UINT32_T) X(MPI_UINT64_T) X(MPI_C_BOOL)                   \
    X(MPI_C_FLOAT_COMPLEX) X(MPI_C_DOUBLE_COMPLEX) X(MPI_C_LONG_DOUBLE_COMPLEX) X(MPIX_C_FLOAT16)  \
    X(MPI_AINT) X(MPI_OFFSET) X(MPI_COUNT) X(MPI_CXX_BOOL) X(MPI_CXX_FLOAT_COMPLEX)                \
    X(MPI_CXX_DOUBLE_COMPLEX) X(MPI_CXX_LONG_DOUBLE_COMPLEX) X(MPI_LB) X(MPI_UB)
// clang-format on

#define BUILTIN_PREFIX 0x4c000000u
#define DIRECT_PREFIX  0x8c000000u

/* Indexed by the low byte of a builtin handle; handle 0 marks a free slot. */
static struct {
    MPI_Datatype handle;
    struct mpcr_type type;
} builtin[256];

/* The pair types of MINLOC/MAXLOC, laid out as the C structs they describe. */
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
// clang-format off
#define PAIR(s)                                                                                    \
    {.size = sizeof(((struct s *)0)->a) + sizeof(int), .extent = sizeof(struct s), .nblocks = 2,   \
     .block = {{0, sizeof(((struct s *)0)->a)}, {offsetof(struct s, b), sizeof(int)}}}
// clang-format on
static const struct mpcr_type pair[] = {
    PAIR(float_int),       /* MPI_FLOAT_INT       0x8c000000 */
    PAIR(double_int),      /* MPI_DOUBLE_INT      0x8c000001 */
    PAIR(long_int),        /* MPI_LONG_INT        0x8c000002 */
    PAIR(short_int),       /* MPI_SHORT_INT       0x8c000003 */
    PAIR(long_double_int), /* MPI_LONG_DOUBLE_INT 0x8c000004 */
};

__attribute__((constructor)) static void builtin_table(void)
{
#define ADD(h)                                                                                     \
    builtin[(uint32_t)(h)&0xff].handle = (h);                                                      \
    builtin[(uint32_t)(h)&0xff].type = (struct mpcr_type){((uint32_t)(h) >> 8) & 0xff,             \
                                                          ((uint32_t)(h) >> 8) & 0xff,             \
                                                          1,                                       \
                                                          {{0, ((uint32_t)(h) >> 8) & 0xff}}};
    MPCR_CONTIGUOUS_TYPES(ADD)
#undef ADD
}

const struct mpcr_type *mpcr_type_get(MPI_Datatype h)
{
    uint32_t u = (uint32_t)h;
    if ((u & 0xffff0000u) == BUILTIN_PREFIX) {
        if (builtin[u & 0xff].handle == h) return &builtin[u & 0xff].type;
        return NULL;
    }
    if (u >= DIRECT_PREFIX && u < DIRECT_PREFIX + sizeof pair / sizeof pair[0])
        return &pair[u - DIRECT_PREFIX];
    return NULL;
}

static inline int contiguous(const struct mpcr_type *t)
{
    return t->nblocks == 1 && t->size == t->extent;
}

void mpcr_pack(void *dst, const void *src, int count, const struct mpcr_type *t)
{
    if (contiguous(t)) {
        memcpy(dst, src, (uint64_t)count * t->size);
        return;
    }
    char *d = dst;
    const char *s = src;
    for (int i = 0; i < count; i++, s += t->extent)
        for (unsigned b = 0; b < t->nblocks; b++) {
            memcpy(d, s + t->block[b].offset, t->block[b].length);
            d += t->block[b].length;
        }
}

/* Unpacks `bytes` of packed data; a partial trailing element is unpacked as
 * far as it goes (as after a truncated receive). */
void mpcr_unpack(void *dst, const void *src, uint64_t bytes, const struct mpcr_type *t)
{
    if (contiguous(t)) {
        memcpy(dst, src, bytes);
        return;
    }
    char *d = dst;
    const char *s = src, *end = s + bytes;
    for (; s < end; d += t->extent)
        for (unsigned b = 0; b < t->nblocks && s < end; b++) {
            uint64_t n = t->block[b].length;
            if (n > (uint64_t)(end - s)) n = (uint64_t)(end - s);
            memcpy(d + t->block[b].offset, s, n);
            s += n;
        }
}

int PMPI_Type_size(MPI_Datatype type, int *size)
{
    const struct mpcr_type *t = mpcr_type_get(type);
    if (!t) return mpcr_error_world(MPI_ERR_TYPE, "MPI_Type_size");
    *size = (int)t->size;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Type_size);

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count)
{
    const struct mpcr_type *t = mpcr_type_get(type);
    if (!t) return mpcr_error_world(MPI_ERR_TYPE, "MPI_Get_count");
    uint64_t bytes = mpcr_status_bytes(status);
    if (t->size == 0)
        *count = bytes ? MPI_UNDEFINED : 0;
    else if (bytes % t->size || bytes / t->size > INT32_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / t->size);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Get_count);
