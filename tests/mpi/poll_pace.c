/* Polling loops whose questions change (mpcr paces the polls that keep
 * finding nothing: src/lib/runtime/poll_pace.c). Each round rank 1 computes a
 * while, then sends one message; rank 0 polls for it among other
 * questions that never match (another tag, another source, another
 * communicator, MPI_Improbe beside MPI_Iprobe), so a pace that starved one
 * question of a loop would hang the round. Then MPI_Test, Testany,
 * Testsome, Testall and Request_get_status loops beside a receive that
 * never matches; a poll, a barrier (or a message received) and the same
 * poll again (the message sent before must be seen); messages to itself (a question
 * answered "nothing" just before the send must still see it). Prints what
 * each part found; compared with native MPICH. With "threads": a thread
 * polling while another of the same rank makes calls (below). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 12

static volatile double sink;

static void compute(int units)
{
    double x = 0;
    for (long i = 0; i < units * 200000L; i++)
        x += (double)i * 1e-9;
    sink = x;
}

/* Question q of a round's loop: 0..3 never match, 4 is the message. */
static int ask(int q, int tag, MPI_Comm dup, MPI_Message *msg, MPI_Status *st)
{
    int flag = 0;
    switch (q) {
    case 0:
        MPI_Iprobe(1, tag + 100, MPI_COMM_WORLD, &flag, st);
        break;
    case 1:
        MPI_Iprobe(MPI_ANY_SOURCE, tag, dup, &flag, st);
        break;
    case 2:
        MPI_Improbe(1, tag + 200, MPI_COMM_WORLD, &flag, msg, st);
        break;
    case 3:
        MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, st);
        break; /* nobody sends to itself yet */
    default:
        if (tag % 3 == 0)
            MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, msg, st);
        else
            MPI_Iprobe(tag % 3 == 1 ? 1 : MPI_ANY_SOURCE, tag % 3 == 1 ? tag : MPI_ANY_TAG,
                       MPI_COMM_WORLD, &flag, st);
    }
    if (flag && q < 4) {
        printf("round tag %d: question %d matched, it should not\n", tag, q);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return flag;
}

/* Test loops: rank 0 receives two messages (rank 1 computes before each)
 * with MPI_Test, Testany, Testsome, Testall, Request_get_status in turn, each loop also
 * testing a receive that never matches (cancelled at the end). */
static void test_loops(int rank)
{
    MPI_Request never = MPI_REQUEST_NULL;
    int never_buf = 0;
    if (rank == 0) MPI_Irecv(&never_buf, 1, MPI_INT, 1, 999, MPI_COMM_WORLD, &never);
    for (int mode = 0; mode < 5; mode++) {
        int tag = 60 + 2 * mode, v[2] = {-1, -1};
        if (rank == 1) {
            for (int i = 1; i >= 0; i--) {
                int x = 500 + 10 * mode + i;
                compute(2);
                MPI_Send(&x, 1, MPI_INT, 0, tag + i, MPI_COMM_WORLD);
            }
            continue;
        }
        MPI_Request r[2];
        for (int i = 0; i < 2; i++)
            MPI_Irecv(&v[i], 1, MPI_INT, 1, tag + i, MPI_COMM_WORLD, &r[i]);
        for (int done = 0; done < 2;) {
            int flag = 0, index, outcount, idx[2];
            MPI_Status sts[2];
            MPI_Test(&never, &flag, MPI_STATUS_IGNORE);
            if (flag) printf("test loops: the receive that never matches completed\n");
            if (mode == 0) {
                for (int i = 0; i < 2; i++)
                    if (r[i] != MPI_REQUEST_NULL &&
                        (MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE), flag))
                        done++;
            } else if (mode == 1) {
                MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
                done += flag && index != MPI_UNDEFINED;
            } else if (mode == 2) {
                MPI_Testsome(2, r, &outcount, idx, sts);
                done += outcount == MPI_UNDEFINED ? 0 : outcount;
            } else if (mode == 3) {
                if (MPI_Testall(2, r, &flag, sts), flag) done = 2;
            } else {
                done = 0;
                for (int i = 0; i < 2; i++)
                    done += (MPI_Request_get_status(r[i], &flag, MPI_STATUS_IGNORE), flag);
                if (done == 2) MPI_Waitall(2, r, sts);
            }
        }
        printf("test loops, mode %d: received %d and %d\n", mode, v[0], v[1]);
    }
    if (rank == 0) {
        MPI_Status st;
        int cancelled;
        MPI_Cancel(&never);
        MPI_Wait(&never, &st);
        MPI_Test_cancelled(&st, &cancelled);
        printf("test loops: the receive that never matched cancelled: %d\n", cancelled);
    }
}

