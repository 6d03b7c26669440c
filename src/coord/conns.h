/* Connections that have not yet said what they want (conns.c).
 *
 * The coordinator has one thread, and a connection must never hold it: each
 * new connection is made non-blocking and read, as part of the coordinator's
 * one poll(), into a buffer of its own, so that a client that says nothing,
 * or half a line, delays no one. A connection may open with a `secret`
 * line (required over TCP: "secret S", S the job's secret; an engine of an
 * MPI job adds its rank credential, "secret [S] rank R TOKEN"); the line
 * after it is its request, handed to the caller, who owns the connection
 * from then on. One that has not made its request MPCR_CONN_SILENT_S
 * seconds after it came (MPCR_COORD_SILENT_TIMEOUT in the environment
 * changes that, for tests and very slow networks) is dropped, a TCP one
 * that has not sent the secret after MPCR_CONN_STRANGER_S already, and so
 * is the oldest waiting one when MPCR_CONN_MAX are waiting. */
#ifndef MPCR_COORD_CONNS_H
#define MPCR_COORD_CONNS_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#define MPCR_CONN_SILENT_S 10.0
#define MPCR_CONN_STRANGER_S 3.0 /* a TCP connection without the secret line by then: dropped */
#define MPCR_CONN_MAX      256
#define MPCR_CONN_LINE     1024 /* a longer line is no line of the protocol: dropped */

struct mpcr_request {
    int fd;            /* the caller's from now on (still non-blocking) */
    int local;         /* came on DIR/coord.sock: this host, the coordinator's own user */
    pid_t pid;         /* a local peer's process id (SO_PEERCRED), else 0 */
    int rank;          /* the rank credential it opened with, else -1 */
    const char *token; /* the credential's token ("" without one) */
    const char *line;  /* the request, without its newline */
    const char *rest;  /* what followed the request line already (a proxy's next lines) */
    size_t rest_len;
};

struct mpcr_conn;
struct mpcr_conns {
    struct mpcr_conn *v;
    int n;
};

/* Accepts one connection from listen_fd (local: the unix socket). */
void mpcr_conns_accept(struct mpcr_conns *s, int listen_fd, int local, double now);
/* Fills one pollfd per waiting connection at p (room for MPCR_CONN_MAX);
 * returns how many. */
int mpcr_conns_pollfds(const struct mpcr_conns *s, struct pollfd *p);
/* After poll() over the pollfds filled at p (np of them): reads what came,
 * drops connections that ended, failed the secret or fell silent, and hands
 * each complete request to handle(arg, request). `secret`: the job's ("":
 * none, and then only the unix socket is served). */
void mpcr_conns_serve(struct mpcr_conns *s, const struct pollfd *p, int np, const char *secret,
                      double now, void (*handle)(void *arg, const struct mpcr_request *rq),
                      void *arg);
void mpcr_conns_close_all(struct mpcr_conns *s);
/* The coordinator ends: the connections still waiting on the unix socket
 * listen_fd (-1: none) are taken, every local one (this user's) is told
 * `line` (an "error ..." answer), then all are closed; so an `mpcr
 * checkpoint` that came as the job ended hears why nothing was taken. */
void mpcr_conns_farewell(struct mpcr_conns *s, int listen_fd, const char *line, double now);

#endif
