/* How long the waiting side spins, after a restart (tests/ckpt/wait_times.sh).
 * Each round rank 0 sleeps MS ms, then sends to rank 1, which waits in a
 * blocking MPI_Recv meanwhile: a library that spins through the wait uses
 * its main thread's CPU for most of it and never sleeps, one that sleeps on
 * the channel's futex uses almost no CPU and sleeps at least once. Rank 1
 * writes both to stderr ("round R: cpu P % of the wait, S sleeps": S the
 * thread's voluntary context switches, which a spin's sched_yield is not,
 * so S holds on a loaded machine, where P of a spinning thread can be
 * near 0); stdout gets "round R done" from rank 1, as natively.
 *   t_ckpt_wait_times ROUNDS MS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static long voluntary_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
}

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rounds = argc > 1 ? atoi(argv[1]) : 10, ms = argc > 2 ? atoi(argv[2]) : 200;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < rounds; r++) {
        int token = r;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
            MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            long sleeps = voluntary_switches();
            double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
            MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu, wall = seconds(CLOCK_MONOTONIC) - wall;
            sleeps = voluntary_switches() - sleeps;
            fprintf(stderr, "round %d: cpu %.0f %% of the wait, %ld sleeps\n", r, 100 * cpu / wall, sleeps);
            printf("round %d done\n", token);
            fflush(stdout);
        }
    }
    MPI_Finalize();
    return 0;
}
