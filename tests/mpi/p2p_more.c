/* The point-to-point chapter beyond send and receive, compared with a
 * native MPICH run (2 ranks): synchronous and ready sends, Sendrecv_replace,
 * MPI_Request_get_status, MPI_Cancel (unmatched and matched receives, a
 * send), MPI_Request_free of active requests, element counts and status
 * setters, persistent requests of every kind, buffered sends (room, errors,
 * detach), matched probes, generalized requests, and some _c forms. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "out.h"

static int rank, peer;
static MPI_Status sts[4]; /* MPI_STATUSES_IGNORE makes gcc warn about the arrays */

static void sync_sends(void)
{
    int v[4] = {rank, rank + 10, rank + 20, rank + 30}, w[4] = {0};
    MPI_Request rq[2];
    MPI_Status st;
    MPI_Irecv(w, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Issend(v, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    out("issend: %d %d %d %d\n", w[0], w[1], w[2], w[3]);
    /* a ready send: the receive is posted before the barrier */
    MPI_Irecv(w, 4, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(v, 2, MPI_INT, peer, 2, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    out("rsend: %d ints, %d %d, tag %d\n", n, w[0], w[1], st.MPI_TAG);
    MPI_Irecv(w, 4, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irsend_c(v, 3, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    out("irsend_c: %d %d %d\n", w[0], w[1], w[2]);
    if (rank == 0) MPI_Ssend_c(v, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
    MPI_Recv(w, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &st);
    if (rank == 1) MPI_Ssend_c(v, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
    out("ssend_c: %d\n", w[0]);
}

static void replace(void)
{
    double d[3] = {rank + 0.5, rank + 1.5, rank + 2.5};
    MPI_Status st;
    MPI_Sendrecv_replace(d, 3, MPI_DOUBLE, peer, 5, peer, 5, MPI_COMM_WORLD, &st);
    out("sendrecv_replace: %.1f %.1f %.1f from %d\n", d[0], d[1], d[2], st.MPI_SOURCE);
    MPI_Datatype vec; /* every other double */
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    d[0] = rank, d[1] = -1, d[2] = rank + 100;
    MPI_Sendrecv_replace_c(d, 1, vec, peer, 6, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    out("sendrecv_replace_c vector: %.1f %.1f %.1f\n", d[0], d[1], d[2]);
    MPI_Type_free(&vec);
    MPI_Request rq;
    double e[2] = {rank * 10.0, rank * 10.0 + 1}, f[2] = {0};
    MPI_Isendrecv(e, 2, MPI_DOUBLE, peer, 7, f, 2, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    out("isendrecv: %.1f %.1f from %d\n", f[0], f[1], st.MPI_SOURCE); /* MPICH: a wrong tag */
    MPI_Isendrecv_replace_c(f, 2, MPI_DOUBLE, peer, 8, peer, 8, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    out("isendrecv_replace_c: %.1f %.1f\n", f[0], f[1]);
    int x = 7;
    MPI_Sendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    out("sendrecv_replace proc_null: %d source %d\n", x, st.MPI_SOURCE == MPI_PROC_NULL);
}

static void status_and_cancel(void)
{
    int w[8] = {0}, v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, flag = 0, c;
    MPI_Request rq;
    MPI_Status st;
    /* get_status until done, then Wait: the same message */
    MPI_Irecv(w, 8, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq);
    MPI_Send(v, 5, MPI_INT, peer, 7, MPI_COMM_WORLD);
    while (!flag)
        MPI_Request_get_status(rq, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    out("get_status: count %d source %d request still there %d\n", c, st.MPI_SOURCE,
        rq != MPI_REQUEST_NULL);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    out("wait after get_status: count %d, %d %d, null %d\n", c, w[0], w[4], rq == MPI_REQUEST_NULL);
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    out("get_status null: flag %d\n", flag);
    /* a receive nobody sends to: cancelled */
    MPI_Irecv(w, 8, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    out("cancel unmatched receive: cancelled %d\n", flag);
    /* a receive matched already (the synchronous send completed): not cancelled */
    MPI_Irecv(w, 8, MPI_INT, peer, 9, MPI_COMM_WORLD, &rq);
    MPI_Ssend(v, 3, MPI_INT, peer, 9, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    MPI_Get_count(&st, MPI_INT, &c);
    out("cancel matched receive: cancelled %d count %d data %d\n", flag, c, w[2]);
    /* a send: MPICH never cancels one */
    MPI_Isend(v, 2, MPI_INT, peer, 10, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    MPI_Recv(w, 8, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    out("cancel send: cancelled %d, delivered %d %d\n", flag, w[0], w[1]);
}

static void freed_requests(void)
{
    int w[4] = {0}, v[4] = {rank * 3, rank * 3 + 1, 0, 0}, z = 0;
    MPI_Request rq;
    /* an active receive freed: its message still lands; the later message
     * on the same pair is received after it */
    MPI_Irecv(w, 2, MPI_INT, peer, 11, MPI_COMM_WORLD, &rq);
    MPI_Request_free(&rq);
    out("freed receive: null %d\n", rq == MPI_REQUEST_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(v, 2, MPI_INT, peer, 11, MPI_COMM_WORLD, &rq);
    MPI_Request_free(&rq); /* an active send freed: still delivered */
    MPI_Send(&z, 1, MPI_INT, peer, 12, MPI_COMM_WORLD);
    MPI_Recv(&z, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    out("freed receive got %d %d\n", w[0], w[1]);
    rq = MPI_REQUEST_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Request_free(&rq);
    out("request_free of null: class %d\n", error_class_of(err));
}

static void elements(void)
{
    MPI_Status st;
    int e, c;
    MPI_Count ex;
    MPI_Status_set_elements(&st, MPI_DOUBLE, 3);
    MPI_Get_elements(&st, MPI_DOUBLE, &e);
    MPI_Get_count(&st, MPI_BYTE, &c);
    out("set_elements 3 doubles: elements %d bytes %d\n", e, c);
    MPI_Datatype t;
    int bl[2] = {2, 1};
    MPI_Aint d[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, d, ty, &t);
    MPI_Type_commit(&t);
    MPI_Status_set_elements(&st, t, 5);
    MPI_Get_count(&st, MPI_BYTE, &c);
    MPI_Get_elements(&st, t, &e);
    out("struct x5: bytes %d elements %d\n", c, e);
    int sizes[] = {20, 6, 4, 0};
    for (int i = 0; i < 4; i++) {
        MPI_Status_set_elements(&st, MPI_BYTE, sizes[i]);
        MPI_Get_elements(&st, t, &e);
        MPI_Get_count(&st, t, &c);
        out("%d bytes of the struct: elements %d count %d\n", sizes[i], e, c);
    }
    MPI_Status_set_elements(&st, MPI_BYTE, 7);
    MPI_Get_elements(&st, MPI_INT, &e);
    out("7 bytes of int: elements %d\n", e);
    MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)3 << 31);
    MPI_Get_elements_x(&st, MPI_INT, &ex);
    MPI_Get_elements(&st, MPI_INT, &e);
    out("set_elements_x 3*2^31 ints: elements_x %lld, int form %d\n", (long long)ex, e);
    MPI_Get_elements_c(&st, MPI_BYTE, &ex);
    out("elements_c in bytes: %lld\n", (long long)ex);
    MPI_Type_free(&t);
    int flag;
    MPI_Status_set_cancelled(&st, 1);
    MPI_Test_cancelled(&st, &flag);
    MPI_Get_elements_x(&st, MPI_INT, &ex);
    out("set_cancelled 1: %d, elements kept %lld\n", flag, (long long)ex);
    MPI_Status_set_cancelled(&st, 0);
    MPI_Test_cancelled(&st, &flag);
    out("set_cancelled 0: %d\n", flag);
}

static void persistent(void)
{
    int v[3], w[3] = {0}, sum = 0;
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Recv_init(w, 3, MPI_INT, peer, 13, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(v, 3, MPI_INT, peer, 13, MPI_COMM_WORLD, &rq[1]);
    MPI_Request keep0 = rq[0], keep1 = rq[1];
    for (int i = 0; i < 5; i++) {
        v[0] = i, v[1] = rank, v[2] = i * rank;
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, st);
        sum += w[0] + w[1] + w[2];
    }
    int n;
    MPI_Get_count(&st[0], MPI_INT, &n);
    out("persistent: sum %d, last count %d, handles kept %d\n", sum, n,
        rq[0] == keep0 && rq[1] == keep1);
    MPI_Wait(&rq[0], &st[0]); /* inactive: at once, empty */
    out("wait on inactive: source %d tag %d\n", st[0].MPI_SOURCE == MPI_ANY_SOURCE,
        st[0].MPI_TAG == MPI_ANY_TAG);
    int index, flag;
    MPI_Waitany(2, rq, &index, &st[0]);
    MPI_Testall(2, rq, &flag, sts);
    out("waitany on inactive: %d; testall: %d\n", index == MPI_UNDEFINED, flag);
    MPI_Request_free(&rq[1]);
    /* the other kinds, started with MPI_Start, completed with Test/Waitsome */
    MPI_Request s[3];
    char buf[3 * (64 + MPI_BSEND_OVERHEAD)];
    MPI_Buffer_attach(buf, sizeof buf);
    MPI_Ssend_init(v, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, &s[0]);
    MPI_Rsend_init_c(v, 2, MPI_INT, peer, 15, MPI_COMM_WORLD, &s[1]);
    MPI_Bsend_init(v, 3, MPI_INT, peer, 16, MPI_COMM_WORLD, &s[2]);
    for (int i = 0; i < 3; i++) {
        v[0] = 100 * i + rank, v[1] = 7, v[2] = 8;
        MPI_Irecv(w, 3, MPI_INT, peer, 15, MPI_COMM_WORLD, &rq[1]);
        MPI_Barrier(MPI_COMM_WORLD); /* the ready send's receive is posted */
        for (int k = 0; k < 3; k++)
            MPI_Start(&s[k]);
        int got = 0, out_n, idx[3];
        int x[3];
        MPI_Recv(&x[0], 1, MPI_INT, peer, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Recv(x, 3, MPI_INT, peer, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        while (got < 3) {
            MPI_Waitsome(3, s, &out_n, idx, sts);
            got += out_n == MPI_UNDEFINED ? 3 : out_n;
        }
        out("persistent round %d: ready %d %d, buffered %d %d %d\n", i, w[0], w[1], x[0], x[1],
            x[2]);
    }
    MPI_Start(&rq[0]); /* freed while active: still receives */
    MPI_Request_free(&rq[0]);
    v[0] = 42 + rank;
    MPI_Send(v, 3, MPI_INT, peer, 13, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(v, 1, MPI_INT, peer, 17, MPI_COMM_WORLD);
    MPI_Recv(v + 1, 1, MPI_INT, peer, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    out("active persistent receive freed: got %d\n", w[0]);
    for (int k = 0; k < 3; k++)
        MPI_Request_free(&s[k]);
    void *p;
    int size;
    MPI_Buffer_detach(&p, &size);
    out("detach: same buffer %d size %d\n", p == buf, size);
}

static void buffered(void)
{
    char buf[2 * (40 + MPI_BSEND_OVERHEAD)];
    int v[100], w[100], err;
    for (int i = 0; i < 100; i++)
        v[i] = i * (rank + 1);
    MPI_Buffer_attach(buf, sizeof buf);
    err = MPI_Buffer_attach(buf, sizeof buf);
    out("second attach: class %d\n", error_class_of(err));
    err = MPI_Bsend(v, 10, MPI_INT, peer, 18, MPI_COMM_WORLD);
    out("bsend 40 bytes: class %d\n", error_class_of(err));
    err = MPI_Bsend(v, 100, MPI_INT, peer, 18, MPI_COMM_WORLD);
    out("bsend 400 bytes into %d: class %d\n", (int)sizeof buf, error_class_of(err));
    MPI_Request rq;
    MPI_Status st;
    err = MPI_Ibsend_c(v + 1, 10, MPI_INT, peer, 19, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    out("ibsend: class %d\n", error_class_of(err));
    MPI_Bsend(v, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(w, 100, MPI_INT, peer, 18, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    out("received bsend: %d ints, last %d\n", n, w[n - 1]);
    MPI_Recv(w, 100, MPI_INT, peer, 19, MPI_COMM_WORLD, &st);
    out("received ibsend: first %d\n", w[0]);
    void *p;
    MPI_Count size;
    MPI_Buffer_detach_c(&p, &size);
    out("detach_c: same %d size %lld\n", p == buf, (long long)size);
    MPI_Buffer_detach_c(&p, &size);
    out("detach with none: %d %lld\n", p == NULL, (long long)size);
    err = MPI_Bsend(v, 1, MPI_INT, peer, 18, MPI_COMM_WORLD);
    out("bsend without a buffer: class %d\n", error_class_of(err));
}

static void matched(void)
{
    double v[6] = {rank, 1, 2, 3, 4, 5}, w[6] = {0};
    MPI_Message msg;
    MPI_Status st;
    MPI_Request rq;
    int flag = 0, n;
    MPI_Send(v, 4, MPI_DOUBLE, peer, 20, MPI_COMM_WORLD);
    MPI_Send(v, 6, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD);
    MPI_Send(v, 2, MPI_DOUBLE, peer, 22, MPI_COMM_WORLD);
    MPI_Mprobe(peer, 21, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    out("mprobe tag 21: %d doubles\n", n);
    /* an Iprobe no longer sees the matched message */
    MPI_Iprobe(peer, 21, MPI_COMM_WORLD, &flag, &st);
    out("iprobe after mprobe: %d\n", flag);
    MPI_Mrecv(w, 6, MPI_DOUBLE, &msg, &st);
    out("mrecv: %.0f %.0f, tag %d, null %d\n", w[0], w[5], st.MPI_TAG, msg == MPI_MESSAGE_NULL);
    flag = 0;
    while (!flag)
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    out("improbe: tag %d\n", st.MPI_TAG);
    MPI_Imrecv_c(w, 6, MPI_DOUBLE, &msg, &rq);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    out("imrecv: %d doubles, tag %d\n", n, st.MPI_TAG);
    MPI_Mprobe(peer, 22, MPI_COMM_WORLD, &msg, &st);
    int err = MPI_Mrecv(w, 1, MPI_DOUBLE, &msg, &st); /* too small */
    out("mrecv truncated: class %d\n", error_class_of(err));
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
    out("mprobe proc_null: no_proc %d source %d\n", msg == MPI_MESSAGE_NO_PROC,
        st.MPI_SOURCE == MPI_PROC_NULL);
    MPI_Mrecv(w, 6, MPI_DOUBLE, &msg, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    out("mrecv no_proc: null %d count %d\n", msg == MPI_MESSAGE_NULL, n);
}

static int freed_calls;
static int query(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_INT, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 3, st->MPI_TAG = 4;
    return MPI_SUCCESS;
}
static int free_fn(void *extra)
{
    (void)extra;
    freed_calls++;
    return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void generalized(void)
{
    int n = 6, flag, c;
    MPI_Request rq;
    MPI_Status st;
    MPI_Grequest_start(query, free_fn, cancel_fn, &n, &rq);
    MPI_Test(&rq, &flag, &st);
    out("grequest test before complete: %d\n", flag);
    MPI_Grequest_complete(rq);
    MPI_Request_get_status(rq, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    out("grequest get_status: flag %d count %d source %d\n", flag, c, st.MPI_SOURCE);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    out("grequest wait: count %d source %d tag %d null %d freed %d\n", c, st.MPI_SOURCE, st.MPI_TAG,
        rq == MPI_REQUEST_NULL, freed_calls);
    MPI_Request two[2];
    MPI_Grequest_start(query, free_fn, cancel_fn, &n, &two[0]);
    MPI_Irecv(&c, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &two[1]);
    MPI_Request g = two[0];
    MPI_Testall(2, two, &flag, sts);
    out("testall with an incomplete grequest: %d\n", flag);
    MPI_Grequest_complete(g);
    MPI_Waitall(2, two, sts);
    MPI_Grequest_start(query, free_fn, cancel_fn, &n, &rq);
    g = rq;
    MPI_Request_free(&rq);
    out("grequest freed before complete: free_fn calls %d\n", freed_calls);
    MPI_Grequest_complete(g);
    out("then completed: free_fn calls %d\n", freed_calls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    sync_sends();
    replace();
    status_and_cancel();
    freed_requests(); /* sets MPI_ERRORS_RETURN */
    elements();
    persistent();
    buffered();
    matched();
    generalized();
    out_flush();
    MPI_Finalize();
    return 0;
}
