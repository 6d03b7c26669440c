/* Posts queued by mpcr's library (src/lib/runtime/post_queue.c: MPI_Isend,
 * MPI_Irecv and MPI_Start(all) return before the proxy has their start)
 * meet every other kind of call, and the program sees what MPI says it
 * sees: 2 ranks, the output compared with native MPICH's.
 *   0. grown: an Irecv of 4 MiB queued, then an Isend of 4 MiB whose room
 *      grows the staging area (the queue is handed over first; the
 *      allocator is not re-entered), both ways, every word checked;
 *   1. order: Isend, Isend, Send, Isend, Bsend, Issend, Irsend of one tag
 *      arrive in that order (every call between hands the queue over);
 *   2. many: 150 Isend and 150 Irecv (more than one IBATCH's 64) over 7
 *      tags, each value checked;
 *   3. a queued Isend freed at once (MPI_Request_free) is still delivered;
 *   4. a queued Irecv cancelled before any message: cancelled;
 *   5. MPI_Isendrecv and MPI_Isendrecv_replace;
 *   6. an Isend found by the receiver's MPI_Iprobe loop, then received;
 *   7. persistent requests started one at a time (MPI_Start), 5 rounds;
 *   8. an Irecv completed by an MPI_Test loop, and MPI_Request_get_status;
 *   9. Waitany, Testany, Waitsome, Testsome, Testall over receives whose
 *      starts are queued (each carried by the call that names them).
 * (Wait and Waitall name queued requests all through: MPI_Wait, MPI_Test
 * and their kin carry the queue, the others hand it over at their entry.)
 * Each check prints a line; rank 1 prints the values it received. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MANY 150

static int rank;

static void expect(const char *what, long got, long want)
{
    printf("rank %d: %s: %ld%s\n", rank, what, got, got == want ? "" : " (WRONG)");
}

static void grown(void)
{
    enum { WORDS = 1 << 19 }; /* 4 MiB of uint64_t */
    uint64_t *out = malloc(WORDS * sizeof *out), *in = malloc(WORDS * sizeof *in);
    for (long i = 0; i < WORDS; i++)
        out[i] = (uint64_t)i * 2654435761u + (uint64_t)rank, in[i] = 0;
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Irecv(in, WORDS, MPI_UINT64_T, 1 - rank, 20, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, WORDS, MPI_UINT64_T, 1 - rank, 20, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, st);
    long wrong = 0;
    for (long i = 0; i < WORDS; i++)
        wrong += in[i] != (uint64_t)i * 2654435761u + (uint64_t)(1 - rank);
    expect("grown: wrong words", wrong, 0);
    free(out), free(in);
}