/* A poll, a barrier, the same poll again: the message rank 1 sent before
 * the barrier is found by the second poll (a negative answer is not kept
 * across other calls). Prints how often it was not. */
static void after_barrier(int rank)
{
    int misses = 0;
    for (int i = 0; i < 200; i++) {
        int v = i, flag = 0;
        if (rank == 1) MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        if (rank == 0) MPI_Iprobe(1, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Iprobe(1, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            misses += !flag;
            MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 0) printf("after a barrier: %d of 200 sent messages not seen\n", misses);
}

/* As after_barrier, the synchronisation a message rank 0 sends after the
 * one polled for, which rank 1 sees by an MPI_Test loop: rank 1 asks for
 * both (a "go" message), polls once (nothing yet, as a rule), tests until
 * the second has come, and polls again. */
static void after_message(int rank)
{
    int misses = 0;
    for (int i = 0; i < 200; i++) {
        int v = i, sync = 0, flag = 0;
        if (rank == 0) {
            MPI_Recv(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
            MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            continue;
        }
        MPI_Request r;
        MPI_Irecv(&sync, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
        MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        while (MPI_Test(&r, &flag, MPI_STATUS_IGNORE), !flag)
            ;
        MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        misses += !flag;
        MPI_Recv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 1) printf("after a message: %d of 200 sent messages not seen\n", misses);
}

/* Under MPI_THREAD_MULTIPLE ("threads"): rank 0's main thread polls for a
 * message its second thread sends itself after 200 sends to rank 1; the
 * polls, mostly answered in the library, must not keep the other thread
 * out of the library. */
static void *sender(void *arg)
{
    int v = 1;
    (void)arg;
    for (int i = 0; i < 200; i++)
        MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    v = 77;
    MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    return NULL;
}

static void threads(int rank)
{
    int v = 0;
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, sender, NULL);
        for (int flag = 0; !flag;)
            MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pthread_join(t, NULL);
        printf("threads: rank 0 polled for its other thread's message: %d\n", v);
    } else {
        for (int i = 0; i < 200; i++)
            MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* not a constant string: gcc makes that a puts(), which writes the text
         * and its newline apart on MPI's unbuffered stdout, and rank 0's line
         * printed meanwhile would land between them (natively too) */
        printf("threads: rank 1 received %d\n", 200);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "threads")) {
        int provided, rank;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (provided == MPI_THREAD_MULTIPLE) threads(rank);
        MPI_Finalize();
        return 0;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int round = 0; round < ROUNDS; round++) {
        int tag = 10 + round, value = 1000 + round * 7;
        if (rank == 1) {
            compute(1 + round % 4);
            MPI_Send(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
        } else {
            MPI_Message msg = MPI_MESSAGE_NULL;
            MPI_Status st;
            int first = round % 5; /* the message's question goes first, last, between */
            for (int found = 0; !found;)
                for (int k = 0; k < 5 && !found; k++) {
                    int q = (k + first) % 5;
                    found = ask(q, tag, dup, &msg, &st) && q == 4;
                }
            int got = -1, count;
            MPI_Get_count(&st, MPI_INT, &count);
            if (tag % 3 == 0)
                MPI_Mrecv(&got, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
            else
                MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            printf("round %d: source %d tag %d count %d value %d\n", round, st.MPI_SOURCE,
                   st.MPI_TAG, count, got);
        }
    }
    test_loops(rank);
    after_barrier(rank);
    after_message(rank);
    /* To itself: the same question asked (answered "nothing") right before
     * the send, then polled until the message shows. */
    for (int i = 0; i < 4; i++) {
        int flag, v = rank * 100 + i, got;
        MPI_Request req;
        MPI_Iprobe(rank, 50 + i, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag) printf("rank %d: a message to itself before it was sent\n", rank);
        MPI_Isend(&v, 1, MPI_INT, rank, 50 + i, MPI_COMM_WORLD, &req);
        for (flag = 0; !flag;)
            MPI_Iprobe(rank, 50 + i, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&got, 1, MPI_INT, rank, 50 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (got != v) printf("rank %d: to itself %d, got %d\n", rank, v, got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("poll pace: %d rounds and messages to itself done\n", ROUNDS);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
