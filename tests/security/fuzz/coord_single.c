/* The single-process coordinator's request handler (src/coord/coord.c,
 * on_request) for fuzz_lines: coord.c is included here, in a file of its
 * own (its statics would clash with job.c's), and this file is linked in
 * its place. The process it supervises is a pid that runs nothing, so no
 * signal is ever sent: its engine never looks ready. */
#include "../../../src/coord/coord.c"

#include <limits.h>

void fuzz_coord_request(struct mpcr_coord *c, const struct mpcr_request *rq, int state);

/* state: bit 0 a checkpoint pending, bit 1 its process signalled (so
 * generation 7's image report is awaited), bit 2 the peer not the process
 * (nor a child of it: an image report from it is refused). */
void fuzz_coord_request(struct mpcr_coord *c, const struct mpcr_request *rq, int state)
{
    struct pending p = {.active = state & 1,
                        .signalled = state >> 1 & 1,
                        .gen = 7,
                        .client = -1,
                        .started = mpcr_now_s()};
    struct serving sv = {c, state & 4 ? INT_MAX - 1 : rq->pid, &p};
    on_request(&sv, rq);
}
