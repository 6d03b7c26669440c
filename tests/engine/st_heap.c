/* Heap grown by brk (sbrk and small mallocs) and by mmap (large mallocs)
 * survives, and malloc keeps growing both after the restart. */
#include <stdint.h>

#include "zdtm.h"

#define NSMALL 20000

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed * 131 + i * 7);
}

static int same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131 + i * 7)) return 0;
    return 1;
}

int main(void)
{
    static unsigned char *small[NSMALL];
    char *brk0 = sbrk(0);
    unsigned char *raw = sbrk(1 << 20); /* the break itself */
    CHECK(raw != (void *)-1, "sbrk");
    fill(raw, 1 << 20, 1);
    for (int i = 0; i < NSMALL; i++) {
        small[i] = malloc(16 + i % 200);
        fill(small[i], 16 + i % 200, (unsigned)i);
    }
    for (int i = 0; i < NSMALL; i += 3) free(small[i]), small[i] = 0; /* holes in the arena */
    unsigned char *big = malloc(64 << 20); /* mmap'd by malloc */
    fill(big, 64 << 20, 3);
    char *brk1 = sbrk(0);
    CHECK(brk1 > brk0, "the break did not grow");
    zdtm_ready();
    zdtm_wait();

    CHECK(sbrk(0) == brk1, "the break moved: %p, was %p", (void *)sbrk(0), (void *)brk1);
    CHECK(same(raw, 1 << 20, 1), "sbrk'd memory changed");
    for (int i = 0; i < NSMALL; i++) CHECK(!small[i] || same(small[i], 16 + i % 200, (unsigned)i), "chunk %d", i);
    CHECK(same(big, 64 << 20, 3), "the large block changed");
    /* keep growing: brk and mmap */
    for (int i = 0; i < NSMALL; i += 3) {
        small[i] = malloc(4000);
        fill(small[i], 4000, (unsigned)i + 7);
    }
    unsigned char *grow = sbrk(8 << 20);
    CHECK(grow != (void *)-1, "sbrk after restart failed");
    fill(grow, 8 << 20, 5);
    unsigned char *big2 = malloc(32 << 20);
    CHECK(big2, "large malloc after restart");
    fill(big2, 32 << 20, 6);
    for (int i = 0; i < NSMALL; i += 3) CHECK(same(small[i], 4000, (unsigned)i + 7), "new chunk %d", i);
    CHECK(same(grow, 8 << 20, 5) && same(big2, 32 << 20, 6), "new memory");
    CHECK(same(big, 64 << 20, 3), "old large block");
    free(big);
    free(big2);
    zdtm_pass();
}
