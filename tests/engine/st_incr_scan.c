/* Regions whose pages, between two checkpoints, change every other page
 * up to page K, so that the increment's page scan of each region returns
 * exactly K entries (written, unwritten, ...). K is chosen around the
 * engine's scan vector (1024 entries) and the kernel's internal pass (512):
 * at exactly a full vector, Linux returns a walk_end that points back into
 * what it reported (engine/incr.c); an engine that followed it planned an
 * increment whose runs overlap. The driver (incr_scan.sh) checkpoints after
 * "ready", touches "next", checkpoints again with --exit after "ready2",
 * touches "go" and restarts: every page must hold what was written last. */
#include <stdint.h>
#include <sys/mman.h>

#include "zdtm.h"

#define PAGE 4096ul
#define TAIL 64 /* unwritten pages after the pattern: one more entry, merged with the last */

static const long counts[] = {510, 512, 514, 1022, 1024, 1026, 2046, 2048, 2050};
#define NREG (sizeof counts / sizeof counts[0])

static uint64_t value(unsigned k, long page, int round)
{
    return (uint64_t)k << 48 ^ (uint64_t)page << 8 ^ (uint64_t)round ^ 0x5a5a000000000000ull;
}

static void fill(uint64_t *p, uint64_t v)
{
    for (size_t i = 0; i < PAGE / 8; i++) p[i] = v + i;
}

int main(void)
{
    unsigned char *reg[NREG];
    for (unsigned k = 0; k < NREG; k++) {
        long pages = counts[k] + TAIL;
        /* a page of PROT_NONE on either side: each region is a mapping of its own */
        unsigned char *m = mmap(NULL, (pages + 2) * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(m != MAP_FAILED, "mmap");
        reg[k] = m + PAGE;
        CHECK(!mprotect(reg[k], pages * PAGE, PROT_READ | PROT_WRITE), "mprotect");
        madvise(reg[k], pages * PAGE, MADV_NOHUGEPAGE); /* one entry per small page, as counted */
        for (long i = 0; i < pages; i++) fill((uint64_t *)(reg[k] + i * PAGE), value(k, i, 0));
    }
    zdtm_ready();
    zdtm_wait_for("next");
    for (unsigned k = 0; k < NREG; k++)
        for (long i = 0; i < counts[k]; i += 2) fill((uint64_t *)(reg[k] + i * PAGE), value(k, i, 1));
    zdtm_touch("ready2");
    zdtm_wait();
    for (unsigned k = 0; k < NREG; k++)
        for (long i = 0; i < counts[k] + TAIL; i++) {
            const uint64_t *p = (const uint64_t *)(reg[k] + i * PAGE);
            uint64_t want = value(k, i, i < counts[k] && i % 2 == 0);
            for (size_t j = 0; j < PAGE / 8; j++)
                CHECK(p[j] == want + j, "region of %ld: page %ld word %zu is %#llx, not %#llx", counts[k], i, j,
                      (unsigned long long)p[j], (unsigned long long)(want + j));
        }
    zdtm_pass();
}
