/* MPI_THREAD_MULTIPLE: THREADS threads per rank, each making
 * MPI_Comm_create_group from a duplicate of MPI_COMM_WORLD of its own (its
 * index as the tag) ROUNDS times, then, one thread at a time (a mutex),
 * duplicating MPI_COMM_SELF while the others are inside their creations.
 * The shape of MPICH's threads/comm/comm_create_group_threads: under mpcr,
 * where a blocking MPI_Comm_dup is a non-blocking duplicate waited for,
 * the proxy's MPICH once livelocked in the duplicate of MPI_COMM_SELF
 * while another thread's context id was being agreed (the proxy grew by
 * 1 GB/s). Each thread checks its communicators and rank 0 prints sums.
 *   thread_create_group [ROUNDS]     (default 200) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "out.h"

#define THREADS 4

static MPI_Comm parents[THREADS];
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
static long rounds;
static long sums[THREADS];

static void *creator(void *arg)
{
    int t = (int)(long)arg, size;
    MPI_Comm_size(parents[t], &size);
    for (long r = 0; r < rounds; r++) {
        MPI_Group all;
        MPI_Comm made, self;
        MPI_Comm_group(parents[t], &all);
        MPI_Comm_create_group(parents[t], all, t, &made);
        MPI_Group_free(&all);
        int one = 1, n = 0;
        MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, made);
        sums[t] += n == size;
        MPI_Comm_free(&made);

        pthread_mutex_lock(&one_at_a_time);
        MPI_Comm_dup(MPI_COMM_SELF, &self);
        pthread_mutex_unlock(&one_at_a_time);
        MPI_Comm_size(self, &n);
        MPI_Barrier(self);
        sums[t] += n == 1;
        MPI_Comm_free(&self);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rounds = argc > 1 ? atol(argv[1]) : 200;
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not given (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_t id[THREADS];
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&id[t], NULL, creator, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(id[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        MPI_Comm_free(&parents[t]);
        out("rank %d thread %d: %ld of %ld rounds right\n", rank, t, sums[t], 2 * rounds);
    }
    out_flush();
    MPI_Finalize();
    return 0;
}
