/* Where errors of requests and matched messages go (2 ranks), under mpcr
 * only: the program checks itself and ends with "all checks hold".
 *
 *   request_errors handler     MPI_Start, MPI_Startall, MPI_Mrecv and
 *       MPI_Imrecv raise their errors on the communicator of the request or
 *       message (MPI 4.0 9.3), whose handler is a user one here while
 *       MPI_COMM_WORLD's stays MPI_ERRORS_ARE_FATAL. (MPICH 4.0.2 applies
 *       MPI_COMM_WORLD's handler to these and would end the job.)
 *   request_errors send-error  with MPCR_FAULT=send-error (the first send
 *       the proxy completes fails): an error of MPI_Isendrecv's send half is
 *       the request's error, reported by MPI_Wait; the next MPI_Isendrecv
 *       and MPI_Isendrecv_replace succeed. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, peer, failures;
static int handled_class, handled_on_comm;
static MPI_Comm comm; /* the communicator with the user handler */

static void check(int ok, const char *what)
{
    printf("rank %d: %s: %s\n", rank, what, ok ? "ok" : "FAILED");
    failures += !ok;
}

static void on_error(MPI_Comm *c, int *code, ...)
{
    MPI_Error_class(*code, &handled_class);
    handled_on_comm = *c == comm;
}

/* rc is MPI's return of a call whose error class must be want, raised on
 * comm's handler. */
static void expect_handled(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    char line[160];
    snprintf(line, sizeof line, "%s: class %d (want %d), the communicator's handler %d", what, cls,
             want, handled_on_comm && handled_class == want);
    check(cls == want && handled_on_comm && handled_class == want, line);
    handled_class = 0, handled_on_comm = 0;
}

static void handlers(void)
{
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);

    /* a persistent buffered send without a buffer attached: MPI_ERR_BUFFER at its start */
    int v[4] = {1, 2, 3, 4}, w[4];
    MPI_Request rq, rqs[1];
    MPI_Bsend_init(v, 4, MPI_INT, peer, 1, comm, &rq);
    expect_handled(MPI_Start(&rq), MPI_ERR_BUFFER, "MPI_Start");
    rqs[0] = rq;
    expect_handled(MPI_Startall(1, rqs), MPI_ERR_BUFFER, "MPI_Startall");
    MPI_Request_free(&rq);

    /* a matched message larger than the buffer: MPI_ERR_TRUNCATE */
    MPI_Message msg;
    MPI_Status st;
    MPI_Send(v, 4, MPI_INT, peer, 2, comm);
    MPI_Mprobe(peer, 2, comm, &msg, &st);
    expect_handled(MPI_Mrecv(w, 1, MPI_INT, &msg, &st), MPI_ERR_TRUNCATE, "MPI_Mrecv");
    check(msg == MPI_MESSAGE_NULL && w[0] == 1, "MPI_Mrecv: message consumed, first int received");
    MPI_Send(v, 4, MPI_INT, peer, 3, comm);
    MPI_Mprobe(peer, 3, comm, &msg, &st);
    int rc = MPI_Imrecv(w, 1, MPI_INT, &msg, &rq);
    check(rc == MPI_SUCCESS, "MPI_Imrecv starts");
    expect_handled(MPI_Wait(&rq, &st), MPI_ERR_TRUNCATE, "MPI_Imrecv+MPI_Wait");
    MPI_Comm_free(&comm);
}

static void send_error(void)
{
    /* no collective before: the first send the proxy completes is the send half below */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int v = rank + 10, w = -1, cls;
    MPI_Request rq;
    MPI_Status st;
    MPI_Isendrecv(&v, 1, MPI_INT, peer, 4, &w, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq);
    MPI_Error_class(MPI_Wait(&rq, &st), &cls);
    char line[120];
    snprintf(line, sizeof line, "MPI_Isendrecv+MPI_Wait, the send failing: class %d (want %d)", cls,
             MPI_ERR_OTHER);
    check(cls == MPI_ERR_OTHER, line);
    check(w == peer + 10 && st.MPI_SOURCE == peer && st.MPI_TAG == 4,
          "MPI_Isendrecv: the receive half's data and status");
    w = -1;
    MPI_Isendrecv(&v, 1, MPI_INT, peer, 5, &w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq);
    check(MPI_Wait(&rq, &st) == MPI_SUCCESS && w == peer + 10, "a second MPI_Isendrecv");
    int x = rank + 20, flag = 0;
    MPI_Isendrecv_replace(&x, 1, MPI_INT, peer, 6, peer, 6, MPI_COMM_WORLD, &rq);
    while (!flag)
        if (MPI_Test(&rq, &flag, &st) != MPI_SUCCESS) break;
    check(flag && x == peer + 20, "MPI_Isendrecv_replace+MPI_Test");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    if (argc > 1 && !strcmp(argv[1], "handler"))
        handlers();
    else if (argc > 1 && !strcmp(argv[1], "send-error"))
        send_error();
    else
        check(0, "usage: request_errors handler|send-error");
    MPI_Barrier(MPI_COMM_WORLD);
    if (!failures) printf("rank %d: all checks hold\n", rank);
    MPI_Finalize();
    return failures != 0;
}
