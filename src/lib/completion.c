/* Completion of non-blocking requests: MPI_Wait, MPI_Test and their
 * several-request forms. The *_one helpers apply no error handler; each
 * MPI function applies its communicator's once. */
#include "lib.h"

static void empty_status(MPI_Status *status)
{
    mpcr_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

/* Finishes request q, whose completion the proxy reported in r (NULL when
 * it completed locally), and frees it. Returns the request's error class;
 * *c is the communicator whose error handler applies. */
static int finish(MPI_Request *request, struct mpcr_request *q, const struct mpcr_reply *r,
                  MPI_Status *status, struct mpcr_comm **c)
{
    int err = MPI_SUCCESS;
    if (!r) {
        if (status != MPI_STATUS_IGNORE) *status = q->status;
    } else if (q->kind == MPCR_REQ_RECV) {
        err = mpcr_finish_recv(r, q->buf, q->capacity, q->offset, q->type, status);
    } else {
        err = r->rc;
        empty_status(status);
    }
    if (q->has_staging) mpcr_staging_free(q->offset);
    *c = q->comm;
    mpcr_request_free(request);
    return err;
}

/* Completes one request: MPCR_OP_WAIT waits for it, MPCR_OP_TEST only
 * looks (*flag says whether it completed). MPI_REQUEST_NULL completes at
 * once with an empty status. */
static int complete_one(enum mpcr_op op, MPI_Request *request, int *flag, MPI_Status *status,
                        struct mpcr_comm **c)
{
    *c = NULL;
    *flag = 1;
    if (*request == MPI_REQUEST_NULL) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    struct mpcr_request *q = mpcr_request_get(*request);
    if (!q) return MPI_ERR_REQUEST;
    if (!q->token) return finish(request, q, NULL, status, c);
    struct mpcr_call *call = mpcr_call_begin(op);
    call->token = q->token;
    const struct mpcr_reply *r = mpcr_call_finish();
    if (op == MPCR_OP_TEST && !r->flag) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return finish(request, q, r, status, c);
}

static int handle(struct mpcr_comm *c, int err, const char *fn)
{
    return c ? mpcr_error(c, err, fn) : mpcr_error_world(err, fn);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPCR_REQUIRE_INIT("MPI_Wait");
    struct mpcr_comm *c;
    int flag, err = complete_one(MPCR_OP_WAIT, request, &flag, status, &c);
    return handle(c, err, "MPI_Wait");
}
MPCR_ALIAS(Wait);

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPCR_REQUIRE_INIT("MPI_Test");
    struct mpcr_comm *c;
    int err = complete_one(MPCR_OP_TEST, request, flag, status, &c);
    return handle(c, err, "MPI_Test");
}
MPCR_ALIAS(Test);

/* MPI_Waitall: where one request fails, MPI returns MPI_ERR_IN_STATUS and
 * each status says how its request ended (MPI 4.0 section 3.7.5); without
 * statuses, the first error. */
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    MPCR_REQUIRE_INIT("MPI_Waitall");
    if (count < 0) return mpcr_error_world(MPI_ERR_COUNT, "MPI_Waitall");
    int first = MPI_SUCCESS;
    struct mpcr_comm *first_comm = NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status ignored, *st = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[i];
        struct mpcr_comm *c;
        int flag, err = complete_one(MPCR_OP_WAIT, &requests[i], &flag, st, &c);
        st->MPI_ERROR = err;
        if (err && !first) first = err, first_comm = c;
    }
    if (!first) return MPI_SUCCESS;
    return handle(first_comm, statuses == MPI_STATUSES_IGNORE ? first : MPI_ERR_IN_STATUS,
                  "MPI_Waitall");
}
MPCR_ALIAS(Waitall);
