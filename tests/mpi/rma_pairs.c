/* One-sided operations on the pair types with a hole (MPI_SHORT_INT,
 * MPI_LONG_INT: the int after padding, or padding at the end; size 6 and
 * 12, extent 8 and 16): MPI_Accumulate with MPI_REPLACE, then
 * MPI_Get_accumulate and MPI_Fetch_and_op with MPI_NO_OP read them back.
 * The library hands the proxy their bytes packed; the proxy lays them out
 * at the type's extent for the real MPI and packs the results back
 * (src/proxy/serve/serve_win.c). Rank 1 prints what it read, rank 0 its
 * window: the same natively. With the argument "maxloc", MPI_MAXLOC
 * accumulates follow (a tie included), of MPI_LONG_INT then of
 * MPI_SHORT_INT ("maxloc_long": MPI_LONG_INT only); Open MPI's proxy makes
 * the first and refuses the second by name (Open MPI 4.1.4's osc/rdma
 * garbles both on created and dynamic windows, natively too;
 * docs/one-sided.md). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    short a;
    int b;
} short_int;
typedef struct {
    long a;
    int b;
} long_int;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    short_int *s;
    long_int *l;
    MPI_Win ws, wl;
    MPI_Win_allocate(4 * sizeof *s, sizeof *s, MPI_INFO_NULL, MPI_COMM_WORLD, &s, &ws);
    MPI_Win_allocate(4 * sizeof *l, sizeof *l, MPI_INFO_NULL, MPI_COMM_WORLD, &l, &wl);
    for (int i = 0; i < 4; i++)
        s[i].a = -1, s[i].b = -1, l[i].a = -1, l[i].b = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        short_int so[4], sr[4], sf;
        long_int lo[4], lr[4], lf;
        for (int i = 0; i < 4; i++)
            so[i].a = (short)(10 + i), so[i].b = 100 + i, lo[i].a = 1000000000000l + i,
            lo[i].b = 200 + i;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ws);
        MPI_Accumulate(so, 4, MPI_SHORT_INT, 0, 0, 4, MPI_SHORT_INT, MPI_REPLACE, ws);
        MPI_Win_flush(0, ws);
        MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, sr, 4, MPI_SHORT_INT, 0, 0, 4, MPI_SHORT_INT,
                           MPI_NO_OP, ws);
        MPI_Fetch_and_op(NULL, &sf, MPI_SHORT_INT, 0, 2, MPI_NO_OP, ws);
        MPI_Win_unlock(0, ws);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wl);
        MPI_Accumulate(lo, 4, MPI_LONG_INT, 0, 0, 4, MPI_LONG_INT, MPI_REPLACE, wl);
        MPI_Win_flush(0, wl);
        MPI_Get_accumulate(NULL, 0, MPI_LONG_INT, lr, 4, MPI_LONG_INT, 0, 0, 4, MPI_LONG_INT,
                           MPI_NO_OP, wl);
        MPI_Fetch_and_op(NULL, &lf, MPI_LONG_INT, 0, 3, MPI_NO_OP, wl);
        MPI_Win_unlock(0, wl);
        for (int i = 0; i < 4; i++)
            printf("read %d: %d %d, %ld %d\n", i, sr[i].a, sr[i].b, lr[i].a, lr[i].b);
        printf("fetched: %d %d, %ld %d\n", sf.a, sf.b, lf.a, lf.b);
        fflush(stdout);
        int both = argc > 1 && !strcmp(argv[1], "maxloc");
        if (both || (argc > 1 && !strcmp(argv[1], "maxloc_long"))) {
            /* the windows hold (10 + i, 100 + i) and (10^12 + i, 200 + i): the origin's
               11 and 10^12 + 1 win below, tie at 11 and 10^12 + 1, lose above */
            for (int i = 0; i < 4; i++)
                so[i].a = 11, so[i].b = 50 + i, lo[i].a = 1000000000001l, lo[i].b = 60 + i;
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wl);
            MPI_Accumulate(lo, 4, MPI_LONG_INT, 0, 0, 4, MPI_LONG_INT, MPI_MAXLOC, wl);
            MPI_Win_unlock(0, wl);
        }
        if (both) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ws);
            MPI_Accumulate(so, 4, MPI_SHORT_INT, 0, 0, 4, MPI_SHORT_INT, MPI_MAXLOC, ws);
            MPI_Win_unlock(0, ws);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            printf("window %d: %d %d, %ld %d\n", i, s[i].a, s[i].b, l[i].a, l[i].b);
    MPI_Win_free(&ws);
    MPI_Win_free(&wl);
    MPI_Finalize();
    return 0;
}
