/* Communicators made by the program: MPI_Comm_dup of MPI_COMM_WORLD (its
 * messages never match WORLD's), MPI_Comm_split by parity with reversed
 * keys and with MPI_UNDEFINED for one rank, point-to-point and collectives
 * on them, error handlers inherited, MPI_Comm_free. */
#include "out.h"
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int drank, dsize;
    MPI_Comm_rank(dup, &drank);
    MPI_Comm_size(dup, &dsize);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(dup, &eh);
    out("rank %d dup: rank %d size %d, errhandler inherited %d\n", rank, drank, dsize,
        eh == MPI_ERRORS_RETURN);
    /* Same tag and peer on both communicators: each receive gets its own. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, a = -1, b = -1;
    int va = 100 + rank, vb = 200 + rank;
    MPI_Request rq[2];
    MPI_Irecv(&a, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&b, 1, MPI_INT, prev, 7, dup, &rq[1]);
    MPI_Send(&vb, 1, MPI_INT, next, 7, dup);
    MPI_Send(&va, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
    MPI_Status sts[2];
    MPI_Waitall(2, rq, sts);
    out("rank %d contexts kept apart: world %d dup %d\n", rank, a, b);

    MPI_Comm half;
    int color = rank == size - 1 && size > 2 ? MPI_UNDEFINED : rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
    if (half == MPI_COMM_NULL) {
        out("rank %d split: not a member\n", rank);
    } else {
        int hrank, hsize, sum = 0;
        MPI_Comm_rank(half, &hrank);
        MPI_Comm_size(half, &hsize);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
        int root_world = -1;
        if (hrank == 0) root_world = rank;
        MPI_Bcast(&root_world, 1, MPI_INT, 0, half);
        out("rank %d split color %d: rank %d of %d, sum of world ranks %d, its rank 0 is world "
            "%d\n",
            rank, color, hrank, hsize, sum, root_world);
        MPI_Barrier(half);
        MPI_Comm_free(&half);
        out("rank %d split freed: %d\n", rank, half == MPI_COMM_NULL);
    }
    MPI_Comm_free(&dup);
    int cls, rc = MPI_Comm_size(dup, &dsize);
    MPI_Error_class(rc, &cls);
    out("rank %d freed communicator is invalid: %d\n", rank, cls == MPI_ERR_COMM);
    out_flush();
    MPI_Finalize();
    return 0;
}
