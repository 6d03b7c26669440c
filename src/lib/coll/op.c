/* Predefined reduction operations, applied in the application (DESIGN
 * section 5: reductions are computed where the data is, as user-defined
 * ops must be: op_user.c). Which op applies to which type follows MPI 4.0
 * section 6.9.2: arithmetic ops on integers, floating point and complex
 * (MIN/MAX not on complex), logical and bitwise ops on integers (bitwise
 * also on MPI_BYTE), MINLOC/MAXLOC on the pair types; and, as MPICH does
 * (its tests check it unless USE_STRICT_MPI), logical ops on floating
 * point. */
#include "coll.h"
#include "op.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

enum kind { INTEGER, FLOATING, COMPLEX, BYTES, BOOL, PAIR };

/* Predefined types that reductions accept, with their C type and kind. */
// clang-format off
#define REDUCIBLE_TYPES(X)                                                                         \
    X(MPI_CHAR, char, INTEGER) X(MPI_SIGNED_CHAR, signed char, INTEGER)                            \
    X(MPI_UNSIGNED_CHAR, unsigned char, INTEGER) X(MPI_SHORT, short, INTEGER)                      \
    X(MPI_UNSIGNED_SHORT, unsigned short, INTEGER) X(MPI_INT, int, INTEGER)                        \
    X(MPI_UNSIGNED, unsigned, INTEGER) X(MPI_LONG, long, INTEGER)                                  \
    X(MPI_UNSIGNED_LONG, unsigned long, INTEGER) X(MPI_LONG_LONG_INT, long long, INTEGER)          \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, INTEGER) X(MPI_INT8_T, int8_t, INTEGER)          \
    X(MPI_INT16_T, int16_t, INTEGER) X(MPI_INT32_T, int32_t, INTEGER)                              \
    X(MPI_INT64_T, int64_t, INTEGER) X(MPI_UINT8_T, uint8_t, INTEGER)                              \
    X(MPI_UINT16_T, uint16_t, INTEGER) X(MPI_UINT32_T, uint32_t, INTEGER)                          \
    X(MPI_UINT64_T, uint64_t, INTEGER) X(MPI_AINT, MPI_Aint, INTEGER)                              \
    X(MPI_OFFSET, MPI_Offset, INTEGER) X(MPI_COUNT, MPI_Count, INTEGER)                            \
    X(MPI_WCHAR, int, INTEGER)                                                                     \
    X(MPI_FLOAT, float, FLOATING) X(MPI_DOUBLE, double, FLOATING)                                  \
    X(MPI_LONG_DOUBLE, long double, FLOATING)                                                      \
    X(MPI_C_FLOAT_COMPLEX, float complex, COMPLEX) X(MPI_C_DOUBLE_COMPLEX, double complex, COMPLEX) \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double complex, COMPLEX)                                     \
    X(MPI_BYTE, unsigned char, BYTES) X(MPI_C_BOOL, bool, BOOL) X(MPI_CXX_BOOL, bool, BOOL)        \
    X(MPI_CXX_FLOAT_COMPLEX, float complex, COMPLEX)                                               \
    X(MPI_CXX_DOUBLE_COMPLEX, double complex, COMPLEX)                                             \
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double complex, COMPLEX)                                   \
    FORTRAN_TYPES(X)
/* Fortran's types, as MPICH's mpi.h lays them out for C (INTEGER is int,
 * LOGICAL an int that is 0 or not, COMPLEX two REALs). */
#define FORTRAN_TYPES(X)                                                                           \
    X(MPI_INTEGER, int, INTEGER) X(MPI_INTEGER1, int8_t, INTEGER) X(MPI_INTEGER2, int16_t, INTEGER) \
    X(MPI_INTEGER4, int32_t, INTEGER) X(MPI_INTEGER8, int64_t, INTEGER)                            \
    X(MPI_REAL, float, FLOATING) X(MPI_DOUBLE_PRECISION, double, FLOATING)                         \
    X(MPI_REAL4, float, FLOATING) X(MPI_REAL8, double, FLOATING)                                   \
    X(MPI_REAL16, long double, FLOATING) X(MPI_COMPLEX, float complex, COMPLEX)                    \
    X(MPI_DOUBLE_COMPLEX, double complex, COMPLEX) X(MPI_COMPLEX8, float complex, COMPLEX)         \
    X(MPI_COMPLEX16, double complex, COMPLEX) X(MPI_COMPLEX32, long double complex, COMPLEX)       \
    X(MPI_LOGICAL, int, BOOL)
// clang-format on

/* in and io never overlap (MPI forbids it for MPI_Reduce_local; the
 * schedules reduce from a temporary): restrict lets the compiler vectorize
 * (this file is built with -O3, src/lib/CMakeLists.txt). Element by
 * element, so the results are the same bits as a scalar loop's. */
#define ARITH(T, OP)                                                                               \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = io;                                                                        \
        for (MPI_Count i = 0; i < n; i++)                                                          \
            b[i] = a[i] OP b[i];                                                                   \
    }
#define PICK(T, CMP)                                                                               \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = io;                                                                        \
        for (MPI_Count i = 0; i < n; i++)                                                          \
            b[i] = a[i] CMP b[i] ? a[i] : b[i];                                                    \
    }
#define LOGIC(T, OP)                                                                               \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = io;                                                                        \
        for (MPI_Count i = 0; i < n; i++)                                                          \
            b[i] = (a[i] != 0) OP(b[i] != 0);                                                      \
    }

