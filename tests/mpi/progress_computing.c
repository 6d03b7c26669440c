/* Progress while the program computes (issue 11, point 3), mpcr only:
 * natively MPICH moves a large message only inside MPI calls of both
 * sides. In each case one rank computes without any MPI call until every
 * other rank has completed its part; the others test their request every
 * 10 ms and, once it has completed, create a file (argv[1].CASE.RANK) that
 * the computing rank looks for between slices of computation. Without
 * progress in the background the others' requests could not complete, and
 * the test fails after LIMIT_S instead of hanging. The cases:
 *   0: MPI_Isend of 16 MiB from rank 0 (computing) to rank 1 (rank 0's
 *      proxy drives the send);
 *   1: MPI_Ibcast of 16 MiB from rank 0 (computing): one round at 2
 *      ranks; at 3, two rounds of the root, the second posted by the
 *      library's progress helper (src/lib/runtime/progress.c);
 *   2: MPI_Iallreduce (MPI_SUM) of 4 Mi ints, rank 1 computing: at 3 ranks
 *      rank 1 takes rank 0's part, exchanges with rank 2, and sends the
 *      result back to rank 0: three rounds, each posted by the helper;
 *   3: case 2 again with a user op (a sum). With a second argument
 *      "multiple" (MPI_THREAD_MULTIPLE asked) the helper calls the
 *      program's function: as case 2. Below MULTIPLE it leaves the task,
 *      its round complete, to the program's next call: rank 1 computes
 *      half a second, then every rank waits; a wait that never resumes the
 *      task hangs, and the test fails after LIMIT_S (SIGALRM);
 *   4: MPI_Irecv of 16 MiB at rank 1 (computing) from rank 0: the library
 *      queues the receive's start (src/lib/runtime/post_queue.c) and the progress
 *      helper must hand it to the proxy while rank 1 computes, or rank 0's
 *      send never completes (case 0 is the same for a queued send).
 * Run with 2 or 3 ranks. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BYTES (16 << 20)
#define LIMIT_S 60.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The computing rank: computes without MPI until every other rank's file
 * exists; 0, or -1 after LIMIT_S. */
static int compute_until(const char *prefix, int size, int me)
{
    volatile double x = 1;
    double end = now() + LIMIT_S;
    char path[4096];
    for (int r = 0; r < size; r++) {
        snprintf(path, sizeof path, "%.4000s.%d", prefix, r);
        while (r != me && access(path, F_OK)) {
            if (now() > end) return -1;
            for (int i = 0; i < 100000; i++)
                x = x * 1.0000001 + 1e-9;
        }
    }
    return 0;
}

/* The others: test until the request completes, then create the file;
 * 0, or -1 after LIMIT_S. */
static int test_until_done(MPI_Request *r, const char *prefix, int me)
{
    double end = now() + LIMIT_S;
    for (int flag = 0; !flag;) {
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        if (!flag && now() > end) return -1;
        if (!flag) usleep(10000);
    }
    char path[4096];
    snprintf(path, sizeof path, "%.4000s.%d", prefix, me);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    return 0;
}

static int check(const unsigned char *buf, int salt)
{
    for (int i = 0; i < BYTES; i++)
        if (buf[i] != (unsigned char)(i * 7 + salt)) return -1;
    return 0;
}

#define CASES 5
static const char *const names[] = {"MPI_Isend/MPI_Irecv", "MPI_Ibcast", "MPI_Iallreduce",
                                     "MPI_Iallreduce (user op)", "MPI_Irecv/MPI_Isend"};

static void hung(int sig)
{
    (void)sig;
    static const char msg[] = "FAILED: MPI_Iallreduce (user op): its MPI_Wait did not end\n";
    if (write(1, msg, sizeof msg - 1) < 0) _exit(1);
    _exit(1);
}

/* Computes without MPI for about `seconds`. */
static void compute_for(double seconds)
{
    volatile double x = 1;
    for (double end = now() + seconds; now() < end;)
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

int main(int argc, char **argv)
{
    int multiple = argc > 2 && !strcmp(argv[2], "multiple"), provided;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > 3 || argc < 2) {
        if (!rank)
            fprintf(stderr, "usage: mpiexec -n 2|3 progress_computing SCRATCH_PREFIX [multiple]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc(BYTES);
    int *sum = (int *)buf, ints = BYTES / (int)sizeof(int);
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    char prefix[CASES][4096];
    for (int k = 0; k < CASES; k++) {
        snprintf(prefix[k], sizeof prefix[k], "%.4000s.%d", argv[1], k);
        char path[4200];
        snprintf(path, sizeof path, "%.4000s.%d", prefix[k], rank);
        unlink(path);
    }
    int failed = 0;
    for (int k = 0; k < CASES; k++) {
        int pair = k == 0 || k == 4, reduce = k == 2 || k == 3;
        int computing = k >= 2 ? 1 : 0, in = !pair || rank < 2, wrong = 0;
        MPI_Request r = MPI_REQUEST_NULL;
        if (reduce)
            for (int i = 0; i < ints; i++)
                sum[i] = i % 1000 + rank;
        else if (rank == 0)
            for (int i = 0; i < BYTES; i++)
                buf[i] = (unsigned char)(i * 7 + k);
        else
            memset(buf, 0, BYTES);
        MPI_Barrier(MPI_COMM_WORLD);
        if (k == 0 && rank == 0) MPI_Isend(buf, BYTES, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r);
        if (k == 0 && rank == 1) MPI_Irecv(buf, BYTES, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &r);
        if (k == 1) MPI_Ibcast(buf, BYTES, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
        if (k == 4 && rank == 0) MPI_Isend(buf, BYTES, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &r);
        if (k == 4 && rank == 1) MPI_Irecv(buf, BYTES, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &r);
        if (reduce)
            MPI_Iallreduce(MPI_IN_PLACE, sum, ints, MPI_INT, k == 2 ? MPI_SUM : op, MPI_COMM_WORLD, &r);
        int parties = pair ? 2 : size, later = k == 3 && !multiple;
        if (later) {
            signal(SIGALRM, hung);
            alarm((unsigned)LIMIT_S);
            if (rank == computing) compute_for(0.5);
        }
        int rc = !in || later        ? 0
                 : rank == computing ? compute_until(prefix[k], parties, computing)
                                     : test_until_done(&r, prefix[k], rank);
        if (rc) {
            if (rank == computing)
                printf("FAILED: %s: rank %d computed %.0f s; the others' parts did not complete\n",
                       names[k], rank, LIMIT_S);
            else
                printf("FAILED: %s: rank %d waited %.0f s; its part did not complete while rank %d "
                       "computed\n", names[k], rank, LIMIT_S, computing);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        alarm(0);
        if ((pair && rank == 1) || (k == 1 && rank > 0)) wrong = check(buf, k);
        for (int i = 0; reduce && i < ints && !wrong; i++)
            wrong = sum[i] != size * (i % 1000) + size * (size - 1) / 2;
        if (wrong) {
            printf("FAILED: %s: rank %d has wrong data\n", names[k], rank);
            failed = 1;
        }
        MPI_Barrier(MPI_COMM_WORLD); /* every file of this case is there: remove them */
        char path[4200];
        snprintf(path, sizeof path, "%.4000s.%d", prefix[k], rank);
        unlink(path);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!rank && !failed)
        printf("progress while computing: PASS at %d ranks (16 MiB message both ways, broadcast, "
               "allreduce%s)\n",
               size, multiple ? ", with a user op under MPI_THREAD_MULTIPLE" : ", with a user op later");
    MPI_Op_free(&op);
    free(buf);
    MPI_Finalize();
    return failed;
}
