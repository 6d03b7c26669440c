/* Threads' CPU affinity across a restart (issue 15, the launcher's binding;
 * tests/batch/affinity.sh). Each rank starts THREADS worker threads before
 * MPI_Init and waits until each has begun: named "aff-work", or
 * "aff-pinned" for worker 0 when PIN_CPU is given, which first binds
 * itself to CPU PIN_CPU alone (pthread_setaffinity_np). Every worker
 * computes ITERATIONS steps of UNITS units (ckpt.h's compute(), no MPI,
 * the same on every rank); the main thread computes as much, exchanging
 * its hash with both neighbours (MPI_Sendrecv) after every step. Then the
 * harness's hold (CKPT_HOLD, ckpt.h), after which every thread, the main
 * one too, reads its own affinity (sched_getaffinity) and the workers end.
 * Rank 0 prints every rank's hash and each of its threads' CPU masks (bit
 * C for CPU C): the affinities after the restart, which
 * tests/batch/affinity.sh compares with a native run's under the
 * restart's binding.
 *   t_ckpt_affinity ITERATIONS UNITS THREADS [PIN_CPU]   (THREADS <= 6) */
#include "ckpt.h"

#include <pthread.h>
#include <sched.h>

#define MAX_THREADS 6

struct worker {
    int pin, pin_err;
    long iters, units;
    uint64_t seed, hash, mask;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started, go;

/* The calling thread's CPUs as a mask of the first 64; bit 63 marks a
 * failure or a CPU above 63 (never the case on the test machine). */
static uint64_t own_mask(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set)) return 1ULL << 63;
    uint64_t m = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) m |= c < 63 ? 1ULL << c : 1ULL << 63;
    return m;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    pthread_setname_np(pthread_self(), w->pin >= 0 ? "aff-pinned" : "aff-work");
    if (w->pin >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->pin, &set);
        w->pin_err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    pthread_mutex_lock(&lock);
    started++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    uint64_t h = w->seed;
    for (long it = 0; it < w->iters; it++)
        h = mix2(h, compute(h ^ (uint64_t)it, w->units));
    w->hash = h;
    pthread_mutex_lock(&lock);
    while (!go)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    w->mask = own_mask(); /* after the hold: after the restart */
    return NULL;
}

int main(int argc, char **argv)
{
    long iters = arg_long(argc, argv, 1, 100), units = arg_long(argc, argv, 2, 2);
    int threads = (int)arg_long(argc, argv, 3, 3);
    int pin = argc > 4 ? atoi(argv[4]) : -1;
    if (threads > MAX_THREADS || pin >= 63) {
        fprintf(stderr, "%s: at most %d threads, PIN_CPU below 63\n", argv[0], MAX_THREADS);
        return 2;
    }
    struct worker w[MAX_THREADS];
    pthread_t id[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        w[t] = (struct worker){.pin = t == 0 ? pin : -1,
                               .iters = iters,
                               .units = units,
                               .seed = mix64((uint64_t)t + 1)};
        if (pthread_create(&id[t], NULL, work, &w[t])) {
            fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
            return 1;
        }
    }
    /* Every worker has begun (and the pinned one is bound) before this
     * rank reaches its coordinator: the harness checkpoints after that. */
    pthread_mutex_lock(&lock);
    while (started < threads)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < threads; t++)
        check(!w[t].pin_err, "binding worker %d to CPU %d: %s", t, pin, strerror(w[t].pin_err));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint64_t h = mix64((uint64_t)rank);
    long every = iters / 4 > 0 ? iters / 4 : 1;
    for (long it = 0; it < iters; it++) {
        h = mix2(h, compute(h ^ (uint64_t)it, units));
        uint64_t out[2] = {mix2(h, 1), mix2(h, 2)}, in[2];
        MPI_Sendrecv(&out[0], 1, MPI_UINT64_T, right, 1, &in[0], 1, MPI_UINT64_T, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&out[1], 1, MPI_UINT64_T, left, 2, &in[1], 1, MPI_UINT64_T, right, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        h = mix2(mix2(h, in[0]), in[1]);
        if (it % every == every - 1)
            progress("affinity: step %ld, hash %016" PRIx64 "\n", it + 1, h);
    }

    hold_for_harness(rank); /* report() holds too; by then the masks are read */
    pthread_mutex_lock(&lock);
    go = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (int t = 0; t < threads; t++)
        pthread_join(id[t], NULL);
    const char *names[2 + MAX_THREADS] = {"hash", "main", "w0", "w1", "w2", "w3", "w4", "w5"};
    uint64_t v[2 + MAX_THREADS] = {h, own_mask()};
    for (int t = 0; t < threads; t++) {
        v[0] = mix2(v[0], w[t].hash);
        v[2 + t] = w[t].mask;
    }
    report("affinity", names, v, 2 + threads);
    MPI_Finalize();
    return 0;
}
