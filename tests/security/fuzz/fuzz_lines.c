/* Fuzz target: the coordinators' line parsers. The bytes arrive as one
 * connection's input (conns.c: the secret line, credentials, the request),
 * whose request goes to the MPI coordinator's request handler (job.c),
 * then, as a local connection's, to the single-process coordinator's
 * (coord.c, through coord_single.c), and, line by line, as a connected
 * proxy's lines in every phase of a checkpoint (job.c's on_rank_line).
 * conns.c and job.c are included to reach their static parsers; no socket
 * is real (descriptor -1, whose sends the coordinators ignore). The first
 * byte: bit 0 the connection local, (byte >> 1) % 5 the MPI checkpoint's
 * phase, (byte >> 1) / 5 the single-process coordinator's state
 * (coord_single.c). */
#include "../../../src/coord/conns.c"
#include "../../../src/coord/job.c"

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
static void single_request(struct mpcr_coord *c, const uint8_t *data, size_t size)
{
    struct mpcr_conn conn = {.fd = -1, .local = 1, .rank = -1, .pid = INT_MAX};
    size_t n = size - 1 < sizeof conn.buf ? size - 1 : sizeof conn.buf;
    memcpy(conn.buf, data + 1, n);
    conn.len = n;
    struct single s = {c, (data[0] >> 1) / 5};
    take_lines(&conn, "", single_handle, &s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct mpcr_coord c;
    static struct rank ranks[2];
    if (!c.dir[0]) {
        strcpy(c.dir, "/nonexistent/mpcr-fuzz");
        strcpy(c.secret, "0123456789abcdef0123456789abcdef");
        c.listen_fd = c.tcp_fd = -1;
    }
    if (size < 2) return 0;
    /* one connection, local or not, its bytes as they came */
    struct mpcr_conn conn = {.fd = -1, .local = data[0] & 1, .rank = -1};
    size_t n = size - 1 < sizeof conn.buf ? size - 1 : sizeof conn.buf;
    memcpy(conn.buf, data + 1, n);
    conn.len = n;
    memset(ranks, 0, sizeof ranks);
    for (int r = 0; r < 2; r++) {
        ranks[r].fd = ranks[r].engine = ranks[r].writer_end = -1;
        strcpy(ranks[r].token, r ? "b1b1b1" : "a0a0a0");
    }
    struct job j = {.c = &c,
                    .nranks = 2,
                    .ranks = ranks,
                    .client = -1,
                    .connected = 2,
                    .phase = (enum phase)(data[0] >> 1) % 5,
                    .gen = 7,
                    .abandoned = {.dir = c.dir, .nranks = 2}};
    take_lines(&conn, c.secret, on_request, &j);
    single_request(&c, data, size);
    /* the same bytes as a proxy's lines */
    for (int phase = 0; phase < 5; phase++) {
        j.phase = (enum phase)phase;
        size_t len = size - 1 < sizeof ranks[0].buf - 1 ? size - 1 : sizeof ranks[0].buf - 1;
        memcpy(ranks[1].buf, data + 1, len);
        ranks[1].len = len;
        take_rank_lines(&j, 1);
    }
    mpcr_abandoned_remove_all(&j.abandoned); /* generations given up by a failure */
    return 0;
}
