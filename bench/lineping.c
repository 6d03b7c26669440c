/* The floor under a proxied call: two processes bounce one cache line.
 *
 *   lineping [SECONDS]      (default 0.5; no MPI)
 *
 * A parent and a forked child share one anonymous page; the parent
 * increments a counter in one cache line, the child sees it and answers in
 * another line, as mpcr's library and proxy do with their call and reply
 * lines (both sides spin, never sleep). The parent reports the median of
 * BENCH_BATCHES batches:
 *   line_rtt_ns = batch time / round trips
 * which is the least a proxied call can cost on this machine when both
 * processes have a core. With fewer cores than the two need, the numbers
 * measure the scheduler instead (each round trip waits for a time slice). */
#include "bench.h"

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The layout of mpcr's channel (struct mpcr_chan): a header line, then the
 * call line at 64 and the reply line at 128. Where the two lines sit
 * matters: CPUs that prefetch the adjacent line of a 128-byte pair would
 * pull one side's line along with the other's if they shared a pair. */
struct lines {
    _Alignas(64) char header[64];
    _Alignas(64) _Atomic uint32_t call;
    _Alignas(64) _Atomic uint32_t reply;
};
_Static_assert(offsetof(struct lines, call) == 64 && offsetof(struct lines, reply) == 128,
               "the layout of struct mpcr_chan");

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    struct lines *l = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) {
        perror("lineping: mmap");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("lineping: fork");
        return 1;
    }
    if (child == 0) { /* echo every call; UINT32_MAX ends */
        uint32_t seen = 0;
        for (;;) {
            uint32_t c;
            while ((c = atomic_load_explicit(&l->call, memory_order_acquire)) == seen)
                __builtin_ia32_pause();
            if (c == UINT32_MAX) _exit(0);
            atomic_store_explicit(&l->reply, c, memory_order_release);
            seen = c;
        }
    }
    uint32_t seq = 0;
    double ns[BENCH_BATCHES];
    for (int b = 0; b < BENCH_BATCHES; b++) {
        long trips = 0;
        double t0 = bench_now(), end = t0 + seconds / BENCH_BATCHES;
        do {
            for (int i = 0; i < 256; i++, trips++) {
                atomic_store_explicit(&l->call, ++seq, memory_order_release);
                while (atomic_load_explicit(&l->reply, memory_order_acquire) != seq)
                    __builtin_ia32_pause();
            }
        } while (bench_now() < end);
        ns[b] = (bench_now() - t0) / trips * 1e9;
    }
    atomic_store(&l->call, UINT32_MAX);
    waitpid(child, NULL, 0);
    printf("# %d batches of %.2f s\n", BENCH_BATCHES, seconds / BENCH_BATCHES);
    bench_result("line_rtt_ns", bench_median(ns, BENCH_BATCHES));
    bench_result_best("line_rtt_ns", ns[0]);
    return 0;
}