/* The ops a reduction accepts: the predefined ones and the program's
 * (op_user.c). MPI_REPLACE and MPI_NO_OP are predefined ops too, but only
 * for one-sided accumulates (MPI 4.0 section 12.3.4). */
int mpcr_op_valid(MPI_Op op)
{
    return mpcr_user_op_get(op) || mpcr_op_predefined(op);
}

int mpcr_op_predefined(MPI_Op op)
{
    return op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD || op == MPI_LAND ||
           op == MPI_BAND || op == MPI_LOR || op == MPI_BOR || op == MPI_LXOR || op == MPI_BXOR ||
           op == MPI_MINLOC || op == MPI_MAXLOC;
}

/* The ops defined on each kind of type; the first that matches returns. */
// clang-format off
#define ON(o, body) if (op == MPI_##o) { body return MPI_SUCCESS; }
#define INTEGER_OPS(T)                                                                             \
    ON(SUM, ARITH(T, +)) ON(PROD, ARITH(T, *)) ON(MAX, PICK(T, >)) ON(MIN, PICK(T, <))             \
    ON(LAND, LOGIC(T, &&)) ON(LOR, LOGIC(T, ||)) ON(LXOR, LOGIC(T, !=))                            \
    ON(BAND, ARITH(T, &)) ON(BOR, ARITH(T, |)) ON(BXOR, ARITH(T, ^)) return MPI_ERR_OP;
#define FLOATING_OPS(T)                                                                            \
    ON(SUM, ARITH(T, +)) ON(PROD, ARITH(T, *)) ON(MAX, PICK(T, >)) ON(MIN, PICK(T, <))             \
    ON(LAND, LOGIC(T, &&)) ON(LOR, LOGIC(T, ||)) ON(LXOR, LOGIC(T, !=)) return MPI_ERR_OP;
#define COMPLEX_OPS(T) ON(SUM, ARITH(T, +)) ON(PROD, ARITH(T, *)) return MPI_ERR_OP;
#define BYTES_OPS(T) ON(BAND, ARITH(T, &)) ON(BOR, ARITH(T, |)) ON(BXOR, ARITH(T, ^)) return MPI_ERR_OP;
#define BOOL_OPS(T) ON(LAND, LOGIC(T, &&)) ON(LOR, LOGIC(T, ||)) ON(LXOR, LOGIC(T, !=)) return MPI_ERR_OP;
// clang-format on

/* io[i] = in[i] op io[i]: one function per type of the table, returning
 * MPI_ERR_OP when the op is not defined on the type's kind. */
#define DEFINE(h, T, k)                                                                            \
    static int apply_##h(MPI_Op op, const void *in, void *io, MPI_Count n)                         \
    {                                                                                              \
        k##_OPS(T)                                                                                 \
    }
REDUCIBLE_TYPES(DEFINE)
#undef DEFINE

/* MINLOC/MAXLOC on a pair type: value first, then the int index; ties keep
 * the smaller index (MPI 4.0 section 6.9.4). */
#define LOC(VT, S)                                                                                 \
    for (MPI_Count i = 0; i < n; i++) {                                                            \
        const struct S *a = (const struct S *)in + i;                                              \
        struct S *b = (struct S *)io + i;                                                          \
        int better = op == MPI_MINLOC ? a->v < b->v : a->v > b->v;                                 \
        if (better || (a->v == b->v && a->i < b->i)) *b = *a;                                      \
    }
struct loc_float {
    float v;
    int i;
};
struct loc_double {
    double v;
    int i;
};
struct loc_long {
    long v;
    int i;
};
struct loc_short {
    short v;
    int i;
};
struct loc_long_double {
    long double v;
    int i;
};
struct loc_int {
    int v;
    int i;
};
struct loc_real { /* Fortran's pairs: the index has the value's type */
    float v, i;
};
struct loc_double_precision {
    double v, i;
};

static int apply_loc(MPI_Op op, MPI_Datatype t, const void *in, void *io, MPI_Count n)
{
    if (op != MPI_MINLOC && op != MPI_MAXLOC) return MPI_ERR_OP;
    if (t == MPI_FLOAT_INT) {
        LOC(float, loc_float)
    } else if (t == MPI_DOUBLE_INT) {
        LOC(double, loc_double)
    } else if (t == MPI_LONG_INT) {
        LOC(long, loc_long)
    } else if (t == MPI_SHORT_INT) {
        LOC(short, loc_short)
    } else if (t == MPI_LONG_DOUBLE_INT) {
        LOC(long double, loc_long_double)
    } else if (t == MPI_2INT || t == MPI_2INTEGER) {
        LOC(int, loc_int)
    } else if (t == MPI_2REAL) {
        LOC(float, loc_real)
    } else if (t == MPI_2DOUBLE_PRECISION) {
        LOC(double, loc_double_precision)
    } else
        return MPI_ERR_OP;
    return MPI_SUCCESS;
}

int mpcr_reduce_local(MPI_Op op, MPI_Datatype type, const void *in, void *inout, MPI_Count count)
{
    const struct mpcr_user_op *u = mpcr_user_op_get(op);
    if (u) return mpcr_user_op_apply(u, type, in, inout, count);
    if (op == MPI_MINLOC || op == MPI_MAXLOC) return apply_loc(op, type, in, inout, count);
#define CASE(h, T, k)                                                                              \
    if (type == h) return apply_##h(op, in, inout, count);
    REDUCIBLE_TYPES(CASE)
#undef CASE
    return MPI_ERR_OP;
}
