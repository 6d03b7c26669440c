/* Benchmark subject: N MiB of resident, incompressible memory, then waits
 * for the driver's go file, writes the time it saw it (BENCH_DIR/resumed)
 * and exits. Touches every page so that nothing is left to the zero-page
 * shortcut.   resident MIB
 * With a second argument T, a sparse process instead: an N MiB mapping of
 * which T MiB are touched, spread evenly over it.   resident MIB T */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
    while (access(go, F_OK)) usleep(1000);
    /* Restored (or never stopped): when this process ran again, for bench.sh. */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    snprintf(ready, sizeof ready, "%s/resumed", getenv("BENCH_DIR"));
    FILE *f = fopen(ready, "w");
    if (f) fprintf(f, "%lld.%09ld\n", (long long)t.tv_sec, t.tv_nsec), fclose(f);
    return (int)(p[12345] & 0); /* keep it alive */
}
