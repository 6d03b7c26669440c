/* The seed of fuzz_state: one rank whose proxy has something of every kind
 * to save when a checkpoint lands: communicators made (a dup, a split),
 * receives posted and not matched (saved requests), messages sent to
 * itself and not received (the drain takes them into the cache), a file
 * open (STATE_SEED_FILE: run.sh names one in its scratch directory) with
 * hints, a view of a derived filetype, atomicity and a pointer, two
 * windows (allocated, created: their memory attached at the proxy). It says
 * "ready" and waits up to 60 s for `mpcr checkpoint --exit`; run to its
 * end, it receives everything and says "state_seed rank 0: done". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &split);
    int in[4] = {0}, out[4] = {1, 2, 3, 4}, got[2] = {0};
    MPI_Request r[4];
    MPI_Irecv(&in[0], 1, MPI_INT, 0, 10, dup, &r[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, 0, 11, split, &r[1]);
    MPI_Isend(&out[2], 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&out[3], 1, MPI_INT, 0, 21, dup, &r[3]);
    const char *path = getenv("STATE_SEED_FILE");
    MPI_File fh = MPI_FILE_NULL;
    if (path) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "access_style", "write_once");
        MPI_Datatype vec;
        MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int data[16] = {0};
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) ||
            MPI_File_set_view(fh, 8, MPI_INT, vec, "native", info) ||
            MPI_File_write(fh, data, 16, MPI_INT, MPI_STATUS_IGNORE) ||
            MPI_File_set_atomicity(fh, 1))
            printf("the file could not be opened and written\n");
        MPI_Info_free(&info);
        MPI_Type_free(&vec);
    }
    MPI_Win wa, wb;
    int *wmem, wbuf[64] = {0};
    MPI_Win_allocate(5000 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &wa);
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wb);
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 600; i++)
        usleep(100000);
    MPI_Send(&out[0], 1, MPI_INT, 0, 10, dup);
    MPI_Send(&out[1], 1, MPI_INT, 0, 11, split);
    MPI_Recv(&got[0], 1, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&got[1], 1, MPI_INT, 0, 21, dup, MPI_STATUS_IGNORE);
    MPI_Status st[4];
    MPI_Waitall(4, r, st);
    printf("state_seed rank 0: %s\n", in[0] == 1 && in[1] == 2 && got[0] == 3 && got[1] == 4 ? "done" : "wrong");
    if (fh != MPI_FILE_NULL) MPI_File_close(&fh);
    MPI_Win_free(&wa);
    MPI_Win_free(&wb);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    MPI_Finalize();
    return 0;
}
