/* Checkpoint scenario: MPI_Comm_create_group over and over while one rank
 * is late to each. Rank 1 computes UNITS units before every creation, so a
 * checkpoint finds the others inside it, waiting, quiesced and draining,
 * while rank 1 may begin its real call the moment it arrives. Under Open
 * MPI 4.1 that call's agreement travels as point-to-point messages on the
 * parent under the program's tag, which the drain of a quiesced member took
 * (the creation then waited for ever: src/proxy/creation.c, unprobed_world).
 * With THREADS, the program asks for MPI_THREAD_MULTIPLE (so its creations
 * are polled, and made in proxy threads) and THREADS threads create at the
 * same time, each from a parent of its own (MPI_COMM_WORLD, duplicates of
 * it), all with one tag, which MPI allows: the proxy must keep their real
 * calls apart (unprobed_tag). Each new communicator's sum of ranks is
 * checked and folded in.
 *   ckpt_create_group [ITERATIONS [UNITS [THREADS]]]   (default 300 5, no threads; THREADS <= 4) */
#include "ckpt.h"

#include <pthread.h>

#define MAX_THREADS 4

static int rank, size;
static long iters, units;

struct creator {
    MPI_Comm parent;
    uint64_t sum, work;
};

static void *create_loop(void *arg)
{
    struct creator *t = arg;
    MPI_Group all;
    MPI_Comm_group(t->parent, &all);
    long every = iters / 5 > 0 ? iters / 5 : 1;
    for (long it = 0; it < iters; it++) {
        if (rank == 1) t->work = mix2(t->work, compute((uint64_t)it, units));
        MPI_Comm c;
        MPI_Comm_create_group(t->parent, all, 7, &c);
        int mine = rank, total = -1, crank = -1;
        MPI_Comm_rank(c, &crank);
        MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, c);
        check(crank == rank && total == size * (size - 1) / 2,
              "iteration %ld: rank %d of the new communicator, sum %d", it, crank, total);
        t->sum = mix2(t->sum, (uint64_t)total + (uint64_t)it);
        MPI_Comm_free(&c);
        if (t->parent == MPI_COMM_WORLD && it % every == every - 1)
            progress("create_group: %ld done\n", it + 1);
    }
    MPI_Group_free(&all);
    return NULL;
}

int main(int argc, char **argv)
{
    iters = arg_long(argc, argv, 1, 300), units = arg_long(argc, argv, 2, 5);
    long threads = arg_long(argc, argv, 3, 0);
    check(threads <= MAX_THREADS, "at most %d threads", MAX_THREADS);
    int provided = MPI_THREAD_SINGLE;
    if (threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(!threads || provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not given: %d", provided);
    struct creator t[MAX_THREADS] = {{MPI_COMM_WORLD, 0, 0}};
    for (long i = 1; i < threads; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &t[i].parent);
    if (!threads) {
        create_loop(&t[0]);
    } else {
        pthread_t th[MAX_THREADS];
        for (long i = 0; i < threads; i++)
            check(!pthread_create(&th[i], NULL, create_loop, &t[i]), "pthread_create");
        for (long i = 0; i < threads; i++)
            pthread_join(th[i], NULL);
    }
    uint64_t sum = 0, work = 0;
    for (long i = 0; i < (threads ? threads : 1); i++) {
        sum = mix2(sum, t[i].sum), work = mix2(work, t[i].work);
        if (i) MPI_Comm_free(&t[i].parent);
    }
    const char *names[] = {"checksum", "work"};
    uint64_t v[] = {sum, work};
    report("create_group", names, v, 2);
    MPI_Finalize();
    return 0;
}
