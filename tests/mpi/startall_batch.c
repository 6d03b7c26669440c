/* MPI_Startall over many persistent requests of every kind, which mpcr
 * posts in batches of up to 64 (src/lib/pt2pt/persistent.c): 100 requests a rank
 * (receives of a contiguous and of a vector type, standard, synchronous
 * and buffered sends, MPI_PROC_NULL peers) started by one call, three
 * times with new contents, every received value checked; 2 ranks, the
 * output compared with native MPICH's.
 *   startall_batch errors   then also (mpcr only: MPICH 4.0.2 starts a
 *                           request named twice) a request named twice and
 *                           an active one, each refused with MPI_ERR_REQUEST
 *                           before anything starts; prints
 *                           "startall errors: PASS" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI_Startall(n, rq) is refused with MPI_ERR_REQUEST: 1, else 0. */
static int refused(int n, MPI_Request *rq)
{
    int rc = MPI_Startall(n, rq), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls == MPI_ERR_REQUEST;
}

enum { PAIRS = 48, N = 2 * PAIRS + 4, LEN = 40 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setvbuf(stdout, NULL, _IONBF, 0); /* lines written before an abort are seen */
    int peer = 1 - rank;
    static int out[PAIRS][LEN], in[PAIRS][2 * LEN], nul[LEN];
    static MPI_Status st[N]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
    MPI_Datatype every_other; /* a receive that unpacks into a strided layout */
    MPI_Type_vector(LEN, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int bsize = 2 * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);

    MPI_Request rq[N];
    int n = 0;
    for (int k = 0; k < PAIRS; k++) {
        if (k % 3 == 0)
            MPI_Recv_init(in[k], 1, every_other, peer, k, MPI_COMM_WORLD, &rq[n++]);
        else
            MPI_Recv_init(in[k], LEN, MPI_INT, peer, k, MPI_COMM_WORLD, &rq[n++]);
        if (k == 5)
            MPI_Bsend_init(out[k], LEN, MPI_INT, peer, k, MPI_COMM_WORLD, &rq[n++]);
        else if (k % 7 == 1)
            MPI_Ssend_init(out[k], LEN, MPI_INT, peer, k, MPI_COMM_WORLD, &rq[n++]);
        else
            MPI_Send_init(out[k], LEN, MPI_INT, peer, k, MPI_COMM_WORLD, &rq[n++]);
    }
    for (int k = 0; k < 2; k++) {
        MPI_Send_init(nul, LEN, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[n++]);
        MPI_Recv_init(nul, LEN, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[n++]);
    }

    long bad = 0, sum = 0;
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < PAIRS; k++)
            for (int i = 0; i < LEN; i++)
                out[k][i] = round * 100000 + rank * 10000 + k * 100 + i;
        MPI_Startall(n, rq);
        MPI_Waitall(n, rq, st);
        for (int k = 0; k < PAIRS; k++)
            for (int i = 0; i < LEN; i++) {
                int got = k % 3 == 0 ? in[k][2 * i] : in[k][i];
                bad += got != round * 100000 + peer * 10000 + k * 100 + i;
                sum += got;
            }
    }
    printf("rank %d: %d requests, 3 rounds, %ld values wrong, sum %ld\n", rank, n, bad, sum);

    if (argc > 1 && strcmp(argv[1], "errors") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Request twice[3] = {rq[0], rq[1], rq[0]};
        int ok = refused(3, twice);
        MPI_Start(&rq[0]); /* the receive of pair 0 active, the rest inactive */
        ok &= refused(n, rq);
        MPI_Start(&rq[1]); /* its partner's send: the pair completes, nothing else was started */
        MPI_Waitall(2, rq, st);
        ok &= in[0][0] == 200000 + peer * 10000;
        printf("rank %d: startall errors: %s\n", rank, ok ? "PASS" : "FAIL");
    }

    for (int i = 0; i < n; i++)
        MPI_Request_free(&rq[i]);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    MPI_Type_free(&every_other);
    MPI_Finalize();
    return 0;
}
