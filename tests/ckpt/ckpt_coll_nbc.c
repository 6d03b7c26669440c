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
 *   ckpt_coll_nbc [ITERS [UNITS [P [H]]]]   (default 300 2 1 1; UNITS: units
 *       of computation a rank adds, unequally; P 2: the persistent
 *       Allreduce replaced by MPI_Iallreduce, same results: MPICH 4.0.2
 *       natively hangs in a persistent collective started again with
 *       others outstanding, so the native reference run uses P 2; H 2:
 *       also an MPI_Ineighbor_alltoall on a periodic Cartesian ring and an
 *       MPI_Ineighbor_allgatherv on a distributed graph outstanding with
 *       the others) */
#include "ckpt.h"
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h> /* MPIX_Allreduce_init (tests/ompiabi.cmake) */
#endif

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
    int idx, count, flag, indices[12];
    MPI_Status st[12];
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
#if MPI_VERSION < 4 && defined(OPEN_MPI) /* Open MPI 4.1 (MPI 3.1) has MPI 4.0's as MPIX_ */
#define MPI_Allreduce_init MPIX_Allreduce_init
#elif MPI_VERSION < 4 /* another MPI 3.1 build: always P 2 */
    use_persistent = 0;
#define MPI_Allreduce_init(...) ((void)0)
#endif
    int use_hood = arg_long(argc, argv, 4, 1) == 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size <= 16, "at most 16 ranks");
    static int s_in[SHORT], s_out[SHORT], l_in[LONG_], l_out[LONG_], bc[BC];
    static int a2a_in[16 * 8], a2a_out[16 * 8], p_in[SHORT], p_out[SHORT], ring_in, ring_out;
    /* Neighbourhoods: a periodic ring (2 neighbours, one rank both when
     * size is 2), and a distributed graph from 1 and 2 ranks left to 1 and
     * 2 ranks right */
    static int ring_send[2 * 4], ring_recv[2 * 4], dg_send[3], dg_recv[2 * 3];
    int periodic = 1, sources[2] = {(rank + size - 1) % size, (rank + size - 2) % size},
        dests[2] = {(rank + 1) % size, (rank + 2) % size};
    /* an odd rank sends 1 int, an even one 3; placed in reverse */
    int dg_mine = rank % 2 ? 1 : 3, dg_counts[2] = {sources[0] % 2 ? 1 : 3, sources[1] % 2 ? 1 : 3},
        dg_displs[2] = {3, 0};
    MPI_Comm ring, dg;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
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
        for (int i = 0; i < 2 * 4; i++)
            ring_send[i] = rank * 1000 + i + (int)it;
        for (int i = 0; i < 3; i++)
            dg_send[i] = rank * 1000 + i - (int)it;
        MPI_Request q[12];
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
        if (use_hood) {
            MPI_Ineighbor_alltoall(ring_send, 4, MPI_INT, ring_recv, 4, MPI_INT, ring, &q[n++]);
            MPI_Ineighbor_allgatherv(dg_send, dg_mine, MPI_INT, dg_recv, dg_counts, dg_displs,
                                     MPI_INT, dg, &q[n++]);
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
        if (use_hood) h = hash_ints(hash_ints(h, ring_recv, 2 * 4), dg_recv, 2 * 3);
        if (it % every == every - 1) progress("nbc: iteration %ld, hash %016" PRIx64 "\n", it + 1, h);
    }
    if (use_persistent) MPI_Request_free(&persistent);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&dg);
    uint64_t v[2] = {h, work};
    const char *names[] = {"collectives", "work"};
    report("nbc", names, v, 2);
    MPI_Finalize();
    return 0;
}
