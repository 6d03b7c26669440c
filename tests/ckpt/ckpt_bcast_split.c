/* Large broadcasts among 8 or more ranks, which mpcr scatters and gathers
 * (src/lib/coll/coll_bcast_split.c), against the native run, with and without
 * checkpoints at random instants. Each round broadcasts from another root
 * one of several sizes (64 KiB exactly, odd sizes, 1 MiB), as bytes, as
 * ints, or with a strided type on the root only or on every rank (the
 * pieces are cut from the packed bytes, whatever type a rank names), by
 * MPI_Bcast, by MPI_Ibcast completed after some computation, or by a
 * persistent MPI_Bcast_init started again; the ranks compute unequally
 * between rounds, so a cut finds some inside a round and others past it.
 * Every rank folds what it received into a checksum; rank 0 reports them.
 *   ckpt_bcast_split [ROUNDS [UNITS [P]]]   (default 24 rounds, 2 units, P 1;
 *       P 2: the persistent broadcast replaced by MPI_Ibcast, same results:
 *       MPICH 4.0.2 natively fails a persistent broadcast started again, so
 *       the native reference uses P 2) */
#include "ckpt.h"

static const int sizes[] = {65536, 100003, 1 << 20, 300001};

static uint64_t byte_at(int round, long i)
{
    return mix2((uint64_t)round, (uint64_t)i) & 0xff;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long rounds = arg_long(argc, argv, 1, 24), units = arg_long(argc, argv, 2, 2);
    int persistent_ok = arg_long(argc, argv, 3, 1) == 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long most = 1 << 20;
    unsigned char *bytes = malloc((size_t)most);
    int *ints = malloc((size_t)most * 2); /* room for the strided type's gaps */
    unsigned char *persistent = malloc((size_t)most);
    check(bytes && ints && persistent, "out of memory");
    MPI_Request started = MPI_REQUEST_NULL;
    int proot = size - 1;
    if (persistent_ok)
        MPI_Bcast_init(persistent, (int)most, MPI_BYTE, proot, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &started);
    uint64_t sum = 0, busy = 0;
    for (long r = 0; r < rounds; r++) {
        int root = (int)(r * 3 % size), n = sizes[r % 4], form = (int)(r % 6);
        int m = n / 4; /* ints */
        MPI_Datatype strided;
        MPI_Type_vector(m, 1, 2, MPI_INT, &strided);
        MPI_Type_commit(&strided);
        if (form <= 1) { /* bytes: MPI_Bcast, or MPI_Ibcast with computation meanwhile */
            for (long i = 0; i < n; i++)
                bytes[i] = rank == root ? (unsigned char)byte_at((int)r, i) : 0;
            if (form == 0) {
                MPI_Bcast(bytes, n, MPI_BYTE, root, MPI_COMM_WORLD);
            } else {
                MPI_Request q;
                MPI_Ibcast(bytes, n, MPI_BYTE, root, MPI_COMM_WORLD, &q);
                busy = compute(busy + (uint64_t)r, units);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
            for (long i = 0; i < n; i++)
                sum = mix2(sum, bytes[i]);
        } else if (form <= 4) { /* ints: contiguous (2), strided at the root (3), everywhere (4) */
            int spread = form == 4 || (form == 3 && rank == root);
            for (long i = 0; i < 2L * m; i++)
                ints[i] = -1;
            for (long i = 0; i < m; i++)
                if (rank == root) ints[spread ? 2 * i : i] = (int)mix2((uint64_t)r, (uint64_t)i);
            MPI_Bcast(ints, spread ? 1 : m, spread ? strided : MPI_INT, root, MPI_COMM_WORLD);
            for (long i = 0; i < (spread ? 2L * m : m); i++)
                sum = mix2(sum, (uint64_t)(uint32_t)ints[i]); /* the gaps stay -1 */
        } else { /* the persistent broadcast, started again */
            for (long i = 0; i < most; i++)
                persistent[i] = rank == proot ? (unsigned char)byte_at((int)r, i) : 0;
            MPI_Request q;
            if (persistent_ok)
                MPI_Start(&started);
            else
                MPI_Ibcast(persistent, (int)most, MPI_BYTE, proot, MPI_COMM_WORLD, &q);
            busy = compute(busy + (uint64_t)r, units);
            MPI_Wait(persistent_ok ? &started : &q, MPI_STATUS_IGNORE);
            for (long i = 0; i < most; i++)
                sum = mix2(sum, persistent[i]);
        }
        MPI_Type_free(&strided);
        busy = compute(busy + (uint64_t)rank, units * (1 + rank % 3));
        if (r % 6 == 5) progress("round %ld done\n", r);
    }
    if (persistent_ok) MPI_Request_free(&started);
    static const char *const names[] = {"received", "computed"};
    uint64_t v[2] = {sum, busy};
    report("bcast_split", names, v, 2);
    free(bytes), free(ints), free(persistent);
    MPI_Finalize();
    return 0;
}
