/* The floor under a proxied call where application and proxy share a core:
 * two processes hand one cache line back and forth, each waiting for its
 * turn by one mechanism, pinned to one core or to two.
 *
 *   handoff [SECONDS]      (default 0.5 per case; no MPI)
 *
 * Mechanisms (the waiting side's part):
 *   spin    polls the line (what mpcr does while its spin budget lasts);
 *           on one core the other side runs only when the scheduler
 *           preempts the spinner, so this shows what spinning costs there
 *   yield   polls, calling sched_yield() between polls: on one core the
 *           other side runs at once if it is runnable
 *   futex   sleeps in FUTEX_WAIT on the line; the other side wakes it
 *           with FUTEX_WAKE after each store (mpcr's sleeping path)
 *   pipe    blocks in read() on a pipe; the other side writes one byte
 * Placements: `same` pins both to the first CPU this process may use,
 * `cross` pins them to the first two (skipped when there is only one).
 *
 * One line per case: RESULT handoff_<mechanism>_<placement>_ns, the
 * median round trip (two hand-offs) over BENCH_BATCHES batches. */
#include "bench.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum mechanism { SPIN, YIELD, FUTEX, PIPE, MECHANISMS };
static const char *const mechanism_name[MECHANISMS] = {"spin", "yield", "futex", "pipe"};

struct shared {
    _Alignas(64) _Atomic uint32_t call;
    _Alignas(64) _Atomic uint32_t reply;
};

/* The two ends of the pipes: parent -> child, child -> parent. */
static int down[2], up[2];

static void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, word, FUTEX_WAIT, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Publishes value in *word for the other side, by mechanism m. */
static void hand_over(enum mechanism m, _Atomic uint32_t *word, uint32_t value, int fd)
{
    atomic_store_explicit(word, value, memory_order_release);
    if (m == FUTEX) futex_wake(word);
    if (m == PIPE && write(fd, "x", 1) != 1) _exit(3);
}

/* Waits until *word == value, by mechanism m. */
static void await(enum mechanism m, _Atomic uint32_t *word, uint32_t value, int fd)
{
    char byte;
    if (m == PIPE && read(fd, &byte, 1) != 1) _exit(3);
    for (uint32_t seen; (seen = atomic_load_explicit(word, memory_order_acquire)) != value;) {
        if (m == YIELD) sched_yield();
        if (m == FUTEX) futex_wait(word, seen);
        if (m == SPIN) __builtin_ia32_pause();
    }
}

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* One case: the median round trip in ns, or -1 when it could not run. */
static double measure(struct shared *s, enum mechanism m, int parent_cpu, int child_cpu,
                      double seconds)
{
    atomic_store(&s->call, 0);
    atomic_store(&s->reply, 0);
    if (pipe(down) || pipe(up)) return -1;
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) { /* echo every call; UINT32_MAX ends */
        if (pin(child_cpu)) _exit(2);
        for (uint32_t next = 1;; next++) {
            await(m, &s->call, next, down[0]);
            hand_over(m, &s->reply, next, up[1]);
        }
    }
    double ns[BENCH_BATCHES] = {0};
    uint32_t seq = 0;
    if (pin(parent_cpu) == 0) {
        for (int b = 0; b < BENCH_BATCHES; b++) {
            long trips = 0;
            double t0 = bench_now(), end = t0 + seconds / BENCH_BATCHES;
            do {
                for (int i = 0; i < 64; i++, trips++) {
                    hand_over(m, &s->call, ++seq, down[1]);
                    await(m, &s->reply, seq, up[0]);
                }
            } while (bench_now() < end);
            ns[b] = (bench_now() - t0) / trips * 1e9;
        }
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    for (int k = 0; k < 2; k++)
        close(down[k]), close(up[k]);
    return ns[0] ? bench_median(ns, BENCH_BATCHES) : -1;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    struct shared *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        fprintf(stderr, "handoff: mmap: %s\n", strerror(errno));
        return 1;
    }
    cpu_set_t allowed;
    int cpus[2], ncpus = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed)) return 1;
    for (int c = 0; c < CPU_SETSIZE && ncpus < 2; c++)
        if (CPU_ISSET(c, &allowed)) cpus[ncpus++] = c;
    printf("# %d batches of %.3f s per case; cpus %d%s%d\n", BENCH_BATCHES, seconds / BENCH_BATCHES,
           cpus[0], ncpus > 1 ? " and " : "", ncpus > 1 ? cpus[1] : -1);
    for (int placement = 0; placement < ncpus; placement++)
        for (enum mechanism m = 0; m < MECHANISMS; m++) {
            /* Spinning on one core waits a whole time slice per hand-off:
             * measured, but briefly. */
            double t = m == SPIN && placement == 0 ? seconds / 10 : seconds;
            double rtt = measure(s, m, cpus[0], cpus[placement], t);
            char name[64];
            snprintf(name, sizeof name, "handoff_%s_%s_ns", mechanism_name[m],
                     placement ? "cross" : "same");
            if (rtt < 0)
                printf("# %s: could not run\n", name);
            else
                bench_result(name, rtt);
        }
    return 0;
}
