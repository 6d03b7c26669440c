/* Checkpoint scenario: non-blocking and persistent collectives outstanding
 * while the ranks compute. Every iteration each rank starts, on one
 * communicator and in this order, a short MPI_Iallreduce, a long one
 * (reduce-scatter + allgather), an MPI_Ibcast from a rotating root, an
 * MPI_Ialltoall and a persistent MPI_Allreduce_init request (MPI_Start),
 * plus an Isend/Irecv pair with its neighbour; then computes unequally in
 * slices, calling MPI_Test on one of them between slices (so schedules
 * advance while others compute), and completes them with a completion
 * function that changes with the iteration (Waitall, Waitany, Waitsome,
 * Testall, Wait one by one). So a checkpoint finds collectives cut at
 * every round: some ranks with rounds posted, others computing or already
 * done. Integer data: the result is exact, bit-identical however the job
 * is cut and restarted; rank 0 prints a hash now and then and, at the
 * end, every rank's checksum.
 *   ckpt_coll_nbc [ITERS [UNITS [P]]]   (default 300 2 1; UNITS: ms of
 *       computation a rank adds, unequally; P 2: the persistent Allreduce
 *       replaced by MPI_Iallreduce, same results: MPICH 4.0.2 natively
 *       hangs in a persistent collective started again with others
 *       outstanding, so the native reference run uses P 2) */
#include "ckpt.h"

#define SHORT 4
#define LONG_ 16384 /* 64 KiB of int: reduce-scatter + allgather */
#define BC    256

static int rank, size;

static uint64_t hash_ints(uint64_t h, const int *v, int n)
{
    for (int i = 0; i < n; i++)
        h = mix2(h, (uint64_t)(uint32_t)v[i]);
    return h;
}

/* Completes the n requests with the completion function of iteration it. */
static void complete(MPI_Request *q, int n, long it)
{
    int idx, count, flag, indices[8];
    MPI_Status st[8];
    switch (it % 5) {
    case 0:
        MPI_Waitall(n, q, st);
        break;
    case 1:
        for (int k = 0; k < n; k++)
            MPI_Waitany(n, q, &idx, MPI_STATUS_IGNORE);
        break;
    case 2:
        do
            MPI_Waitsome(n, q, &count, indices, st);
        while (count != MPI_UNDEFINED);
        break;
    case 3:
        do
            MPI_Testall(n, q, &flag, st);
        while (!flag);
        break;
    default:
        for (int k = n - 1; k >= 0; k--)
            MPI_Wait(&q[k], MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 300), units = arg_long(argc, argv, 2, 2);
    int use_persistent = arg_long(argc, argv, 3, 1) == 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size <= 16, "at most 16 ranks");
    static int s_in[SHORT], s_out[SHORT], l_in[LONG_], l_out[LONG_], bc[BC];
    static int a2a_in[16 * 8], a2a_out[16 * 8], p_in[SHORT], p_out[SHORT], ring_in, ring_out;
    MPI_Request persistent;
    if (use_persistent)
        MPI_Allreduce_init(p_in, p_out, SHORT, MPI_INT, MPI_BXOR, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &persistent);
    uint64_t h = 0, work = 0;
    long every = iters / 8 > 0 ? iters / 8 : 1;
    for (long it = 0; it < iters; it++) {
        int root = (int)(it % size);
        for (int i = 0; i < SHORT; i++)
            s_in[i] = (int)(mix2((uint64_t)it, (uint64_t)(rank * 8 + i)) & 0xffffff),
            p_in[i] = s_in[i] ^ rank;
        for (int i = 0; i < LONG_; i++)
            l_in[i] = (rank + 1) * (i % 1013) + (int)it;
        for (int i = 0; i < BC; i++)
            bc[i] = rank == root ? (int)(it * 1000 + i) : -1;
        for (int i = 0; i < size * 8; i++)
            a2a_in[i] = rank * 10000 + i + (int)it;
        ring_out = rank * 100 + (int)it;
        MPI_Request q[8];
        int n = 0;
        MPI_Irecv(&ring_in, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &q[n++]);
        MPI_Iallreduce(s_in, s_out, SHORT, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[n++]);
        MPI_Iallreduce(l_in, l_out, LONG_, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[n++]);
        MPI_Ibcast(bc, BC, MPI_INT, root, MPI_COMM_WORLD, &q[n++]);
        MPI_Ialltoall(a2a_in, 8, MPI_INT, a2a_out, 8, MPI_INT, MPI_COMM_WORLD, &q[n++]);
        if (use_persistent) {
            MPI_Start(&persistent);
            q[n++] = persistent;
        } else {
            MPI_Iallreduce(p_in, p_out, SHORT, MPI_INT, MPI_BXOR, MPI_COMM_WORLD, &q[n++]);
        }
        MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &q[n++]);
        /* Unequal computation in slices, testing one request between them. */
        long slices = 1 + (rank + it) % 3;
        for (long k = 0; k < slices; k++) {
            work = compute(mix2(work, (uint64_t)(it * 4 + k)), units);
            int flag;
            if (q[1 + k % 4] != MPI_REQUEST_NULL) MPI_Test(&q[1 + k % 4], &flag, MPI_STATUS_IGNORE);
        }
        complete(q, n, it);
        h = hash_ints(h, s_out, SHORT);
        h = hash_ints(h, l_out, LONG_);
        h = hash_ints(h, bc, BC);
        h = hash_ints(h, a2a_out, size * 8);
        h = hash_ints(h, p_out, SHORT);
        h = hash_ints(h, &ring_in, 1);
        if (it % every == every - 1) progress("nbc: iteration %ld, hash %016" PRIx64 "\n", it + 1, h);
    }
    if (use_persistent) MPI_Request_free(&persistent);
    uint64_t v[2] = {h, work};
    const char *names[] = {"collectives", "work"};
    report("nbc", names, v, 2);
    MPI_Finalize();
    return 0;
}
