/* Shared helpers of the channel: futexes, spin and yield policy, descriptor passing. */
#include "channel.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int mpcr_futex_wait_us(_Atomic uint32_t *word, uint32_t expected, long timeout_us)
{
    struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000L};
    long r = syscall(SYS_futex, word, FUTEX_WAIT, expected, timeout_us >= 0 ? &ts : NULL, NULL, 0);
    return r < 0 ? -errno : 0;
}

int mpcr_futex_wait(_Atomic uint32_t *word, uint32_t expected, long timeout_ms)
{
    return mpcr_futex_wait_us(word, expected, timeout_ms >= 0 ? timeout_ms * 1000 : -1);
}

void mpcr_futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static uint64_t spin_ns = 50000; /* 50 us */

uint64_t mpcr_spin_ns(void)
{
    return spin_ns;
}

static uint64_t yield_ns; /* 0: sleep as soon as the spin is over */

uint64_t mpcr_yield_ns(void)
{
    return yield_ns;
}

void mpcr_set_spin_ns(uint64_t ns)
{
    const char *s = getenv("MPCR_SPIN_NS");
    spin_ns = s ? strtoull(s, NULL, 10) : ns;
    const char *y = getenv("MPCR_YIELD_NS"); /* the proxy sets it for its program */
    yield_ns = y ? strtoull(y, NULL, 10) : 0;
}

void mpcr_set_wait_ns(uint64_t spin, uint64_t yield)
{
    spin_ns = spin;
    yield_ns = yield;
}

int mpcr_yield_poll(_Atomic uint32_t *word, uint32_t value, int equal, uint64_t limit_ns)
{
    uint64_t start = mpcr_now_ns();
    for (;;) {
        sched_yield(); /* the process waited for runs now, if it shares this core */
        if ((atomic_load_explicit(word, memory_order_acquire) == value) == equal) return 1;
        if (mpcr_now_ns() - start >= limit_ns) return 0;
    }
}

int mpcr_send_fd(int sock, int fd, const void *msg, unsigned len)
{
    char ctl[CMSG_SPACE(sizeof(int))] = {0};
    struct iovec iov = {(void *)msg, len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

int mpcr_recv_fd(int sock, int *fd, void *msg, unsigned len)
{
    char ctl[CMSG_SPACE(sizeof(int))] = {0};
    struct iovec iov = {msg, len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    if (n < 0) return -errno;
    if (n == 0) return -ECONNRESET;
    if (n != (ssize_t)len) return -EPROTO;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    *fd = -1;
    if (!c) return 0;
    if (c->cmsg_type != SCM_RIGHTS) return -EPROTO;
    memcpy(fd, CMSG_DATA(c), sizeof *fd);
    return 0;
}

const char *mpcr_op_name(uint32_t op)
{
    static const char *const names[] = {
#define MPCR_OP_NAME(name, fn, args) #name,
        MPCR_OPS(MPCR_OP_NAME)
#undef MPCR_OP_NAME
    };
    return op < MPCR_OP_COUNT ? names[op] : "?";
}
