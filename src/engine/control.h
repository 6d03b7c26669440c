/* How a coordinator talks to the engine of one process. Shared by the engine
 * and src/coord; an MPI coordinator speaks the same.
 *
 * Request: SIGRTMAX sent with sigqueue(pid, SIGRTMAX, {.sival_ptr = value}),
 * value = MPCR_CTL_REQUEST(generation). The engine writes
 * $MPCR_CKPT_DIR/gen-<generation>/rank-<$MPCR_RANK>.img (the directory must
 * exist), then connects to $MPCR_COORD_SOCK (a unix socket path, or
 * tcp:A.B.C.D:PORT) and sends one line:
 *     image <generation> ok <bytes>\n     or     image <generation> error <why>\n
 * preceded, when $MPCR_COORD_SECRET is set, by "secret <it>\n" (a coordinator
 * listening on TCP serves only connections that open with its job's secret)
 * and waits for one line back: "exit\n" (end the process now: the image is
 * safe and the manifest written) or "continue\n".
 * With MPCR_CTL_REQUEST_CONTINUE the report may come from a forked copy of
 * the process (made with CLONE_PARENT: a child of the coordinator, which
 * must reap it) while the process itself already runs; its line is then
 * "image <generation> ok <bytes> forked <ms the process was stopped>". */
#ifndef MPCR_CONTROL_H
#define MPCR_CONTROL_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The version of an MPI job's protocol between proxies and coordinator
 * (src/coord/job.c, docs/mpi-checkpoint.md): a proxy's hello is
 * "proxy PROTOCOL RANK SIZE PID TOKEN" (2: TOKEN, the rank credential's;
 * 3: the "windows" line both ways). */
#define MPCR_COORD_PROTOCOL 3

#define MPCR_CTL_COORD 1  /* a checkpoint asked by the coordinator */
#define MPCR_CTL_API 2    /* asked by the program (mpcr_engine_checkpoint) */
#define MPCR_CTL_FOLLOW 3 /* internal: a thread is asked to stop */
#define MPCR_CTL_VALUE(type, slot, num) ((uint64_t)(type) | (uint64_t)(slot) << 16 | (uint64_t)(num) << 32)
#define MPCR_CTL_REQUEST(gen) MPCR_CTL_VALUE(MPCR_CTL_COORD, 0, gen)
/* A checkpoint after which the process goes on ("continue" will be the
 * answer): the engine may fork a copy-on-write writer, let the process go
 * on at once, and have the copy write the image and report. */
#define MPCR_CTL_MAY_FORK 1
#define MPCR_CTL_REQUEST_CONTINUE(gen) MPCR_CTL_VALUE(MPCR_CTL_COORD, MPCR_CTL_MAY_FORK, gen)
/* The same for an MPI rank (asked by its proxy, the program's parent): the
 * copy is the program's own child, and the program sends "snapshot
 * <generation> <the copy's pid>\n" (no answer) as soon as it goes on,
 * before the copy's report. */
#define MPCR_CTL_FORK_CHILD 2
#define MPCR_CTL_REQUEST_RANK_CONTINUE(gen) MPCR_CTL_VALUE(MPCR_CTL_COORD, MPCR_CTL_FORK_CHILD, gen)

/* A coordinator's address: a unix socket path, or "tcp:A.B.C.D:PORT" for a
 * coordinator on another host (`mpcr coordinator --listen`). Connects a new
 * stream socket to it; returns the descriptor or -1. Async-signal-safe (the
 * engine reports from a signal handler): no libc parsing, no allocation. */
static inline int mpcr_ctl_connect(const char *addr)
{
    if (addr[0] == 't' && addr[1] == 'c' && addr[2] == 'p' && addr[3] == ':') {
        uint32_t ip = 0, part = 0, port = 0;
        const char *p = addr + 4;
        for (int dots = 0;; p++) {
            if (*p >= '0' && *p <= '9') part = part * 10 + (uint32_t)(*p - '0');
            else if (*p == '.' && dots < 3) ip = ip << 8 | (part & 255), part = 0, dots++;
            else if (*p == ':' && dots == 3) break;
            else return -1;
        }
        ip = ip << 8 | (part & 255);
        for (p++; *p >= '0' && *p <= '9'; p++) port = port * 10 + (uint32_t)(*p - '0');
        if (*p || !port || port > 65535) return -1;
        struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr = {htonl(ip)}};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&in, sizeof in)) close(fd), fd = -1;
        return fd;
    }
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    size_t n = 0;
    while (addr[n] && n < sizeof un.sun_path - 1) un.sun_path[n] = addr[n], n++;
    if (addr[n]) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&un, sizeof un)) close(fd), fd = -1;
    return fd;
}

#endif
