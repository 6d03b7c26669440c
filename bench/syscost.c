/* What the primitives on mpcr's hot paths cost on this machine: they differ
 * by more than the code around them between machine kinds (a virtual
 * machine's clock can lack a vDSO path, system calls pay for the
 * mitigations in force), and explain why one call costs more here than
 * there (docs/performance.md).
 *
 *   syscost [SECONDS]      (default 0.5 per primitive; no MPI)
 *
 * RESULT lines, each the median over BENCH_BATCHES batches, in ns a call:
 *   clock_ns       clock_gettime(CLOCK_MONOTONIC): the spin loops read it
 *                  every 16 polls (channel.h mpcr_spin), poll pacing at each
 *                  Iprobe (src/lib/runtime/poll_pace.c)
 *   syscall_ns     getppid(), the cheapest system call
 *   sigmask_ns     a pthread_sigmask pair, blocking and restoring one signal
 *                  (the library holds the checkpoint signal around work
 *                  that must not be cut)
 *   yield_ns       sched_yield() with no one else to run
 *   pause_ns       one PAUSE instruction (the spin loops' pace)
 * and `# clocksource NAME` from sysfs. */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum primitive { CLOCK, SYSCALL, SIGMASK, YIELD, PAUSE, PRIMITIVES };
static const char *const metric[PRIMITIVES] = {"clock_ns", "syscall_ns", "sigmask_ns", "yield_ns",
                                               "pause_ns"};

static void once(enum primitive p)
{
    struct timespec ts;
    sigset_t one, old;
    switch (p) {
    case CLOCK: clock_gettime(CLOCK_MONOTONIC, &ts); break;
    case SYSCALL: syscall(SYS_getppid); break;
    case SIGMASK:
        sigemptyset(&one);
        sigaddset(&one, SIGRTMAX);
        pthread_sigmask(SIG_BLOCK, &one, &old);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        break;
    case YIELD: sched_yield(); break;
    case PAUSE: __builtin_ia32_pause(); break;
    case PRIMITIVES: break;
    }
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    char source[64] = "unknown";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (fgets(source, sizeof source, f)) source[strcspn(source, "\n")] = 0;
        fclose(f);
    }
    printf("# clocksource %s\n", source);
    for (int p = 0; p < PRIMITIVES; p++) {
        double ns[BENCH_BATCHES];
        for (int b = 0; b < BENCH_BATCHES; b++) {
            long calls = 0;
            double t0 = bench_now(), end = t0 + seconds / PRIMITIVES / BENCH_BATCHES;
            do {
                for (int i = 0; i < 64; i++, calls++) once((enum primitive)p);
            } while (bench_now() < end);
            ns[b] = (bench_now() - t0) / (double)calls * 1e9;
        }
        bench_result(metric[p], bench_median(ns, BENCH_BATCHES));
    }
    return 0;
}
