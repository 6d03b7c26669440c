/* Truncation: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, receiving 100 ints
 * into room for 10 returns an error of class MPI_ERR_TRUNCATE and the job
 * goes on. With "fatal" as argument the default handler
 * (MPI_ERRORS_ARE_FATAL) must end the job instead. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, data[100] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int fatal = argc > 1 && !strcmp(argv[1], "fatal");
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    if (rank == 0) {
        printf("default handler is fatal: %d\n", eh == MPI_ERRORS_ARE_FATAL);
        fflush(stdout); /* before rank 1 may end the job */
    }
    if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        for (int i = 0; i < 100; i++)
            data[i] = i;
        MPI_Send(data, 100, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(data, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        int rc = MPI_Recv(data, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), cls, len;
        char text[MPI_MAX_ERROR_STRING];
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
        printf("rc is truncate: %d, text non-empty: %d, first ten intact: %d\n",
               cls == MPI_ERR_TRUNCATE, len > 0, data[9] == 9);
        /* The job must still work after the error. */
        rc = MPI_Recv(data, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        printf("next receive: rc %d count %d\n", rc, count);
        /* Invalid arguments are errors too, returned rather than fatal. */
        MPI_Error_class(MPI_Send(data, 1, MPI_INT, 99, 0, MPI_COMM_WORLD), &cls);
        printf("bad rank is MPI_ERR_RANK: %d\n", cls == MPI_ERR_RANK);
        MPI_Error_class(MPI_Send(data, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), &cls);
        printf("bad count is MPI_ERR_COUNT: %d\n", cls == MPI_ERR_COUNT);
        MPI_Error_class(MPI_Send(data, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), &cls);
        printf("bad tag is MPI_ERR_TAG: %d\n", cls == MPI_ERR_TAG);
        MPI_Error_class(MPI_Send(data, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), &cls);
        printf("bad type is MPI_ERR_TYPE: %d\n", cls == MPI_ERR_TYPE);
    }
    MPI_Finalize();
    return 0;
}