static void order(void)
{
    static char bsend_buf[1024];
    int v[7] = {1, 2, 3, 4, 5, 6, 7}, got[7];
    MPI_Request rq[5];
    MPI_Status st[5];
    if (rank == 0) {
        MPI_Buffer_attach(bsend_buf, sizeof bsend_buf);
        MPI_Isend(&v[0], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(&v[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Send(&v[2], 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Isend(&v[3], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[2]);
        MPI_Bsend(&v[4], 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Issend(&v[5], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[3]);
        MPI_Irsend(&v[6], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[4]);
        MPI_Waitall(5, rq, st);
        void *b;
        int size;
        MPI_Buffer_detach(&b, &size);
    } else {
        for (int i = 0; i < 7; i++)
            MPI_Recv(&got[i], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 7; i++)
            expect("order", got[i], v[i]);
    }
}

static void many(void)
{
    static int vals[MANY], got[MANY];
    static MPI_Request rq[MANY];
    static MPI_Status st[MANY];
    for (int i = 0; i < MANY; i++) {
        vals[i] = i * 31 + 7, got[i] = -1;
        if (rank == 0)
            MPI_Isend(&vals[i], 1, MPI_INT, 1, i % 7, MPI_COMM_WORLD, &rq[i]);
        else
            MPI_Irecv(&got[i], 1, MPI_INT, 0, i % 7, MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Waitall(MANY, rq, st);
    if (rank == 1) {
        long wrong = 0, sum = 0;
        for (int i = 0; i < MANY; i++) {
            wrong += got[i] != vals[i] || st[i].MPI_TAG != i % 7 || st[i].MPI_SOURCE != 0;
            sum += got[i];
        }
        expect("many: wrong values", wrong, 0);
        expect("many: sum", sum, 31L * MANY * (MANY - 1) / 2 + 7L * MANY);
    }
}

static void freed(void)
{
    int v = 42, got = 0;
    MPI_Request rq;
    if (rank == 0) {
        MPI_Isend(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq);
        MPI_Request_free(&rq);
        expect("freed: handle is MPI_REQUEST_NULL", rq == MPI_REQUEST_NULL, 1);
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect("freed: received", got, 42);
    }
}

static void cancelled(void)
{
    int got = 0, flag = 0;
    MPI_Request rq;
    MPI_Status st;
    MPI_Irecv(&got, 1, MPI_INT, 1 - rank, 77, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    expect("cancelled", flag, 1);
}

static void isendrecv(void)
{
    int mine = 100 + rank, theirs = -1, buf = 200 + rank;
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Isendrecv(&mine, 1, MPI_INT, 1 - rank, 3, &theirs, 1, MPI_INT, 1 - rank, 3,
                  MPI_COMM_WORLD, &rq[0]);
    MPI_Isendrecv_replace(&buf, 1, MPI_INT, 1 - rank, 4, 1 - rank, 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, st);
    expect("isendrecv", theirs, 101 - rank);
    expect("isendrecv_replace", buf, 201 - rank);
}

static void probed(void)
{
    int v = 5150, got = 0, flag = 0, count = 0;
    MPI_Request rq;
    MPI_Status st;
    if (rank == 0) {
        MPI_Isend(&v, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        while (!flag)
            MPI_Iprobe(0, 11, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_Recv(&got, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect("probed: count", count, 1);
        expect("probed: received", got, 5150);
    }
}

static void persistent(void)
{
    int v = 0, got = -1;
    long sum = 0;
    MPI_Request rq;
    if (rank == 0)
        MPI_Send_init(&v, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &rq);
    else
        MPI_Recv_init(&got, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &rq);
    for (int round = 1; round <= 5; round++) {
        v = round * 11;
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        sum += got;
    }
    MPI_Request_free(&rq);
    if (rank == 1) expect("persistent: sum of 5 rounds", sum, 11 * 15);
}

static void tested(void)
{
    int v = 6, got = 0, flag = 0;
    MPI_Request rq;
    MPI_Status st;
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 13, MPI_COMM_WORLD);
        MPI_Isend(&v, 1, MPI_INT, 1, 14, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Irecv(&got, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, &rq);
    while (!flag)
        MPI_Test(&rq, &flag, &st);
    expect("tested: received", got, 6);
    MPI_Irecv(&got, 1, MPI_INT, 0, 14, MPI_COMM_WORLD, &rq);
    for (flag = 0; !flag;)
        MPI_Request_get_status(rq, &flag, &st);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    expect("get_status: tag", st.MPI_TAG, 14);
}

static void any_some(void)
{
    int got[3] = {-1, -1, -1}, idx = -1, n = 0, flag = 0, go = 1, done = 0, dummy;
    int idxs[3];
    MPI_Request rq[3];
    MPI_Status st[3];
    if (rank == 0) {
        int v[3] = {300, 310, 320};
        MPI_Send(&v[1], 1, MPI_INT, 1, 31, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_INT, 1, 39, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v[0], 1, MPI_INT, 1, 30, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_INT, 1, 39, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v[2], 1, MPI_INT, 1, 32, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_INT, 1, 39, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v[0], 1, MPI_INT, 1, 33, MPI_COMM_WORLD);
        MPI_Send(&v[1], 1, MPI_INT, 1, 34, MPI_COMM_WORLD);
        MPI_Send(&v[2], 1, MPI_INT, 1, 35, MPI_COMM_WORLD);
        return;
    }
    for (int i = 0; i < 3; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, 0, 30 + i, MPI_COMM_WORLD, &rq[i]);
    MPI_Waitany(3, rq, &idx, &st[0]); /* only tag 31 was sent */
    expect("waitany: index", idx, 1);
    MPI_Send(&go, 1, MPI_INT, 0, 39, MPI_COMM_WORLD);
    for (flag = 0; !flag;)
        MPI_Testany(3, rq, &idx, &flag, &st[0]);
    expect("testany: index", idx, 0);
    MPI_Send(&go, 1, MPI_INT, 0, 39, MPI_COMM_WORLD);
    MPI_Waitsome(3, rq, &n, idxs, st);
    expect("waitsome: count", n, 1);
    expect("waitsome: index", idxs[0], 2);
    expect("any/some: values", got[0] + got[1] + got[2], 930);
    MPI_Send(&go, 1, MPI_INT, 0, 39, MPI_COMM_WORLD);
    MPI_Irecv(&got[0], 1, MPI_INT, 0, 33, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, 0, 34, MPI_COMM_WORLD, &rq[1]);
    while (done < 2) {
        MPI_Testsome(2, rq, &n, idxs, st);
        done += n == MPI_UNDEFINED ? 0 : n;
    }
    expect("testsome: values", got[0] + got[1], 610);
    MPI_Irecv(&dummy, 1, MPI_INT, 0, 35, MPI_COMM_WORLD, &rq[0]);
    for (flag = 0; !flag;)
        MPI_Testall(1, rq, &flag, st);
    expect("testall: value", dummy, 320);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank) fprintf(stderr, "usage: mpiexec -n 2 post_queue\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    grown();
    order();
    many();
    freed();
    cancelled();
    isendrecv();
    probed();
    persistent();
    tested();
    any_some();
    MPI_Finalize();
    return 0;
}
