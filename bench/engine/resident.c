/* Benchmark subject: N MiB of resident, incompressible memory, then waits
 * for the driver's go file and exits. Touches every page so that nothing is
 * left to the zero-page shortcut.   resident MIB */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    uint64_t *p = malloc(mib << 20), x = 88172645463325252ull;
    for (size_t i = 0; i < (mib << 20) / 8; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = x;
    }
    char ready[4096], go[4096];
    snprintf(ready, sizeof ready, "%s/ready", getenv("BENCH_DIR"));
    snprintf(go, sizeof go, "%s/go", getenv("BENCH_DIR"));
    fclose(fopen(ready, "w"));
    while (access(go, F_OK)) usleep(1000);
    return (int)(p[12345] & 0); /* keep it alive */
}
