/* See entered.h. */
#include "entered.h"
#include "cache.h"
#include "proxy.h"

int entered_announce(uint32_t parent, int tag, const uint8_t *entered, uint32_t n)
{
    MPI_Comm coll = real_comm(parent | MPCR_COLL_CONTEXT);
    for (uint32_t m = 0; m < n; m++) {
        if (entered[m] != ENTERED_MISSING) continue;
        MPI_Request req;
        int rc = MPI_Isend(NULL, 0, MPI_BYTE, (int)m, tag, coll, &req);
        if (rc != MPI_SUCCESS) return rc; /* the job cannot go on consistently: reported */
        MPI_Request_free(&req);
        proxy.sent++;
    }
    return MPI_SUCCESS;
}

int entered_collect(uint32_t parent, int tag, uint8_t *entered, uint32_t n,
                    entered_older_fn *older, const void *self)
{
    uint32_t coll_id = parent | MPCR_COLL_CONTEXT, missing = 0;
    MPI_Comm coll = real_comm(coll_id);
    for (uint32_t m = 0; m < n; m++) {
        if (entered[m] != ENTERED_MISSING) continue;
        if (older && older(parent, m, self)) {
            missing++;
            continue;
        }
        int k = cache_find(coll_id, (int32_t)m, tag);
        if (k >= 0) {
            struct req_status s;
            cache_take(k, NULL, 0, &s);
            entered[m] = ENTERED_IN;
            continue;
        }
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        if (MPI_Improbe((int)m, tag, coll, &flag, &msg, &st) == MPI_SUCCESS && flag) {
            MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, &st);
            proxy.received++;
            entered[m] = ENTERED_IN;
            continue;
        }
        missing++;
    }
    return missing == 0;
}
