/* Every predefined datatype: its size, and 3 elements sent from rank 0 to
 * rank 1 and compared byte for byte. For the pair types (which have holes)
 * the receiver also checks that the holes keep their old contents. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define T(x)                                                                                       \
    {                                                                                              \
        x, #x                                                                                      \
    }
static const struct {
    MPI_Datatype type;
    const char *name;
} types[] = {
    T(MPI_CHAR),
    T(MPI_SIGNED_CHAR),
    T(MPI_UNSIGNED_CHAR),
    T(MPI_BYTE),
    T(MPI_WCHAR),
    T(MPI_SHORT),
    T(MPI_UNSIGNED_SHORT),
    T(MPI_INT),
    T(MPI_UNSIGNED),
    T(MPI_LONG),
    T(MPI_UNSIGNED_LONG),
    T(MPI_FLOAT),
    T(MPI_DOUBLE),
    T(MPI_LONG_DOUBLE),
    T(MPI_LONG_LONG_INT),
    T(MPI_LONG_LONG),
    T(MPI_UNSIGNED_LONG_LONG),
    T(MPI_PACKED),
    T(MPI_FLOAT_INT),
    T(MPI_DOUBLE_INT),
    T(MPI_LONG_INT),
    T(MPI_SHORT_INT),
    T(MPI_2INT),
    T(MPI_LONG_DOUBLE_INT),
    T(MPI_COMPLEX),
    T(MPI_DOUBLE_COMPLEX),
    T(MPI_LOGICAL),
    T(MPI_REAL),
    T(MPI_DOUBLE_PRECISION),
    T(MPI_INTEGER),
    T(MPI_2INTEGER),
    T(MPI_2REAL),
    T(MPI_2DOUBLE_PRECISION),
    T(MPI_CHARACTER),
    T(MPI_REAL4),
    T(MPI_REAL8),
    T(MPI_REAL16),
    T(MPI_COMPLEX8),
    T(MPI_COMPLEX16),
    T(MPI_COMPLEX32),
    T(MPI_INTEGER1),
    T(MPI_INTEGER2),
    T(MPI_INTEGER4),
    T(MPI_INTEGER8),
    T(MPI_INT8_T),
    T(MPI_INT16_T),
    T(MPI_INT32_T),
    T(MPI_INT64_T),
    T(MPI_UINT8_T),
    T(MPI_UINT16_T),
    T(MPI_UINT32_T),
    T(MPI_UINT64_T),
    T(MPI_C_BOOL),
    T(MPI_C_FLOAT_COMPLEX),
    T(MPI_C_COMPLEX),
    T(MPI_C_DOUBLE_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX),
    T(MPI_AINT),
    T(MPI_OFFSET),
    T(MPI_COUNT),
    T(MPI_CXX_BOOL),
    T(MPI_CXX_FLOAT_COMPLEX),
    T(MPI_CXX_DOUBLE_COMPLEX),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX),
};

/* Byte offsets of the data in one element of a pair type (-1: contiguous). */
static int pair_layout(MPI_Datatype t, int *first, int *second, int *extent)
{
#define PAIR(type, T1)                                                                             \
    if (t == type) {                                                                               \
        struct p {                                                                                 \
            T1 a;                                                                                  \
            int b;                                                                                 \
        };                                                                                         \
        *first = sizeof(T1), *second = (int)__builtin_offsetof(struct p, b);                       \
        *extent = sizeof(struct p);                                                                \
        return 1;                                                                                  \
    }
    PAIR(MPI_FLOAT_INT, float)
    PAIR(MPI_DOUBLE_INT, double)
    PAIR(MPI_LONG_INT, long)
    PAIR(MPI_SHORT_INT, short) PAIR(MPI_LONG_DOUBLE_INT, long double) return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (unsigned i = 0; i < sizeof types / sizeof types[0]; i++) {
        int size, first = 0, second = 0, extent;
        MPI_Type_size(types[i].type, &size);
        if (!pair_layout(types[i].type, &first, &second, &extent)) extent = size;
        unsigned char buf[3 * 64];
        int count = -1;
        MPI_Status st;
        if (rank == 0) {
            for (int k = 0; k < 3 * extent; k++)
                buf[k] = (unsigned char)(k * 7 + i);
            MPI_Send(buf, 3, types[i].type, 1, (int)i, MPI_COMM_WORLD);
            printf("%-28s size %2d\n", types[i].name, size);
        } else if (rank == 1) {
            memset(buf, 0xAA, sizeof buf);
            MPI_Recv(buf, 3, types[i].type, 0, (int)i, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, types[i].type, &count);
            int ok = count == 3;
            for (int k = 0; k < 3 * extent; k++) {
                int in_data = extent == size || k % extent < first ||
                              (k % extent >= second && k % extent < second + 4);
                unsigned char want = in_data ? (unsigned char)(k * 7 + i) : 0xAA;
                ok &= buf[k] == want;
            }
            if (!ok) printf("%s: received data or holes differ (count %d)\n", types[i].name, count);
        }
    }
    MPI_Finalize();
    return 0;
}
