/* Completing several requests at once: MPI_Waitany, MPI_Testany,
 * MPI_Waitsome, MPI_Testsome, MPI_Testall over arrays that mix pending
 * receives and sends, MPI_REQUEST_NULL entries and requests whose peer is
 * MPI_PROC_NULL. The order of completion may differ between runs, so only
 * what does not depend on it is printed. */
#include "out.h"
#include <mpi.h>

#define N 8

/* Posts N receives from the left neighbour (two with MPI_PROC_NULL) and N
 * sends to the right one; entry 3 is MPI_REQUEST_NULL. */
static void post(MPI_Request rq[2 * N], int in[N], int out[N], int round)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < N; i++) {
        in[i] = -1;
        out[i] = rank * 1000 + round * 10 + i;
        int src = i == 5 || i == 6 ? MPI_PROC_NULL : prev;
        MPI_Irecv(&in[i], 1, MPI_INT, src, i, MPI_COMM_WORLD, &rq[i]);
    }
    for (int i = N - 1; i >= 0; i--) {
        int dest = i == 5 || i == 6 ? MPI_PROC_NULL : next;
        MPI_Isend(&out[i], 1, MPI_INT, dest, i, MPI_COMM_WORLD, &rq[N + i]);
    }
}

static long sum_of(const int in[N])
{
    long s = 0;
    for (int i = 0; i < N; i++)
        s += in[i];
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, in[N], out[N], done, idx, flag, outcount, indices[2 * N];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request rq[2 * N];
    MPI_Status st, sts[2 * N];

    /* Waitany until nothing is active. */
    post(rq, in, out, 1);
    MPI_Request keep = rq[3];
    MPI_Wait(&keep, MPI_STATUS_IGNORE); /* entry 3 completed elsewhere: now a null request */
    rq[3] = MPI_REQUEST_NULL;
    in[3] = -1;
    int tags = 0;
    for (done = 0;; done++) {
        MPI_Waitany(2 * N, rq, &idx, &st);
        if (idx == MPI_UNDEFINED) break;
        if (idx < N && st.MPI_SOURCE != MPI_PROC_NULL) tags += st.MPI_TAG;
    }
    out("rank %d waitany: %d completions, sum %ld, tags %d\n", rank, done, sum_of(in), tags);

    /* Testany polling. */
    post(rq, in, out, 2);
    for (done = 0;;) {
        MPI_Testany(2 * N, rq, &idx, &flag, &st);
        if (flag && idx == MPI_UNDEFINED) break;
        if (flag) done++;
    }
    out("rank %d testany: %d completions, sum %ld\n", rank, done, sum_of(in));

    /* Waitsome, then Testsome, until nothing is active. */
    post(rq, in, out, 3);
    for (done = 0;;) {
        MPI_Waitsome(2 * N, rq, &outcount, indices, sts);
        if (outcount == MPI_UNDEFINED) break;
        done += outcount;
    }
    out("rank %d waitsome: %d completions, sum %ld\n", rank, done, sum_of(in));
    post(rq, in, out, 4);
    for (done = 0;;) {
        MPI_Testsome(2 * N, rq, &outcount, indices, sts);
        if (outcount == MPI_UNDEFINED) break;
        for (int k = 0; k < outcount; k++)
            if (rq[indices[k]] != MPI_REQUEST_NULL) out("request %d not freed\n", indices[k]);
        done += outcount;
    }
    out("rank %d testsome: %d completions, sum %ld\n", rank, done, sum_of(in));

    /* Testall: nothing is completed until everything is. */
    post(rq, in, out, 5);
    int polls = 0;
    do {
        MPI_Testall(2 * N, rq, &flag, sts);
        polls++;
        if (!flag)
            for (int i = 0; i < 2 * N; i++)
                if (rq[i] == MPI_REQUEST_NULL) out("testall freed request %d early\n", i);
    } while (!flag);
    int nulls = 0;
    for (int i = 0; i < 2 * N; i++)
        nulls += rq[i] == MPI_REQUEST_NULL;
    /* (MPICH 4.0.2 leaves the status of an MPI_PROC_NULL Irecv unset: not compared.) */
    out("rank %d testall: all %d requests freed %d, sum %ld\n", rank, 2 * N, nulls == 2 * N,
        sum_of(in));
    out_flush();
    MPI_Finalize();
    return 0;
}
