/* MPI_Get_accumulate into derived target datatypes: MPI_SUM of 5 ints
 * into contiguous(5, MPI_INT) and into a type of 2 x contiguous(5)
 * (both side by side, no hole), and with the argument "vector" into
 * vector(5, 1, 2, MPI_INT) (holes). Rank 1 prints what it fetched, rank 0
 * its window: the same natively. Open MPI 4.1.4's osc/rdma answers such a
 * get-accumulate with garbage on a created or dynamic window (natively
 * too); its proxy makes the contiguous ones as MPI_INT elements and
 * refuses the vector by name (src/proxy/serve/serve_win.c, acc_types). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { SLOTS = 20 };

/* One line in one write: the native launcher forwards each rank's output
 * as it comes, and a line written in pieces was cut by another rank's. */
static void print_ints(const char *what, const int *v, int n)
{
    char line[512];
    int at = snprintf(line, sizeof line, "%s:", what);
    for (int i = 0; i < n && at < (int)sizeof line - 12; i++)
        at += snprintf(line + at, sizeof line - (size_t)at, " %d", v[i]);
    line[at++] = '\n'; /* (printf("%s\n") became puts: two writes where stdout is unbuffered) */
    fwrite(line, 1, (size_t)at, stdout);
    fflush(stdout);
}

static void fetch(MPI_Datatype target, int count, MPI_Win w, const char *what)
{
    int one[SLOTS], got[SLOTS];
    for (int i = 0; i < SLOTS; i++)
        one[i] = i + 1, got[i] = -1;
    int size;
    MPI_Type_size(target, &size);
    int n = count * size / (int)sizeof(int);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    MPI_Get_accumulate(one, n, MPI_INT, got, n, MPI_INT, 0, 0, count, target, MPI_SUM, w);
    MPI_Win_unlock(0, w);
    print_ints(what, got, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *t;
    MPI_Win w;
    MPI_Win_allocate(SLOTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &t, &w);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w);
    for (int i = 0; i < SLOTS; i++)
        t[i] = 100 * (i + 1);
    MPI_Win_unlock(rank, w);
    MPI_Datatype five, ten, strided;
    MPI_Type_contiguous(5, MPI_INT, &five);
    MPI_Type_commit(&five);
    MPI_Type_contiguous(2, five, &ten);
    MPI_Type_commit(&ten);
    MPI_Type_vector(5, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        fetch(five, 1, w, "contiguous(5) fetched");
        fetch(ten, 2, w, "2 x contiguous(2, contiguous(5)) fetched");
        if (argc > 1 && !strcmp(argv[1], "vector")) fetch(strided, 1, w, "vector(5, 1, 2) fetched");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) print_ints("window", t, SLOTS);
    MPI_Type_free(&five);
    MPI_Type_free(&ten);
    MPI_Type_free(&strided);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}
