/* Copies of large page ranges that leave untouched pages alone (see
 * sparse_copy.h). Where a page holds data:
 *   - in the program's private anonymous memory, /proc/self/pagemap says
 *     (bit 63: in memory, bit 62: swapped out, or a marker the kernel keeps
 *     there such as userfaultfd's write protection: copied too, to be safe);
 *     a page with neither was never touched, or was discarded: zeros;
 *   - in a memfd, mincore on its mapping says whether the page is in the
 *     page cache; a hole is not, but neither is a page swapped out, so the
 *     answer is used only where no swap is configured.
 * Both run in a checkpoint's hook or with the checkpoint signal blocked:
 * system calls only, no allocation. */
#define _GNU_SOURCE 1
#include "sparse_copy.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "channel.h"

#define PAGE       ((uintptr_t)MPCR_PAGE_SIZE)
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define BATCH      512 /* pages looked up at a time */

static int pagemap_state; /* 0: not asked yet, 1: readable, -1: not */

static int open_pagemap(void)
{
    return open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

int mpcr_pagemap_readable(void)
{
    if (!pagemap_state) {
        int fd = open_pagemap();
        uint64_t entry;
        uintptr_t page = (uintptr_t)&pagemap_state / PAGE;
        pagemap_state = fd >= 0 && pread(fd, &entry, sizeof entry, (off_t)(page * 8)) == sizeof entry
                            ? 1
                            : -1;
        if (fd >= 0) close(fd);
    }
    return pagemap_state > 0;
}

/* Copies the pages first .. first + count - 1 of src to dst (same
 * offsets) where has[i] says page first + i holds data; all of them
 * without has (the kernel could not tell). */
static void copy_runs(char *dst, const char *src, size_t first, const unsigned char *has, size_t count)
{
    size_t run = 0; /* the first page of the run of pages with data */
    for (size_t i = 0; i <= count; i++)
        if (i == count || (has && !has[i])) {
            if (i > run) memcpy(dst + (first + run) * PAGE, src + (first + run) * PAGE, (i - run) * PAGE);
            run = i + 1;
        }
}

void mpcr_copy_touched(char *dst, uintptr_t lo, uintptr_t hi)
{
    int fd = open_pagemap();
    size_t pages = (hi - lo) / PAGE;
    uint64_t entries[BATCH];
    unsigned char has[BATCH];
    for (size_t first = 0; first < pages; first += BATCH) {
        size_t count = pages - first < BATCH ? pages - first : BATCH;
        size_t bytes = count * sizeof *entries;
        int known = fd >= 0 && pread(fd, entries, bytes, (off_t)((lo / PAGE + first) * 8)) == (ssize_t)bytes;
        for (size_t i = 0; known && i < count; i++)
            has[i] = (entries[i] & (PM_PRESENT | PM_SWAPPED)) != 0;
        copy_runs(dst, (const char *)lo, first, known ? has : NULL, count);
    }
    if (fd >= 0) close(fd);
}

void mpcr_copy_filled(void *dst, const void *src, size_t n)
{
    struct sysinfo si;
    int can_tell = !sysinfo(&si) && !si.totalswap;
    unsigned char has[BATCH];
    size_t pages = n / PAGE;
    for (size_t first = 0; first < pages; first += BATCH) {
        size_t count = pages - first < BATCH ? pages - first : BATCH;
        int known = can_tell && !mincore((char *)src + first * PAGE, count * PAGE, has);
        for (size_t i = 0; known && i < count; i++)
            has[i] &= 1;
        copy_runs(dst, src, first, known ? has : NULL, count);
    }
}
