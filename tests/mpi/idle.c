/* Run under mpcr only. While rank 0 computes (here: sleeps) for 1.5 s
 * without MPI calls, its proxy must stay off the CPU; meanwhile rank 1 waits
 * in MPI_Recv for rank 0's message and must not spin either (its proxy
 * polls the network: that is the one core the rank uses, as natively).
 * Each checks CPU time, not wall-clock time, and exits 1 if it was busy. */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* CPU seconds used so far by process `pid` (utime + stime from /proc). */
static double cpu_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long utime = 0, stime = 0;
    if (f) {
        if (fscanf(f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                   &stime) != 2)
            utime = stime = 0;
        fclose(f);
    }
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, busy = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double before = cpu_of(getppid()); /* the proxy is the program's parent */
        usleep(1500000);
        double used = cpu_of(getppid()) - before;
        busy = used > 0.15;
        printf("idle proxy: %s (%.2f CPU s in 1.5 s)\n", busy ? "BUSY" : "ok", used);
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        double before = self_cpu();
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double used = self_cpu() - before;
        busy = used > 0.15;
        printf("program waiting in MPI_Recv: %s (%.2f CPU s)\n", busy ? "BUSY" : "ok", used);
    }
    MPI_Finalize();
    return busy;
}
