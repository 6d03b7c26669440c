/* Checkpoint scenario: communicators made and freed all the time, some
 * alive across a checkpoint, and a receive left pending on a communicator
 * the program has freed. Each of REPS rounds:
 *   - CHURN communicators are split off MPI_COMM_WORLD and freed at once
 *     (a restart must not replay them: docs/mpi-checkpoint.md);
 *   - one more is split by rank parity and joins a ring of 3 live ones
 *     (the oldest is freed), then a duplicate of the world;
 *   - every rank posts a receive from its left neighbour on the duplicate
 *     and frees the duplicate; the neighbour computes for UNITS units first,
 *     so a checkpoint lands while the receive is pending on a freed
 *     communicator; then it sends on its own (still live) handle;
 *   - a ring MPI_Sendrecv while rank 1 computes for UNITS/4 units first;
 *   - an Allreduce over each live parity communicator.
 * With CHURN_ROUNDS, only the first CHURN_ROUNDS rounds churn. With
 * CHURN_UNITS, before each split one rank in turn computes that many units,
 * while the others wait inside MPI_Comm_split for it.
 *   ckpt_comms [REPS [UNITS [CHURN [CHURN_ROUNDS [CHURN_UNITS]]]]]
 *   (default 6 300 200 REPS 0) */
#include "ckpt.h"

#define LIVE 3

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long reps = arg_long(argc, argv, 1, 6), units = arg_long(argc, argv, 2, 300),
         churn = arg_long(argc, argv, 3, 200), churn_rounds = arg_long(argc, argv, 4, reps);
    long churn_units = argc > 5 ? arg_long(argc, argv, 5, 1) : 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm live[LIVE];
    for (int i = 0; i < LIVE; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &live[i]);
    uint64_t sum = 0;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (long rep = 0; rep < reps; rep++) {
        for (long i = 0; rep < churn_rounds && i < churn; i++) {
            MPI_Comm c;
            if (churn_units && i % size == rank) sum = mix2(sum, compute((uint64_t)i, churn_units));
            MPI_Comm_split(MPI_COMM_WORLD, (int)((rank + i) % 3), size - rank, &c);
            MPI_Comm_free(&c);
        }
        MPI_Comm_free(&live[rep % LIVE]);
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &live[rep % LIVE]);

        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm mine = dup; /* the handle the send uses, before the free nulls `dup` */
        uint64_t in = 0, out = compute(mix2((uint64_t)rep, (uint64_t)rank), rank == 0 ? units : 1);
        MPI_Request rq;
        MPI_Irecv(&in, 1, MPI_UINT64_T, left, 5, dup, &rq);
        /* Rank 0 computes before sending: everyone else waits on a freed
         * communicator meanwhile. Its own send still uses its handle. */
        MPI_Send(&out, 1, MPI_UINT64_T, right, 5, mine);
        MPI_Comm_free(&dup);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        check(in == compute(mix2((uint64_t)rep, (uint64_t)left), left == 0 ? units : 1),
              "round %ld: wrong value from rank %d", rep, left);
        sum = mix2(sum, in);

        /* A ring MPI_Sendrecv (one BATCH at the proxy) while rank 1 computes
         * first: the others sit in it with their send done and their
         * receive pending when a checkpoint lands. */
        uint64_t mine2 = compute(mix2(sum, (uint64_t)rank), rank == 1 ? units / 4 : 1), got2 = 0;
        MPI_Sendrecv(&mine2, 1, MPI_UINT64_T, right, 6, &got2, 1, MPI_UINT64_T, left, 6,
                     MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sum = mix2(sum, got2);

        for (int k = 0; k < LIVE; k++) {
            uint64_t v = mix2(sum, (uint64_t)k), r = 0;
            MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, MPI_BXOR, live[k]);
            sum = mix2(sum, r);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        progress("comms: round %ld done\n", rep);
    }
    for (int i = 0; i < LIVE; i++)
        MPI_Comm_free(&live[i]);
    const char *names[] = {"checksum"};
    report("comms", names, &sum, 1);
    MPI_Finalize();
    return 0;
}
