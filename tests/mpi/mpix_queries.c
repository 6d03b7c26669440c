/* MPICH's extensions that need no failure and no GPU, under mpcr alone
 * (MPICH 4.0.2's ch4 device fails an assertion in MPIX_Comm_agree natively),
 * its output checked by the test (tests/communicator.cmake), 3 ranks: MPIX_Comm_agree (the AND of the flags, on the
 * world and on a split), MPIX_Comm_shrink (the same processes, in order;
 * used, then freed), MPIX_Comm_failure_ack and _get_acked (no failure: an
 * empty group), the GPU queries (none supported), and MPI_Address (MPI-1,
 * the same as MPI_Get_address). */
#include <mpi.h>
#include <stdio.h>

#include "out.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int flag = 0x7 & ~(1 << rank); /* each rank clears its own bit */
    MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    int all = -1;
    MPIX_Comm_agree(MPI_COMM_WORLD, &all);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int mine = 0xff ^ (rank << 4);
    MPIX_Comm_agree(half, &mine);
    out("rank %d: agree world %#x, all-ones %d, half %#x\n", rank, flag, all, mine);

    MPI_Comm shrunk;
    MPIX_Comm_shrink(half, &shrunk);
    int hr, sr, ss, cmp, sum;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_rank(shrunk, &sr);
    MPI_Comm_size(shrunk, &ss);
    MPI_Comm_compare(half, shrunk, &cmp);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk);
    out("rank %d: shrink rank %d (was %d) of %d, %s, sum of world ranks %d\n", rank, sr, hr, ss,
        cmp == MPI_CONGRUENT ? "congruent" : cmp == MPI_IDENT ? "ident" : "other", sum);

    MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    MPI_Group acked;
    MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked);
    int gsize, gcmp;
    MPI_Group_size(acked, &gsize);
    MPI_Group_compare(acked, MPI_GROUP_EMPTY, &gcmp);
    out("rank %d: acknowledged failures %d (%s)\n", rank, gsize, gcmp == MPI_IDENT ? "MPI_GROUP_EMPTY" : "another group");
    if (acked != MPI_GROUP_EMPTY) MPI_Group_free(&acked);

    int gpu[3];
    MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &gpu[0]);
    MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &gpu[1]);
    MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &gpu[2]);
    out("rank %d: gpu cuda %d ze %d hip %d, cuda %d hip %d ze %d\n", rank, gpu[0], gpu[1], gpu[2],
        MPIX_Query_cuda_support(), MPIX_Query_hip_support(), MPIX_Query_ze_support());

    double x[4];
    MPI_Aint a, b;
    MPI_Address(&x[3], &a);
    MPI_Get_address(&x[3], &b);
    out("rank %d: MPI_Address %s MPI_Get_address\n", rank, a == b ? "equals" : "differs from");

    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&half);
    out_flush();
    MPI_Finalize();
    return 0;
}
