/* See conns.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conns.h"
#include "coord.h"
#include "coord_protocol.h"
#include "private.h"

struct mpcr_conn {
    int fd, local, vouched; /* vouched: its secret line was right */
    pid_t pid;              /* a local peer's process (SO_PEERCRED) */
    int rank;
    char token[32];
    double since;
    size_t len;
    char buf[MPCR_CONN_LINE];
};

static void drop(struct mpcr_conns *s, int i)
{
    close(s->v[i].fd);
    s->v[i] = s->v[--s->n];
}

void mpcr_conns_accept(struct mpcr_conns *s, int listen_fd, int local, double now)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    /* The socket is 0600 in a directory of the owner's, but a socket's
     * mode is only as good as the directories above it: the kernel's word
     * on who connected is what counts. */
    pid_t pid = 0;
    uid_t uid;
    if (local && !mpcr_peer_is_owner(fd, &pid, &uid)) {
        fprintf(stderr, "mpcr: coordinator: refused a connection from uid %d (pid %d): only its "
                        "owner, uid %u, may use it\n", (int)uid, (int)pid, (unsigned)geteuid());
        close(fd);
        return;
    }
    if (!s->v && !(s->v = calloc(MPCR_CONN_MAX, sizeof *s->v))) {
        close(fd);
        return;
    }
    if (s->n == MPCR_CONN_MAX) { /* the oldest has waited longest: a client that speaks does not */
        int oldest = 0;
        for (int i = 1; i < s->n; i++)
            if (s->v[i].since < s->v[oldest].since) oldest = i;
        drop(s, oldest);
    }
    struct mpcr_conn *c = &s->v[s->n++];
    c->fd = fd, c->local = local, c->vouched = 0, c->rank = -1, c->token[0] = 0;
    c->since = now, c->len = 0, c->pid = pid;
}

int mpcr_conns_pollfds(const struct mpcr_conns *s, struct pollfd *p)
{
    for (int i = 0; i < s->n; i++)
        p[i] = (struct pollfd){s->v[i].fd, POLLIN, 0};
    return s->n;
}

/* "secret [S] [rank R TOKEN]": S must be the job's (absent only where the
 * job has none); 0, or -1 to drop the connection. */
static int take_secret(struct mpcr_conn *c, char *words, const char *secret)
{
    char *save, *w[5] = {0};
    int n = 0;
    for (char *t = strtok_r(words, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    int at = n && strcmp(w[0], "rank") ? 1 : 0; /* the words after S */
    if (!mpcr_secret_equal(at ? w[0] : "", secret)) return -1;
    if (n == at) return c->vouched = 1, 0;
    if (n != at + 3 || strcmp(w[at], "rank") || strlen(w[at + 2]) >= sizeof c->token) return -1;
    char *end;
    long r = strtol(w[at + 1], &end, 10);
    if (*end || r < 0 || r > 1 << 24) return -1;
    c->rank = (int)r;
    strcpy(c->token, w[at + 2]);
    return c->vouched = 1, 0;
}

/* Handles the complete lines in c's buffer: 1 when the request was handed
 * over (the connection is the caller's), -1 to drop it, 0 to wait. */
static int take_lines(struct mpcr_conn *c, const char *secret,
                      void (*handle)(void *arg, const struct mpcr_request *rq), void *arg)
{
    char *nl;
    while ((nl = memchr(c->buf, '\n', c->len))) {
        *nl = 0;
        char *line = c->buf, *rest = nl + 1;
        size_t rest_len = c->len - (size_t)(rest - c->buf);
        struct mpcr_line m;
        if (!c->vouched && !mpcr_coord_line_parse(line, ~0u, &m) && m.kind == MPCR_LINE_SECRET) {
            if (take_secret(c, line + (m.text - line), secret)) return -1;
            memmove(c->buf, rest, rest_len);
            c->len = rest_len;
            continue;
        }
        /* Over TCP, anyone may connect: only the job's secret opens the door. */
        if (!c->local && !c->vouched) return -1;
        struct mpcr_request rq = {c->fd, c->local, c->pid, c->rank, c->token, line, rest, rest_len};
        handle(arg, &rq);
        return 1;
    }
    return c->len == sizeof c->buf ? -1 : 0;
}

void mpcr_conns_serve(struct mpcr_conns *s, const struct pollfd *p, int np, const char *secret,
                      double now, void (*handle)(void *arg, const struct mpcr_request *rq),
                      void *arg)
{
    /* The pollfds follow s->v as it was; handing over or dropping moves the
     * last connection into the freed place, so go from the end. */
    for (int i = (np < s->n ? np : s->n) - 1; i >= 0; i--) {
        struct mpcr_conn *c = &s->v[i];
        if (p[i].fd != c->fd || !p[i].revents) continue;
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (n > 0) c->len += (size_t)n;
        int took = take_lines(c, secret, handle, arg);
        if (took > 0)
            s->v[i] = s->v[--s->n]; /* the connection is the caller's now */
        else if (took < 0 || n <= 0)
            drop(s, i); /* refused, or it ended without a request */
    }
    static double silent_s;
    if (!silent_s) {
        const char *v = getenv("MPCR_COORD_SILENT_TIMEOUT");
        silent_s = v && atof(v) > 0 ? atof(v) : MPCR_CONN_SILENT_S;
    }
    /* Over TCP, anyone may connect: one that has not shown the secret soon
     * is a stranger and is not given the time a slow client of ours gets. */
    for (int i = s->n - 1; i >= 0; i--)
        if (now - s->v[i].since > (s->v[i].local || s->v[i].vouched ? silent_s : MPCR_CONN_STRANGER_S))
            drop(s, i);
}

void mpcr_conns_farewell(struct mpcr_conns *s, int listen_fd, const char *line, double now)
{
    /* The socket is closed next: it may stop blocking, so that accept
     * answers at once when nothing more waits. */
    if (listen_fd >= 0 && fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK) == 0)
        for (int queued = 0; queued < MPCR_CONN_MAX; queued++) {
            int before = s->n;
            mpcr_conns_accept(s, listen_fd, 1, now);
            if (s->n == before) break; /* nothing more waiting (or refused) */
        }
    for (int i = 0; i < s->n; i++)
        if (s->v[i].local) mpcr_coord_send_line(s->v[i].fd, "%s", line);
    mpcr_conns_close_all(s);
}

void mpcr_conns_close_all(struct mpcr_conns *s)
{
    while (s->n)
        drop(s, s->n - 1);
    free(s->v);
    s->v = NULL;
}
