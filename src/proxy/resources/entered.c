/* See entered.h. */
#include "entered.h"
#include "cache.h"
#include "proxy.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int32_t entered_key_ordered = ENTERED_KEY_ORDERED;

int entered_announce(uint32_t parent, int tag, const int32_t *key, const uint8_t *entered, uint32_t n)
{
    MPI_Comm coll = real_comm(parent | MPCR_COLL_CONTEXT);
    for (uint32_t m = 0; m < n; m++) {
        if (entered[m] != ENTERED_MISSING) continue;
        MPI_Request req;
        int rc = MPI_Isend(key, 1, MPI_INT32_T, (int)m, tag, coll, &req);
        if (rc != MPI_SUCCESS) return rc; /* the job cannot go on consistently: reported */
        MPI_Request_free(&req);
        proxy.sent++;
    }
    return MPI_SUCCESS;
}

static int32_t key_of(const void *data, uint64_t bytes)
{
    int32_t k = ENTERED_KEY_ORDERED;
    if (bytes >= sizeof k) memcpy(&k, data, sizeof k);
    return k;
}

/* Whether the drain cache holds m's message of key (then it is taken). */
static int from_cache(uint32_t coll_id, uint32_t m, int tag, int32_t key)
{
    for (int k = cache_find(coll_id, (int32_t)m, tag); k >= 0; k = cache_find_after(k, coll_id, (int32_t)m, tag)) {
        if (key_of(cache[k].data, cache[k].bytes) != key) continue;
        struct req_status s;
        cache_take(k, NULL, 0, &s);
        return 1;
    }
    return 0;
}

/* Whether m's message of key has come (then it is taken); the messages of
 * other keys that come before it go to the cache, for their creations. */
static int from_network(uint32_t coll_id, MPI_Comm coll, uint32_t m, int tag, int32_t key)
{
    for (;;) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        if (MPI_Improbe((int)m, tag, coll, &flag, &msg, &st) != MPI_SUCCESS || !flag) return 0;
        int32_t got = ENTERED_KEY_ORDERED;
        uint64_t bytes = status_bytes(&st);
        MPI_Mrecv(&got, bytes >= sizeof got ? 1 : 0, MPI_INT32_T, &msg, &st);
        proxy.received++;
        if (bytes < sizeof got) got = ENTERED_KEY_ORDERED;
        if (got == key) return 1;
        int32_t *kept = malloc(sizeof *kept);
        if (!kept || cache_add(coll_id, (int32_t)m, tag, 0, sizeof *kept, kept)) {
            mpcr_report("rank %d: out of memory for a communicator creation's message", proxy.rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        *kept = got;
    }
}

int entered_collect(uint32_t parent, int tag, int32_t key, uint8_t *entered, uint32_t n,
                    entered_older_fn *older, const void *self)
{
    uint32_t coll_id = parent | MPCR_COLL_CONTEXT, missing = 0;
    MPI_Comm coll = real_comm(coll_id);
    for (uint32_t m = 0; m < n; m++) {
        if (entered[m] != ENTERED_MISSING) continue;
        if ((older && older(parent, m, self)) ||
            !(from_cache(coll_id, m, tag, key) || from_network(coll_id, coll, m, tag, key))) {
            missing++;
            continue;
        }
        entered[m] = ENTERED_IN;
    }
    return missing == 0;
}

void entered_missing(const uint8_t *entered, uint32_t n, char *out, size_t cap)
{
    size_t at = 0;
    out[0] = 0;
    for (uint32_t m = 0; m < n && at + 2 < cap; m++)
        if (entered[m] == ENTERED_MISSING) {
            int k = snprintf(out + at, cap - at, " %u", m);
            if (k < 0 || (size_t)k >= cap - at) {
                out[at] = 0; /* no rank cut short: a number that does not fit is left out */
                break;
            }
            at += (size_t)k;
        }
}
