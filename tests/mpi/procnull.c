/* MPI_PROC_NULL as peer of every point-to-point call: the calls succeed at
 * once, receives leave the buffer alone and report source MPI_PROC_NULL,
 * tag MPI_ANY_TAG, count 0 (MPI 4.0, section 3.11).
 * MPICH 4.0.2 itself leaves source and tag of MPI_Irecv+MPI_Wait unset, so
 * that line is printed only with the argument "strict" (mpcr-only test). */
#include <mpi.h>
#include <stdio.h>

static void show(const char *what, const MPI_Status *st)
{
    int count;
    MPI_Get_count(st, MPI_INT, &count);
    printf("%s: source is PROC_NULL %d, tag is ANY_TAG %d, count %d\n", what,
           st->MPI_SOURCE == MPI_PROC_NULL, st->MPI_TAG == MPI_ANY_TAG, count);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, buf[4] = {7, 7, 7, 7}, flag = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Status st;
    MPI_Request rq;
    MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    if (rank == 0) show("recv", &st);
    MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    if (rank == 0) show("probe", &st);
    MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st);
    if (rank == 0) show(flag ? "iprobe (flag set)" : "iprobe (NO FLAG)", &st);
    MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    if (rank == 0 && argc > 1) show("irecv+wait", &st);
    MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq);
    MPI_Test(&rq, &flag, &st);
    if (rank == 0)
        printf("isend+test: flag %d, request null %d, buffer intact %d\n", flag,
               rq == MPI_REQUEST_NULL, buf[0] == 7 && buf[3] == 7);
    MPI_Finalize();
    return 0;
}
