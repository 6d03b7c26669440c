/* Truncation: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, receiving 100 ints
 * into room for 10 returns an error of class MPI_ERR_TRUNCATE and the job
 * goes on. With "fatal" as argument the default handler
 * (MPI_ERRORS_ARE_FATAL) must end the job instead. */
#include "out.h"
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, data[100] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int fatal = argc > 1 && !strcmp(argv[1], "fatal");
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    if (rank == 0) {
        /* Printed at once: with "fatal", rank 1 ends the job before out_flush. */
        printf("default handler is fatal: %d\n", eh == MPI_ERRORS_ARE_FATAL);
        fflush(stdout);
    }
    if (fatal) {
        /* The job dies with rank 1 below; give mpiexec time to pass rank 0's
         * line on first, or it may drop it (natively too). */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) usleep(300000);
    }
    if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        for (int i = 0; i < 100; i++)
            data[i] = i;
        MPI_Send(data, 100, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(data, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(data, 50, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        for (int i = 0; i < 100; i++)
            data[i] = -1;
        st.MPI_ERROR = 12345;
        int rc = MPI_Recv(data, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), cls, len, count;
        char text[MPI_MAX_ERROR_STRING];
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
        MPI_Get_count(&st, MPI_INT, &count);
        int beyond = 1; /* nothing past the 10 ints given may be written */
        for (int i = 10; i < 100; i++)
            beyond &= data[i] == -1;
        out("rc is truncate: %d, text non-empty: %d, nothing written beyond: %d\n",
            cls == MPI_ERR_TRUNCATE, len > 0, beyond);
        out("MPI_ERROR untouched by MPI_Recv: %d\n", st.MPI_ERROR == 12345);
        /* The job must still work after the error. */
        rc = MPI_Recv(data, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        out("next receive: rc %d count %d\n", rc, count);
        /* Truncation of a non-blocking receive is reported by MPI_Wait. */
        MPI_Request rq;
        for (int i = 0; i < 100; i++)
            data[i] = -1;
        MPI_Irecv(data, 20, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq);
        MPI_Error_class(MPI_Wait(&rq, &st), &cls);
        int beyond2 = 1;
        for (int i = 20; i < 100; i++)
            beyond2 &= data[i] == -1;
        out("irecv+wait truncate: %d, request freed: %d, nothing written beyond: %d\n",
            cls == MPI_ERR_TRUNCATE, rq == MPI_REQUEST_NULL, beyond2);
        /* Invalid arguments are errors too, returned rather than fatal. */
        MPI_Error_class(MPI_Send(data, 1, MPI_INT, 99, 0, MPI_COMM_WORLD), &cls);
        out("bad rank is MPI_ERR_RANK: %d\n", cls == MPI_ERR_RANK);
        MPI_Error_class(MPI_Send(data, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), &cls);
        out("bad count is MPI_ERR_COUNT: %d\n", cls == MPI_ERR_COUNT);
        MPI_Error_class(MPI_Send(data, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), &cls);
        out("bad tag is MPI_ERR_TAG: %d\n", cls == MPI_ERR_TAG);
        MPI_Error_class(MPI_Send(data, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), &cls);
        out("bad type is MPI_ERR_TYPE: %d\n", cls == MPI_ERR_TYPE);
    }
    out_flush();
    MPI_Finalize();
    return 0;
}
