/* MPI_THREAD_MULTIPLE (issue 16, point 2): THREADS threads per rank make
 * MPI calls at the same time, each on its own tags and its own duplicate
 * of MPI_COMM_WORLD, for checkpoints at random instants. Every iteration,
 * thread t of every rank
 *   - passes a token round the ranks with blocking MPI_Recv and MPI_Send
 *     (tag 16 + t; rank 0 sends first): most of the time some threads are
 *     blocked in MPI_Recv while the others of their process send, which
 *     only works if a blocked call leaves the others free to call;
 *   - exchanges with both neighbours in one MPI_Sendrecv (tag t) and with
 *     MPI_Irecv/MPI_Isend/MPI_Waitall (tag 32 + t), and probes a message
 *     (MPI_Probe, then MPI_Recv of the size it gave, tag 48 + t);
 *   - every 4th iteration, MPI_Allreduce and MPI_Bcast on its communicator;
 *   - every BIG_EVERY-th iteration (when given), a large message from each
 *     even rank to the next (tag 64 + t), 4, 8 or 16 MiB in turn: the staging
 *     area grows, and the channel moves, while the other threads pass the
 *     library's lock round (that once faulted: src/lib/runtime/staging.c).
 * What a thread receives goes into its running hash; at the end rank 0
 * prints every thread of every rank's hash (report()). Thread 0 of rank 0
 * prints a progress line every 25 iterations.
 *   t_ckpt_threads ITERATIONS [THREADS [BIG_EVERY]]
 *                                (2 ranks or more, THREADS <= 8) */
#include "ckpt.h"

#include <pthread.h>

#define MAX_THREADS 8
#define BIG_MAX (16u << 20)

struct worker {
    int t, rank, size;
    long iters, big_every;
    MPI_Comm comm;
    uint64_t hash;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    int t = w->t, right = (w->rank + 1) % w->size, left = (w->rank + w->size - 1) % w->size;
    uint64_t h = mix2((uint64_t)w->rank, (uint64_t)t);
    uint64_t *big_out = NULL, *big_in = NULL; /* BIG_MAX each, at the first large exchange */
    for (long it = 1; it <= w->iters; it++) {
        uint64_t token = mix2(h, (uint64_t)it), got;
        if (w->rank == 0) {
            MPI_Send(&token, 1, MPI_UINT64_T, right, 16 + t, MPI_COMM_WORLD);
            MPI_Recv(&got, 1, MPI_UINT64_T, left, 16 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&got, 1, MPI_UINT64_T, left, 16 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            got = mix2(got, token);
            MPI_Send(&got, 1, MPI_UINT64_T, right, 16 + t, MPI_COMM_WORLD);
        }
        h = mix2(h, got);

        uint64_t out[2] = {mix2(h, 1), mix2(h, 2)}, in[2];
        MPI_Sendrecv(&out[0], 1, MPI_UINT64_T, right, t, &in[0], 1, MPI_UINT64_T, left, t,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request q[2];
        MPI_Status sts[2]; /* MPI_STATUSES_IGNORE trips gcc's -Wstringop-overflow here */
        MPI_Irecv(&in[1], 1, MPI_UINT64_T, right, 32 + t, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(&out[1], 1, MPI_UINT64_T, left, 32 + t, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, sts);
        h = mix2(mix2(h, in[0]), in[1]);

        int n = 1 + (int)(h % 7), count;
        uint32_t msg[8], back[8];
        for (int i = 0; i < n; i++)
            msg[i] = (uint32_t)mix2(h, (uint64_t)i);
        MPI_Request s;
        MPI_Isend(msg, n, MPI_UINT32_T, right, 48 + t, MPI_COMM_WORLD, &s);
        MPI_Status st;
        MPI_Probe(left, 48 + t, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_UINT32_T, &count);
        MPI_Recv(back, count, MPI_UINT32_T, left, 48 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        for (int i = 0; i < count; i++)
            h = mix2(h, back[i]);
        h = mix2(h, (uint64_t)count);

        if (w->big_every && it % w->big_every == 0) {
            if (!big_out) {
                big_out = malloc(BIG_MAX);
                big_in = malloc(BIG_MAX);
                check(big_out && big_in, "out of memory");
            }
            size_t words = ((size_t)4 << 20 << (it / w->big_every % 3)) / sizeof *big_out;
            for (size_t i = 0; i < words; i++)
                big_out[i] = mix2(h, i);
            /* one way, as in MPICH's threads/pt2pt/mt_sendrecv_huge: the threads of
             * even ranks send, those of odd ranks receive (an odd last rank sits out) */
            if (w->rank % 2 == 0 && w->rank + 1 < w->size)
                MPI_Send(big_out, (int)words, MPI_UINT64_T, w->rank + 1, 64 + t, MPI_COMM_WORLD);
            else if (w->rank % 2 == 1)
                MPI_Recv(big_in, (int)words, MPI_UINT64_T, w->rank - 1, 64 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            const uint64_t *held = w->rank % 2 ? big_in : big_out; /* what was received, or sent */
            for (size_t i = 0; i < words; i += 509)
                h = mix2(h, held[i]);
            h = mix2(h, held[words - 1]);
        }

        if (it % 4 == 0) {
            uint64_t sum, root = h;
            MPI_Allreduce(&h, &sum, 1, MPI_UINT64_T, MPI_BXOR, w->comm);
            MPI_Bcast(&root, 1, MPI_UINT64_T, (int)(it / 4) % w->size, w->comm);
            h = mix2(mix2(h, sum), root);
        }
        if (t == 0 && it % 25 == 0) progress("iteration %ld: thread 0 %016" PRIx64 "\n", it, h);
    }
    w->hash = h;
    free(big_out);
    free(big_in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    check(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave level %d, not MULTIPLE", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = arg_long(argc, argv, 1, 200);
    int threads = (int)arg_long(argc, argv, 2, 4);
    long big_every = arg_long(argc, argv, 3, 0);
    check(threads <= MAX_THREADS, "at most %d threads", MAX_THREADS);
    struct worker w[MAX_THREADS];
    pthread_t id[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        w[t] = (struct worker){.t = t, .rank = rank, .size = size, .iters = iters, .big_every = big_every};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
    }
    for (int t = 0; t < threads; t++)
        check(!pthread_create(&id[t], NULL, work, &w[t]), "pthread_create failed");
    for (int t = 0; t < threads; t++)
        pthread_join(id[t], NULL);
    int level, is_main;
    MPI_Query_thread(&level);
    MPI_Is_thread_main(&is_main);
    check(level == MPI_THREAD_MULTIPLE && is_main, "MPI_Query_thread %d, MPI_Is_thread_main %d",
          level, is_main);
    const char *names[MAX_THREADS] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"};
    uint64_t v[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        v[t] = w[t].hash;
        MPI_Comm_free(&w[t].comm);
    }
    report("threads", names, v, threads);
    MPI_Finalize();
    return 0;
}
