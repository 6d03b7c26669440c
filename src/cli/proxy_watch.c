/* See proxy_watch.h. A proxy killed outright (kill -9, the OOM killer, a
 * batch system's limit) says nothing, and its launcher's status names a
 * signal but not whose (src/cli/job_end.c). `mpcr run` is not the proxies'
 * parent; each proxy of its host sends it, with its start note, the read end
 * of a pipe whose write end it alone holds (report.h), and that pipe hangs up
 * the moment the proxy's descriptors close as it ends. A thread of its own
 * waits on them, one end at a time, so that the order it sees is the order of
 * the ends: the launcher reacts to the first end by killing the others, and a
 * main loop that looked now and then would find several ended at once.
 *
 * Why pipes, not pidfds (which need no help from the proxy): a pidfd polls
 * readable only at the very end of an exit, after the process's descriptors
 * closed. The launcher sees the killed proxy's sockets close, kills the other
 * proxies, and on a busy machine one of those could finish its exit before
 * the first one's last step, and be named in its place (mpi.failures, once in
 * five runs). A pipe's hang-up comes from the same closing that the launcher
 * reacts to, so no end it causes can be seen before it. Ranks of other hosts
 * send no start note (the report socket is a local one) and are not watched. */
#include "proxy_watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#define MAX_WATCHED 4096

static struct watched {
    int rank, fd;
    atomic_int noted_end;
    pid_t pid;
} procs[MAX_WATCHED];
static atomic_int nprocs;
static int epfd = -1;
static atomic_int first = -1; /* index of the first to end */
static pthread_t waiter;
static int waiter_started;

static void *wait_for_ends(void *unused)
{
    (void)unused;
    struct epoll_event ev;
    for (;;) {
        int n = epoll_wait(epfd, &ev, 1, -1);
        if (n < 0) continue; /* EINTR */
        int i = (int)ev.data.u64, none = -1;
        if (i < 0) return NULL; /* closing */
        atomic_compare_exchange_strong(&first, &none, i);
        epoll_ctl(epfd, EPOLL_CTL_DEL, procs[i].fd, NULL);
    }
}

/* Two decimal numbers separated by a space, after the note's mark. */
static int two_numbers(const char *note, unsigned len, long *a, long *b)
{
    char text[48];
    if (len < 2 || len - 1 >= sizeof text) return -1;
    for (unsigned i = 1; i < len; i++) text[i - 1] = note[i];
    text[len - 1] = 0;
    char *end;
    *a = strtol(text, &end, 10);
    if (end == text || *end != ' ') return -1;
    char *rest = end + 1;
    *b = strtol(rest, &end, 10);
    return end == rest || *end ? -1 : 0;
}

void mpcr_proxy_watch_started(const char *note, unsigned len, int fd)
{
    long rank, pid;
    int k = atomic_load(&nprocs);
    if (fd < 0 || two_numbers(note, len, &rank, &pid) || pid <= 0 || k == MAX_WATCHED ||
        (epfd < 0 && (epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)) {
        if (fd >= 0) close(fd);
        return;
    }
    procs[k].rank = (int)rank, procs[k].fd = fd, procs[k].pid = (pid_t)pid;
    atomic_store(&procs[k].noted_end, 0);
    atomic_store(&nprocs, k + 1);
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = (uint64_t)k};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e)) return;
    if (!waiter_started) waiter_started = !pthread_create(&waiter, NULL, wait_for_ends, NULL);
}

void mpcr_proxy_watch_noted_end(const char *note, unsigned len)
{
    long code, rank;
    if (two_numbers(note, len, &code, &rank)) return;
    for (int i = 0; i < atomic_load(&nprocs); i++)
        if (procs[i].rank == rank) atomic_store(&procs[i].noted_end, 1);
}

int mpcr_proxy_watch_first_silent(int *rank, pid_t *pid)
{
    int i = atomic_load(&first);
    if (i < 0 || atomic_load(&procs[i].noted_end)) return 0;
    *rank = procs[i].rank, *pid = procs[i].pid;
    return 1;
}

void mpcr_proxy_watch_close(void)
{
    if (waiter_started) {
        pthread_cancel(waiter);
        pthread_join(waiter, NULL);
        waiter_started = 0;
    }
    for (int i = 0; i < atomic_load(&nprocs); i++) close(procs[i].fd);
    atomic_store(&nprocs, 0);
    atomic_store(&first, -1);
    if (epfd >= 0) close(epfd);
    epfd = -1;
}
