/* Large anonymous mappings with holes, sparse touched pages, PROT_NONE and
 * other protections survive at the same addresses; untouched memory stays
 * zero and is not stored (the image is far smaller than the mappings).
 * Shared anonymous memory and a memfd mapped shared stay shared memory;
 * a memfd mapped privately keeps its contents. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zdtm.h"

#define BIG (1ul << 30) /* 1 GiB reserved, a few MiB touched */
#define PG 4096ul

static char *perms_of(void *addr)
{
    static char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    uintptr_t a = (uintptr_t)addr;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long s, e;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s", &s, &e, p) == 3 && a >= s && a < e) {
            fclose(f);
            memcpy(line, p, 5);
            return line;
        }
    }
    if (f) fclose(f);
    return "none";
}

int main(void)
{
    unsigned char *big = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(big != MAP_FAILED, "mmap");
    for (size_t off = 0; off < BIG; off += 1ul << 20) big[off + 123] = (unsigned char)(off >> 20); /* sparse */
    munmap(big + 100 * PG, 50 * PG);                                      /* a hole */
    mprotect(big + 300 * PG, 10 * PG, PROT_NONE);                         /* inaccessible */
    mprotect(big + (2ul << 20), 4 * PG, PROT_READ);                       /* read-only with data */
    unsigned char *guard = mmap(NULL, 64 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    unsigned char *dense = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t i = 0; i < (16 << 20); i++) dense[i] = (unsigned char)(i * 13 + 1);
    memset(dense + (4 << 20), 0, 1 << 20); /* a run of zero pages inside data */
    unsigned char *shanon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(shanon, 0x5a, 1 << 20);
    int mfd = memfd_create("st_mmap", 0);
    CHECK(mfd >= 0 && ftruncate(mfd, 1 << 20) == 0, "memfd");
    unsigned char *shmem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    unsigned char *privmem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE, mfd, 0);
    close(mfd);
    memset(shmem, 0x77, 1 << 20);
    privmem[4096] = 0x11;
    zdtm_ready();
    zdtm_wait();

    CHECK(shanon[0] == 0x5a && shanon[(1 << 20) - 1] == 0x5a, "shared anonymous contents");
    CHECK(perms_of(shanon)[3] == 's', "shared anonymous memory became %s", perms_of(shanon));
    CHECK(shmem[0] == 0x77 && shmem[(1 << 20) - 1] == 0x77, "shared memfd contents");
    CHECK(perms_of(shmem)[3] == 's', "shared memfd became %s", perms_of(shmem));
    CHECK(privmem[4096] == 0x11 && privmem[0] == 0x77 && privmem[8192] == 0x77, "private memfd mapping contents");

    for (size_t off = 0; off < BIG; off += 1ul << 20) CHECK(big[off + 123] == (unsigned char)(off >> 20), "at %zu", off);
    CHECK(big[5 * PG] == 0 && big[BIG - 1] == 0, "untouched pages are not zero");
    CHECK(!strcmp(perms_of(big + 100 * PG), "none"), "the hole was filled: %s", perms_of(big + 100 * PG));
    CHECK(!strcmp(perms_of(big + 300 * PG), "---p"), "PROT_NONE became %s", perms_of(big + 300 * PG));
    CHECK(!strcmp(perms_of(big + (2ul << 20)), "r--p"), "read-only became %s", perms_of(big + (2ul << 20)));
    CHECK(!strcmp(perms_of(guard), "---p"), "the PROT_NONE reservation became %s", perms_of(guard));
    for (size_t i = 0; i < (16 << 20); i++) {
        unsigned char want = i >= (4 << 20) && i < (5 << 20) ? 0 : (unsigned char)(i * 13 + 1);
        CHECK(dense[i] == want, "dense byte %zu", i);
    }
    mprotect(big + 300 * PG, 10 * PG, PROT_READ | PROT_WRITE);
    CHECK(big[300 * PG] == 0, "PROT_NONE page content");
    CHECK(mprotect(guard, 64 << 20, PROT_READ) == 0 && guard[12345] == 0, "reservation usable");
    zdtm_pass();
}
