/* Ways for a job to fail, chosen by argv[1], each on rank 1 only (rank 0
 * waits in a barrier or a receive): "exit" (status 3 after MPI_Finalize),
 * "noexit" (status 4 without MPI_Finalize), "abort" (MPI_Abort 5),
 * "segv", "kill" (SIGKILL to itself), "unsupported" (calls an MPI function
 * mpcr lacks), "hang" (rank 1 sleeps in computation: a test kills its proxy),
 * "early" (every rank calls MPI_Send before MPI_Init), "late" (MPI_Send after
 * MPI_Finalize), "abort_late" (MPI_Abort 6 after MPI_Finalize), "ok". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int one = 1;
    if (argc > 1 && !strcmp(argv[1], "early")) MPI_Send(&one, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "ok";
    if (rank == 1) {
        if (!strcmp(mode, "late") || !strcmp(mode, "abort_late")) {
            MPI_Finalize();
            if (mode[0] == 'a') MPI_Abort(MPI_COMM_WORLD, 6);
            MPI_Send(&one, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            return 0;
        }
        if (!strcmp(mode, "exit")) {
            MPI_Finalize();
            return 3;
        }
        if (!strcmp(mode, "noexit")) exit(4);
        if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, 5);
        if (!strcmp(mode, "segv")) *(volatile int *)0 = 1;
        if (!strcmp(mode, "kill")) raise(SIGKILL);
        if (!strcmp(mode, "unsupported")) {
            char port[MPI_MAX_PORT_NAME];
            MPI_Open_port(MPI_INFO_NULL, port);
        }
        if (!strcmp(mode, "hang")) {
            printf("rank 1 computing\n");
            fflush(stdout);
            for (;;)
                sleep(1);
        }
    }
    if (!strcmp(mode, "hang") && rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "exit") && strcmp(mode, "late") && strcmp(mode, "abort_late")) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
