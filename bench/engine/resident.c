/* Benchmark subject: N MiB of resident, incompressible memory, then waits
 * for the driver's go file (noting the longest stop meanwhile in
 * BENCH_DIR/pause), writes the time it saw it (BENCH_DIR/resumed) and exits. Touches every page so that nothing is left to the zero-page
 * shortcut.   resident MIB
 * With a second argument T, a sparse process instead: an N MiB mapping of
 * which T MiB are touched, spread evenly over it.   resident MIB T */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    size_t touched = argc > 2 ? strtoul(argv[2], NULL, 10) : mib;
    uint64_t *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
             x = 88172645463325252ull;
    if (p == MAP_FAILED || !touched) return 1;
    size_t pages = (touched << 20) / 4096, stride = (mib / touched) * (4096 / 8);
    for (size_t pg = 0; pg < pages; pg++) /* every stride-th page, filled */
        for (size_t i = pg * stride; i < pg * stride + 4096 / 8; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            p[i] = x;
        }
    char ready[4096], go[4096];
    snprintf(ready, sizeof ready, "%s/ready", getenv("BENCH_DIR"));
    snprintf(go, sizeof go, "%s/go", getenv("BENCH_DIR"));
    fclose(fopen(ready, "w"));
    /* The longest gap between two turns of this wait: how long a checkpoint
     * that the process survives stopped it (BENCH_DIR/pause, in seconds). */
    char pause[4096];
    snprintf(pause, sizeof pause, "%s/pause", getenv("BENCH_DIR"));
    double last = now(), longest = 0;
    while (access(go, F_OK)) {
        usleep(1000);
        double t = now();
        if (t - last > longest + 0.002) { /* a new longest (not the usual jitter) */
            longest = t - last;
            FILE *f = fopen(pause, "w");
            if (f) fprintf(f, "%.6f\n", longest), fclose(f);
        }
        last = t;
    }
    /* Restored (or never stopped): when this process ran again, for bench.sh. */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    snprintf(ready, sizeof ready, "%s/resumed", getenv("BENCH_DIR"));
    FILE *f = fopen(ready, "w");
    if (f) fprintf(f, "%lld.%09ld\n", (long long)t.tv_sec, t.tv_nsec), fclose(f);
    return (int)(p[12345] & 0); /* keep it alive */
}
