/* Benchmark subject for incremental images (bench/engine/incr.sh): N MiB of
 * resident, incompressible memory; then, until BENCH_DIR/go appears, each
 * time BENCH_DIR/change holds a percentage P it rewrites P % of its pages
 * (spread evenly, a different set each time), removes the file and
 * creates BENCH_DIR/changed. Writes when it ran again (BENCH_DIR/resumed)
 * as it ends, like resident.c.   changing MIB */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t x = 88172645463325252ull;
static uint64_t next(void)
{
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
}

static void path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", getenv("BENCH_DIR"), name);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64, pages = (mib << 20) / 4096;
    uint64_t *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    for (size_t i = 0; i < (mib << 20) / 8; i++) p[i] = next();
    char ready[4096], go[4096], change[4096], changed[4096];
    path(ready, sizeof ready, "ready"), path(go, sizeof go, "go");
    path(change, sizeof change, "change"), path(changed, sizeof changed, "changed");
    fclose(fopen(ready, "w"));
    unsigned round = 0;
    while (access(go, F_OK)) {
        FILE *f = fopen(change, "r");
        double pct = 0;
        if (!f || fscanf(f, "%lf", &pct) != 1) {
            if (f) fclose(f);
            usleep(1000);
            continue;
        }
        fclose(f);
        unlink(change);
        size_t step = pct > 0 ? (size_t)(100.0 / pct + 0.5) : 0;
        for (size_t pg = round % (step ? step : 1); step && pg < pages; pg += step)
            for (size_t i = pg * 512; i < pg * 512 + 512; i++) p[i] = next();
        round++;
        fclose(fopen(changed, "w"));
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    char resumed[4096];
    path(resumed, sizeof resumed, "resumed");
    FILE *f = fopen(resumed, "w");
    if (f) fprintf(f, "%lld.%09ld\n", (long long)t.tv_sec, t.tv_nsec), fclose(f);
    return (int)(p[12345] & 0);
}
