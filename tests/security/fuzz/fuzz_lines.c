/* Fuzz target: the coordinators' line parsers. The bytes arrive as one
 * connection's input (conns.c: the secret line, credentials, the request),
 * whose request goes to the MPI coordinator's request handler (job.c),
 * then, as a local connection's, to the single-process coordinator's
 * (coord.c, through coord_single.c), and, line by line, as a connected
 * proxy's lines in every phase of a checkpoint (job.c's on_rank_line).
 * Then the same again with one well-formed line of the protocol's table
 * (src/common/coord_protocol.h; table_line.h): the second byte picks its
 * row, the bytes after it its arguments, and it comes with rank 0's or 1's
 * credential, so that every kind of line reaches its handler.
 * conns.c and job.c are included to reach their static parsers; no socket
 * is real (descriptor -1, whose sends the coordinators ignore). The first
 * byte: bit 0 the connection local, (byte >> 1) % 5 the MPI checkpoint's
 * phase, (byte >> 1) / 5 the single-process coordinator's state
 * (coord_single.c), bit 7 the rank whose credential a table line has. */
#include "../../../src/coord/conns.c"
#include "../../../src/coord/job.c"
#include "table_line.h"

#include <limits.h>

void fuzz_coord_request(struct mpcr_coord *c, const struct mpcr_request *rq, int state);

struct single {
    struct mpcr_coord *c;
    int state;
};

static void single_handle(void *arg, const struct mpcr_request *rq)
{
    struct single *s = arg;
    fuzz_coord_request(s->c, rq, s->state);
}

/* A request as the single-process coordinator takes it: a local connection
 * (its peer the process, pid INT_MAX: none runs), no secret asked. */
static void single_request(struct mpcr_coord *c, uint8_t first, const uint8_t *bytes, size_t size)
{
    struct mpcr_conn conn = {.fd = -1, .local = 1, .rank = -1, .pid = INT_MAX};
    size_t n = size < sizeof conn.buf ? size : sizeof conn.buf;
    memcpy(conn.buf, bytes, n);
    conn.len = n;
    struct single s = {c, (first >> 1) / 5};
    take_lines(&conn, "", single_handle, &s);
}

/* The bytes as one connection's (with rank `rank`'s credential, or none:
 * -1), as the single coordinator's request, and as a proxy's lines. */
static void feed(struct mpcr_coord *c, uint8_t first, int rank, const uint8_t *bytes, size_t size)
{
    static struct rank ranks[2];
    memset(ranks, 0, sizeof ranks);
    for (int r = 0; r < 2; r++) {
        ranks[r].fd = ranks[r].engine = ranks[r].writer_end = -1;
        strcpy(ranks[r].token, r ? "b1b1b1" : "a0a0a0");
    }
    /* one connection, local or not, its bytes as they came */
    struct mpcr_conn conn = {.fd = -1, .local = first & 1, .rank = rank, .vouched = rank >= 0};
    if (rank >= 0) strcpy(conn.token, ranks[rank].token);
    size_t n = size < sizeof conn.buf ? size : sizeof conn.buf;
    memcpy(conn.buf, bytes, n);
    conn.len = n;
    struct job j = {.c = c,
                    .nranks = 2,
                    .ranks = ranks,
                    .client = -1,
                    .connected = 2,
                    .phase = (enum phase)(first >> 1) % 5,
                    .gen = 7,
                    .abandoned = {.dir = c->dir, .nranks = 2}};
    take_lines(&conn, c->secret, on_request, &j);
    single_request(c, first, bytes, size);
    /* the same bytes as a proxy's lines */
    for (int phase = 0; phase < 5; phase++) {
        j.phase = (enum phase)phase;
        size_t len = size < sizeof ranks[0].buf - 1 ? size : sizeof ranks[0].buf - 1;
        memcpy(ranks[1].buf, bytes, len);
        ranks[1].len = len;
        take_rank_lines(&j, 1);
    }
    mpcr_abandoned_remove_all(&j.abandoned); /* generations given up by a failure */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct mpcr_coord c;
    if (!c.dir[0]) {
        strcpy(c.dir, "/nonexistent/mpcr-fuzz");
        strcpy(c.secret, "0123456789abcdef0123456789abcdef");
        c.listen_fd = c.tcp_fd = -1;
    }
    if (size < 2) return 0;
    feed(&c, data[0], -1, data + 1, size - 1);
    /* a line of the table's row data[1], its arguments from the rest */
    char line[MPCR_CONN_LINE];
    size_t n = table_line(data[1] % MPCR_LINE_KINDS, data + 2, size - 2, line, sizeof line - 1);
    line[n++] = '\n';
    feed(&c, data[0], data[0] >> 7, (const uint8_t *)line, n);
    return 0;
}
