/* The restorer's whole system-call layer: one table of the calls it makes,
 * and one inline function that makes any of them. No libc: the restorer must
 * not depend on anything the image's libc provides, and must not be loaded
 * where the image's memory goes. Calls return a value or -errno, as the
 * kernel does. Also the few helpers that libc would otherwise provide. */
#ifndef MPCR_RESTORE_SYS_H
#define MPCR_RESTORE_SYS_H

#include <asm/unistd.h>
#include <stddef.h>
#include <stdint.h>

/* name, number */
#define MPCR_SYSCALLS(X)                                                                          \
    X(read, __NR_read) X(write, __NR_write) X(close, __NR_close) X(fstat, __NR_fstat)              \
    X(pread, __NR_pread64) X(mmap, __NR_mmap) X(mprotect, __NR_mprotect) X(munmap, __NR_munmap)    \
    X(mremap, __NR_mremap) X(rt_sigprocmask, __NR_rt_sigprocmask) X(clone, __NR_clone)             \
    X(exit_group, __NR_exit_group) X(uname, __NR_uname) X(prctl, __NR_prctl)                       \
    X(arch_prctl, __NR_arch_prctl) X(openat, __NR_openat) X(newfstatat, __NR_newfstatat)             \
    X(faccessat, __NR_faccessat) X(ioctl, __NR_ioctl) X(userfaultfd, __NR_userfaultfd)             \
    X(fadvise64, __NR_fadvise64) X(futex, __NR_futex) X(sched_getaffinity, __NR_sched_getaffinity)          \
    X(geteuid, __NR_geteuid)

enum {
#define MPCR_NR(name, nr) SYS_##name = nr,
    MPCR_SYSCALLS(MPCR_NR)
#undef MPCR_NR
};

static inline long rsys(long nr, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

#define RSYS_(nr, a, b, c, d, e, f, ...) rsys(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
/* sc(name, args...): the system call `name` from the table above. */
#define sc(name, ...) RSYS_(SYS_##name, ##__VA_ARGS__, 0, 0, 0, 0, 0, 0)

/* The kernel's struct stat on x86-64. */
struct kstat {
    uint64_t dev, ino, nlink;
    uint32_t mode, uid, gid, pad0;
    uint64_t rdev;
    int64_t size, blksize, blocks;
    int64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
    int64_t unused[3];
};

/* lib.c */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int streq(const char *a, const char *b);
/* Writes "mpcr-restore: " and the strings (NULL-terminated list) and a newline to stderr. */
void say(const char *first, ...);
const char *dec(uint64_t v);  /* decimal, in one of a few rotating static buffers */
const char *hex(uint64_t v);
const char *errword(long rc); /* -errno (or errno) in words */
extern const char *mpcr_image_named; /* once set, say() and die() name this image first */
__attribute__((noreturn)) void die(int code, const char *first, ...);

#endif
