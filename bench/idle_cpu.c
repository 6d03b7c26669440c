/* CPU time that the process which started a rank uses while the rank
 * computes and makes no MPI call.
 *
 *   idle_cpu [SECONDS]      (default 2)
 *
 * Under mpcr that parent is the rank's mpcr-proxy (it forks the program);
 * natively it is MPICH's hydra_pmi_proxy. Each rank reads its parent's CPU
 * clock (clock_getcpuclockid(getppid()): user + system time of all its
 * threads, in ns) and voluntary context switches (/proc/PPID/status, i.e.
 * how often it slept and was woken), computes for SECONDS without any MPI
 * call, and reads both again. Rank 0 reports the mean over ranks:
 *   parent_cpu_pct        = parent CPU time / wall time * 100 (% of one core)
 *   parent_wakeups_per_s  = voluntary context switches / wall time
 * and, for scale, the rank's own CPU share (app_cpu_pct, about 100). */
#include "bench.h"

#include <mpi.h>
#include <string.h>
#include <unistd.h>

static double cpu_seconds(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) < 0) return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* voluntary_ctxt_switches of process pid, or -1. */
static long voluntary_switches(pid_t pid)
{
    char path[64], line[256];
    long n = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1) break;
    fclose(f);
    return n;
}

static void parent_name(pid_t pid, char *name, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(name, (int)len, f))
        snprintf(name, len, "?");
    else
        name[strcspn(name, "\n")] = 0;
    if (f) fclose(f);
}

/* Busy arithmetic for `seconds`, looking at the clock every 2^16 steps. */
static double compute(double seconds)
{
    volatile double x = 1.0;
    double end = bench_now() + seconds;
    do {
        for (int i = 0; i < 1 << 16; i++)
            x = x * 1.0000001 + 1e-9;
    } while (bench_now() < end);
    return x;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 2.0);
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);

    pid_t parent = getppid();
    clockid_t clock;
    if (clock_getcpuclockid(parent, &clock)) {
        fprintf(stderr, "idle_cpu: cannot read the CPU clock of process %d\n", (int)parent);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double wall0 = bench_now(), p0 = cpu_seconds(clock);
    double a0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    long s0 = voluntary_switches(parent);
    compute(seconds);
    double wall = bench_now() - wall0, p = cpu_seconds(clock) - p0;
    double a = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - a0;
    long s = voluntary_switches(parent) - s0;

    /* [parent cpu %, parent wake-ups per s, own cpu %], summed on rank 0 */
    double mine[3] = {p / wall * 100, s0 < 0 ? -1 : s / wall, a / wall * 100}, sum[3];
    memcpy(sum, mine, sizeof sum);
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            MPI_Recv(mine, 3, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 3; i++)
                sum[i] += mine[i];
        }
        char name[32];
        parent_name(parent, name, sizeof name);
        printf("# rank 0's parent: %s (pid %d); %.2f s of computing on %d rank(s)\n", name,
               (int)parent, wall, size);
        bench_result("parent_cpu_pct", sum[0] / size);
        bench_result("parent_wakeups_per_s", sum[1] / size);
        bench_result("app_cpu_pct", sum[2] / size);
    } else {
        MPI_Send(mine, 3, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
