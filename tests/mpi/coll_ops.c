/* Every predefined reduction op on every type family MPI defines it for,
 * through MPI_Allreduce (3 elements, values exact in every type), rank 0
 * printing each result; MINLOC/MAXLOC on pair types; and the ops a
 * reduction must refuse with MPI_ERR_OP (MPI_ERRORS_RETURN). Compared with
 * the native run. (MPICH's extension, logical ops on floating point, is
 * left out: MPICH 4.0.2 asserts on some of them.) */
#include "out.h"
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {{MPI_SUM, "sum"},   {MPI_PROD, "prod"}, {MPI_MAX, "max"},   {MPI_MIN, "min"},
           {MPI_LAND, "land"}, {MPI_LOR, "lor"},   {MPI_LXOR, "lxor"}, {MPI_BAND, "band"},
           {MPI_BOR, "bor"},   {MPI_BXOR, "bxor"}};
#define NOPS (int)(sizeof ops / sizeof ops[0])

/* The ops defined on each family (bits: indices into ops[]). */
enum { ARITH = 0xf, LOGIC = 0x70, BITS = 0x380, COMPLEX = 0x3 };

/* Runs the ops of mask on 3 elements of type T (values exact in T);
 * prints what succeeded, or the error class. (Native MPICH checks few
 * undefined pairs: it asserts on some.) */
#define FAMILY(TYPE, T, MASK, FMT, CONV)                                                           \
    do {                                                                                           \
        for (int k = 0; k < NOPS; k++) {                                                           \
            if (!((MASK) >> k & 1)) continue;                                                      \
            T in[3], res[3];                                                                       \
            for (int i = 0; i < 3; i++)                                                            \
                in[i] = (T)((rank + i) % 3 + (i == 2 ? rank % 2 : 1));                             \
            memset(res, 0, sizeof res);                                                            \
            int rc = MPI_Allreduce(in, res, 3, TYPE, ops[k].op, MPI_COMM_WORLD);                   \
            if (rank) continue;                                                                    \
            if (rc != MPI_SUCCESS) {                                                               \
                out("%s %s: error class %d\n", #TYPE, ops[k].name, error_class_of(rc));            \
                continue;                                                                          \
            }                                                                                      \
            out("%s %s:", #TYPE, ops[k].name);                                                     \
            for (int i = 0; i < 3; i++)                                                            \
                out(" " FMT, CONV(res[i]));                                                        \
            out("\n");                                                                             \
        }                                                                                          \
    } while (0)

#define AS_LL(x)  ((long long)(x))
#define AS_DBL(x) ((double)(x))
#define RE_IM(x)  (double)creal(x), (double)cimag(x)

struct pair_di {
    double v;
    int i;
};
struct pair_li {
    long v;
    int i;
};
struct pair_ff {
    float v, i;
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    FAMILY(MPI_INT, int, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_UNSIGNED_SHORT, unsigned short, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_LONG_LONG, long long, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_SIGNED_CHAR, signed char, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_UINT64_T, uint64_t, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_INT8_T, int8_t, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_AINT, MPI_Aint, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_INTEGER, int, ARITH | LOGIC | BITS, "%lld", AS_LL);
    FAMILY(MPI_BYTE, unsigned char, BITS, "%lld", AS_LL);
    FAMILY(MPI_FLOAT, float, ARITH, "%g", AS_DBL);
    FAMILY(MPI_DOUBLE, double, ARITH, "%g", AS_DBL);
    FAMILY(MPI_LONG_DOUBLE, long double, ARITH, "%g", AS_DBL);
    FAMILY(MPI_REAL8, double, ARITH, "%g", AS_DBL);
    FAMILY(MPI_C_BOOL, bool, LOGIC, "%lld", AS_LL);
    FAMILY(MPI_C_DOUBLE_COMPLEX, double complex, COMPLEX, "%g%+gi", RE_IM);
    FAMILY(MPI_C_FLOAT_COMPLEX, float complex, COMPLEX, "%g%+gi", RE_IM);
    FAMILY(MPI_DOUBLE_COMPLEX, double complex, COMPLEX, "%g%+gi", RE_IM);
    /* MINLOC/MAXLOC on pair types; ties keep the smaller index. */
    struct pair_di di = {(double)(rank % 2), rank}, dr;
    struct pair_li li = {-(long)(rank / 2), rank}, lr;
    struct pair_ff ff = {(float)(rank % 3), (float)rank}, fr;
    int two[2] = {rank * 3 % 4, rank}, tr[2];
    MPI_Op locs[2] = {MPI_MINLOC, MPI_MAXLOC};
    for (int k = 0; k < 2; k++) {
        MPI_Allreduce(&di, &dr, 1, MPI_DOUBLE_INT, locs[k], MPI_COMM_WORLD);
        MPI_Allreduce(&li, &lr, 1, MPI_LONG_INT, locs[k], MPI_COMM_WORLD);
        MPI_Allreduce(&ff, &fr, 1, MPI_2REAL, locs[k], MPI_COMM_WORLD);
        MPI_Allreduce(two, tr, 1, MPI_2INT, locs[k], MPI_COMM_WORLD);
        if (!rank)
            out("%s: double_int %g@%d long_int %ld@%d 2real %g@%g 2int %d@%d\n",
                k ? "maxloc" : "minloc", dr.v, dr.i, lr.v, lr.i, fr.v, fr.i, tr[0], tr[1]);
    }
    /* Three pairs with padding (long double, int: 32 bytes, 20 of data) to
     * every root: the partial results' buffers hold whole elements. */
    struct {
        long double v;
        int i;
    } ld[3], ldr[3];
    for (int root = 0; root < size; root++) {
        for (int j = 0; j < 3; j++)
            ld[j].v = (rank * (j + 2)) % 3, ld[j].i = rank;
        MPI_Reduce(ld, ldr, 3, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, root, MPI_COMM_WORLD);
        if (rank == root)
            out("maxloc long_double_int to %d: %g@%d %g@%d %g@%d\n", root, (double)ldr[0].v,
                ldr[0].i, (double)ldr[1].v, ldr[1].i, (double)ldr[2].v, ldr[2].i);
    }
    /* Ops a reduction does not accept. */
    int x = 1, y;
    int rc1 = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD);
    int rc2 = MPI_Reduce(&x, &y, 1, MPI_INT, MPI_NO_OP, 0, MPI_COMM_WORLD);
    int rc3 = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    if (!rank)
        out("replace: class %d, no_op: class %d, op_null: class %d\n", error_class_of(rc1),
            error_class_of(rc2), error_class_of(rc3));
    out_flush();
    MPI_Finalize();
    return 0;
}
