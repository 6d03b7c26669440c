/* The generated entry points: the large-count _c forms on the same
 * implementations, arguments significant only at the root, error classes
 * for handles of the wrong kind, and ops a reduction must refuse. Compared
 * with a native MPICH run. */
#include "out.h"
#include <mpi.h>
#include <stdint.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Large-count forms, counts that fit in an int and one that does not
     * fit in a 32-bit byte count. */
    double v[64];
    for (int i = 0; i < 64; i++) v[i] = rank * 100 + i;
    MPI_Count n = 0, tsize = 0;
    MPI_Type_size_c(MPI_DOUBLE, &tsize);
    if (rank == 0) {
        MPI_Send_c(v, (MPI_Count)64, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        double got[64];
        MPI_Recv_c(got, (MPI_Count)64, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &st);
        MPI_Get_count_c(&st, MPI_DOUBLE, &n);
        out("rank 1: recv_c %lld doubles, last %g, type_size_c %lld\n", (long long)n, got[63],
            (long long)tsize);
    }
    double sum[64];
    MPI_Allreduce_c(v, sum, (MPI_Count)64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast_c(sum, (MPI_Count)64, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    out("rank %d: allreduce_c+bcast_c %g %g\n", rank, sum[0], sum[63]);

    /* Receive arguments are significant at the root only. */
    int mine = rank + 1, all[64] = {0};
    int rc = MPI_Gather(&mine, 1, MPI_INT, all, rank == 0 ? 1 : -1,
                        rank == 0 ? MPI_INT : MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    if (rank == 0) out("gather, null type off the root: rc %d, last %d\n", error_class_of(rc), all[size - 1]);
    else out("rank %d: gather rc %d\n", rank, error_class_of(rc));

    /* Error classes of bad arguments. */
    MPI_Request req = MPI_REQUEST_NULL;
    int x = 0;
    out("rank %d: comm garbage %d, a request as comm %d, bad type %d, bad count %d, "
        "bad rank %d, bad tag %d, bad root %d\n", rank,
        error_class_of(MPI_Send(&x, 1, MPI_INT, 0, 1, (MPI_Comm)0x12345678)),
        error_class_of(MPI_Send(&x, 1, MPI_INT, 0, 1, (MPI_Comm)0xac000000)),
        error_class_of(MPI_Send(&x, 1, (MPI_Datatype)0x12345678, 0, 1, MPI_COMM_WORLD)),
        error_class_of(MPI_Send(&x, -1, MPI_INT, 0, 1, MPI_COMM_WORLD)),
        error_class_of(MPI_Send(&x, 1, MPI_INT, size, 1, MPI_COMM_WORLD)),
        error_class_of(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD)),
        error_class_of(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD)));
    (void)req;
    /* MPI_REPLACE and MPI_NO_OP are for one-sided accumulates only. */
    int r1 = MPI_Allreduce(&x, &mine, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD);
    int r2 = MPI_Reduce(&x, &mine, 1, MPI_INT, MPI_NO_OP, 0, MPI_COMM_WORLD);
    out("rank %d: allreduce REPLACE %d, reduce NO_OP %d\n", rank, error_class_of(r1), error_class_of(r2));
    /* A null buffer with data of a predefined type. */
    out("rank %d: null buffer %d\n", rank, error_class_of(MPI_Send(NULL, 1, MPI_INT, 0, 1, MPI_COMM_WORLD)));
    out_flush();
    MPI_Finalize();
    return 0;
}
