/* A send's status after its completion, compared with a native MPICH run
 * (2 ranks). MPI leaves a send's source, tag and count undefined; MPICH
 * sets only the cancelled bit and leaves the rest as the program had it,
 * and programs rely on that: MPICH's f77 test irsendf completes a send and
 * a receive with two MPI_Waitany into one status and checks the receive's
 * values after the second. So every completion form here runs on a status
 * filled beforehand (source 77, tag 88, 99 bytes, cancelled), and prints
 * what the send left there; the receives beside them print their own. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "out.h"

static int rank, peer;

static void prefill(MPI_Status *st)
{
    st->MPI_SOURCE = 77, st->MPI_TAG = 88;
    MPI_Status_set_elements(st, MPI_BYTE, 99);
    MPI_Status_set_cancelled(st, 1);
}

static void show(const char *what, const MPI_Status *st)
{
    int bytes, cancelled;
    MPI_Get_count(st, MPI_BYTE, &bytes);
    MPI_Test_cancelled(st, &cancelled);
    out("%s: source %d, tag %d, %d bytes, cancelled %d\n", what, st->MPI_SOURCE, st->MPI_TAG, bytes,
        cancelled);
}

/* A send of one int with tag started by start() and completed by MPI_Wait,
 * the peer's receive posted before. */
static void one_send(const char *what, int tag, int dest,
                     int (*start)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                                  MPI_Request *))
{
    int v = rank + tag, w = -1;
    MPI_Request rq, rrq;
    MPI_Status st;
    MPI_Irecv(&w, 1, MPI_INT, dest, tag, MPI_COMM_WORLD, &rrq);
    start(&v, 1, MPI_INT, dest, tag, MPI_COMM_WORLD, &rq);
    prefill(&st);
    MPI_Wait(&rq, &st);
    show(what, &st);
    MPI_Wait(&rrq, MPI_STATUS_IGNORE);
}

static void single_forms(void)
{
    one_send("isend+wait", 1, peer, MPI_Isend);
    one_send("issend+wait", 2, peer, MPI_Issend);
    one_send("isend to PROC_NULL+wait", 3, MPI_PROC_NULL, MPI_Isend);
    int size = 1000;
    char *buf = malloc((size_t)size);
    MPI_Buffer_attach(buf, size);
    one_send("ibsend+wait", 4, peer, MPI_Ibsend);
    MPI_Buffer_detach(&buf, &size);
    free(buf);

    int v = rank, w = -1, flag = 0;
    MPI_Request rq;
    MPI_Status st;
    MPI_Isend(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq);
    MPI_Recv(&w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    prefill(&st);
    while (!flag)
        MPI_Test(&rq, &flag, &st);
    show("isend+test", &st);

    MPI_Isend(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &rq);
    MPI_Recv(&w, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (flag = 0; !flag;) {
        prefill(&st);
        MPI_Request_get_status(rq, &flag, &st);
    }
    show("isend+request_get_status", &st);
    prefill(&st);
    MPI_Wait(&rq, &st);
    show("isend+request_get_status+wait", &st);

    /* persistent: active, then inactive (an empty status) */
    MPI_Send_init(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq);
    MPI_Start(&rq);
    prefill(&st);
    MPI_Wait(&rq, &st);
    show("send_init+start+wait", &st);
    MPI_Recv(&w, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    prefill(&st);
    MPI_Wait(&rq, &st);
    show("send_init inactive+wait", &st);
    MPI_Request_free(&rq);
}

/* irsendf's pattern: a receive and a ready send, completed by two
 * MPI_Waitany into one status; after both, the status is the receive's
 * whichever completed first. */
static void waitany_shared_status(void)
{
    int v = rank + 100, w = -1, idx, seen_recv = 0;
    MPI_Request rq[2];
    MPI_Status st;
    MPI_Irecv(&w, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irsend(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq[0]);
    prefill(&st);
    for (int i = 0; i < 2; i++) {
        MPI_Waitany(2, rq, &idx, &st);
        seen_recv |= idx == 1;
    }
    show(seen_recv ? "irsend+irecv, waitany twice (the receive's)" : "waitany: no receive", &st);
    out("received %d\n", w);
}

/* The several-request forms: a send's status keeps its prefill, the
 * receive's beside it is the receive's. */
static void several_forms(void)
{
    int v = rank, w = -1, n, idx[2], flag = 0;
    MPI_Request rq[2];
    MPI_Status sts[2];
    for (int form = 0; form < 3; form++) {
        static const char *names[] = {"waitall", "testall", "waitsome"};
        MPI_Irecv(&w, 1, MPI_INT, peer, 9 + form, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(&v, 1, MPI_INT, peer, 9 + form, MPI_COMM_WORLD, &rq[0]);
        prefill(&sts[0]), prefill(&sts[1]);
        char what[64];
        if (form == 0) {
            MPI_Waitall(2, rq, sts);
        } else if (form == 1) {
            for (flag = 0; !flag;)
                MPI_Testall(2, rq, &flag, sts);
        } else {
            for (int done = 0; done < 2; done += n) {
                MPI_Status one[2];
                prefill(&one[0]), prefill(&one[1]);
                MPI_Waitsome(2, rq, &n, idx, one);
                for (int i = 0; i < n; i++)
                    sts[idx[i]] = one[i];
            }
        }
        snprintf(what, sizeof what, "%s: the send", names[form]);
        show(what, &sts[0]);
        snprintf(what, sizeof what, "%s: the receive", names[form]);
        show(what, &sts[1]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    single_forms();
    waitany_shared_status();
    several_forms();
    out_flush();
    MPI_Finalize();
    return 0;
}
