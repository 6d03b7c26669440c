/* The program's own madvise and mremap, seen first by mpcr's library (the
 * program links it before libc): a large message's buffer may have become
 * a share (shared_buffers.c), memory the proxy maps too, and these two
 * calls treat shared memory otherwise than the private memory the program
 * had. MADV_DONTNEED leaves a share's bytes where private memory reads as
 * zeros (an allocator that hands discarded pages out again as zeroed
 * memory, as jemalloc's calloc does, would hand out old bytes), MADV_FREE
 * fails on it (MADV_WIPEONFORK too, where MADV_REMOVE, which fails on
 * private memory, would punch a hole), and mremap growing it runs past the
 * share's memfd (SIGBUS). So the pieces of the range that are a share's
 * pages become private memory first (zeros for a discard the kernel
 * accepts, the same bytes otherwise), and the call goes to the kernel as
 * the program made it. Nothing is done and
 * nothing is asked while the program's memory holds no share; glibc's own
 * calls (malloc's) do not come here, and need not. */
#include "channel.h"
#include "staging.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24 /* Linux 5.18 */
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4 /* Linux 5.7 */
#endif

int madvise(void *addr, size_t length, int advice)
{
    uintptr_t lo = (uintptr_t)addr;
    /* a discard, checked by the kernel as MADV_DONTNEED(_LOCKED) checks it;
     * or advice for private memory only, which fails on shared memory */
    int discard = advice == MADV_DONTNEED || advice == MADV_FREE ? MADV_DONTNEED
                  : advice == MADV_DONTNEED_LOCKED                ? MADV_DONTNEED_LOCKED
                                                                  : 0;
    int private_only = advice == MADV_WIPEONFORK || advice == MADV_REMOVE;
    if ((discard || private_only) && !(lo & (MPCR_PAGE_SIZE - 1)) && lo + length >= lo &&
        mpcr_shares_leave(lo, lo + length, discard)) /* (unaligned: EINVAL, untouched) */
        return -1;
    return (int)syscall(SYS_madvise, addr, length, advice);
}

void *mremap(void *old, size_t old_size, size_t new_size, int flags, ...)
{
    void *new_address = NULL; /* asked for with MREMAP_FIXED, a hint with MREMAP_DONTUNMAP */
    if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
        va_list ap;
        va_start(ap, flags);
        new_address = va_arg(ap, void *);
        va_end(ap);
    }
    uintptr_t lo = (uintptr_t)old;
    /* (old_size 0 asks for a second mapping of shared memory: of the
     * private memory the program had, it fails) */
    if (!(lo & (MPCR_PAGE_SIZE - 1)) && lo + old_size >= lo &&
        mpcr_shares_leave(lo, lo + (old_size ? old_size : 1), 0))
        return MAP_FAILED;
    return (void *)syscall(SYS_mremap, old, old_size, new_size, flags, new_address);
}
