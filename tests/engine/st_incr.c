/* Memory that changes the ways incremental images must follow
 * (docs/incremental.md): a large region whose pages change a few at a time
 * (some to zero), ranges dropped with MADV_DONTNEED and some of them only
 * read afterwards (the shared zero page), a region unmapped and mapped
 * again at the same address with other contents, and two regions that
 * swap places with mremap. Each round hashes all of it; the result does not
 * depend on when checkpoints land. Prints the final hash.
 *   st_incr [ROUNDS] [MIB]   (default 400 rounds, 16 MiB) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096ul
#define CHURN (1ul << 20)
#define SWAP (2ul << 20)

static uint64_t seed = 88172645463325252ull;
static uint64_t next(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static uint64_t hash(const unsigned char *p, size_t len, uint64_t h)
{
    const uint64_t *q = (const uint64_t *)p;
    for (size_t i = 0; i < len / 8; i++) h = (h ^ q[i]) * 0x100000001b3ull + i;
    return h;
}

static void *map_at(void *at, size_t len)
{
    void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
    if (p == MAP_FAILED) perror("mmap"), exit(2);
    return p;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    size_t big_len = (size_t)(argc > 2 ? atoi(argv[2]) : 16) << 20, pages = big_len / PAGE;
    unsigned char *big = map_at(NULL, big_len);
    for (size_t i = 0; i < big_len; i += 8) *(uint64_t *)(big + i) = next();
    unsigned char *churn = map_at(NULL, CHURN);
    memset(churn, 1, CHURN);
    /* two regions with a free slot beside them, so that mremap can swap them */
    unsigned char *slots = mmap(NULL, 3 * SWAP, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *sa = map_at(slots, SWAP), *sb = map_at(slots + SWAP, SWAP), *spare = slots + 2 * SWAP;
    memset(sa, 'a', SWAP);
    memset(sb, 'b', SWAP);
    uint64_t h = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < pages / 64; k++) { /* about 1.5 % of the pages */
            size_t pg = next() % pages;
            if (next() % 8 == 0) memset(big + pg * PAGE, 0, PAGE);
            else *(uint64_t *)(big + pg * PAGE + (next() % (PAGE / 8)) * 8) = next();
        }
        if (r % 7 == 3) { /* dropped: zero from now on */
            size_t pg = next() % (pages - 16);
            madvise(big + pg * PAGE, 16 * PAGE, MADV_DONTNEED);
            if (r % 14 == 3) h = hash(big + pg * PAGE, 16 * PAGE, h); /* only read: the zero page */
        }
        if (r % 11 == 5) { /* the same addresses, a new mapping, other contents */
            munmap(churn, CHURN);
            churn = map_at(churn, CHURN);
            memset(churn + (next() % 16) * (CHURN / 16), (int)(r & 0xff), CHURN / 16);
        }
        if (r % 13 == 6) { /* a and b change places */
            if (mremap(sa, SWAP, SWAP, MREMAP_MAYMOVE | MREMAP_FIXED, spare) == MAP_FAILED ||
                mremap(sb, SWAP, SWAP, MREMAP_MAYMOVE | MREMAP_FIXED, sa) == MAP_FAILED ||
                mremap(spare, SWAP, SWAP, MREMAP_MAYMOVE | MREMAP_FIXED, sb) == MAP_FAILED)
                perror("mremap"), exit(2);
            unsigned char *t = sa;
            sa = sb, sb = t;
            sa[next() % SWAP] ^= 1;
            mmap(spare, SWAP, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        }
        h = hash(big, big_len, h);
        h = hash(churn, CHURN, h);
        h = hash(sa, SWAP, h);
        h = hash(sb, SWAP, h);
    }
    printf("%016llx\n", (unsigned long long)h);
    return 0;
}
