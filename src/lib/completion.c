/* Completion of non-blocking requests: MPI_Wait, MPI_Test and their
 * several-request forms. The helpers apply no error handler; each MPI
 * function applies, once, the handler of the communicator of the request
 * that failed (these are `ownerrors` functions in src/lib/api). A request's
 * communicator may go with the request (freed by the program meanwhile),
 * so what is kept is its error handler, not the communicator. */
#include "api_gen.h"

static void empty_status(MPI_Status *status)
{
    mpcr_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

/* Finishes request q, whose completion the proxy reported in r (NULL when
 * it completed locally), and frees it. Returns the request's error class;
 * *eh is the error handler that applies to it. */
static int finish(MPI_Request *request, struct mpcr_request *q, const struct mpcr_reply *r,
                  MPI_Status *status, MPI_Errhandler *eh)
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
    *eh = q->comm->errhandler;
    mpcr_request_free(request, q);
    return err;
}

/* Completes one request: MPCR_OP_WAIT waits for it, MPCR_OP_TEST only
 * looks (*flag says whether it completed). MPI_REQUEST_NULL completes at
 * once with an empty status. */
static int complete_one(enum mpcr_op op, MPI_Request *request, int *flag, MPI_Status *status,
                        MPI_Errhandler *eh)
{
    *flag = 1;
    if (*request == MPI_REQUEST_NULL) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    struct mpcr_request *q = mpcr_request_get(*request);
    if (!q) return MPI_ERR_REQUEST;
    if (!q->token) return finish(request, q, NULL, status, eh);
    struct mpcr_call *call = mpcr_call_begin(op);
    call->token = q->token;
    const struct mpcr_reply *r = mpcr_call_finish();
    if (op == MPCR_OP_TEST && !r->flag) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return finish(request, q, r, status, eh);
}

int mpcr_impl_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Errhandler eh = mpcr_world_errhandler();
    int flag, err = complete_one(MPCR_OP_WAIT, request, &flag, status, &eh);
    return mpcr_error_eh(eh, err, "MPI_Wait");
}

int mpcr_impl_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Errhandler eh = mpcr_world_errhandler();
    int err = complete_one(MPCR_OP_TEST, request, flag, status, &eh);
    return mpcr_error_eh(eh, err, "MPI_Test");
}

/* MPI_Waitall: where one request fails, MPI returns MPI_ERR_IN_STATUS and
 * each status says how its request ended (MPI 4.0 section 3.7.5); without
 * statuses, the first error. */
/* ---- several requests through the proxy's COMPLETE (channel.h) ---- */

/* Finishes request i of a COMPLETE call from its result. */
static int finish_result(MPI_Request *request, const struct mpcr_completion *res,
                         MPI_Status *status, MPI_Errhandler *eh)
{
    struct mpcr_reply r = {
        .rc = res->rc, .source = res->source, .tag = res->tag, .bytes = res->bytes};
    return finish(request, mpcr_request_get(*request), &r, status, eh);
}

static MPI_Status *status_at(MPI_Status statuses[], int i, MPI_Status *ignored)
{
    return statuses == MPI_STATUSES_IGNORE ? ignored : &statuses[i];
}

/* Waitany/Testany/Waitsome/Testsome/Testall/Waitall, each one round trip
 * to the proxy. Out: *result (the index for ANY, the count for SOME;
 * MPI_UNDEFINED when no request is active), *flag (TEST modes), indices[]
 * (SOME), statuses. Returns an error class: for SOME and ALL,
 * MPI_ERR_IN_STATUS when a request failed (ALL without statuses: the first
 * failure's class). */
static int several(enum mpcr_complete_mode mode, int count, MPI_Request reqs[], int *result,
                   int *flag, int indices[], MPI_Status statuses[], MPI_Errhandler *c)
{
    int any = mode == MPCR_WAITANY || mode == MPCR_TESTANY, active = 0, local = -1;
    int all = mode == MPCR_TESTALL || mode == MPCR_WAITALL;
    MPI_Status ignored;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        struct mpcr_request *q = mpcr_request_get(reqs[i]);
        if (!q) return MPI_ERR_REQUEST;
        active++;
        if (!q->token && local < 0) local = i; /* completed already (peer MPI_PROC_NULL) */
    }
    if (flag) *flag = 1;
    if (!active) { /* MPI 4.0 3.7.5: nothing to wait for */
        *result = MPI_UNDEFINED;
        if (any) empty_status(statuses == MPI_STATUSES_IGNORE ? &ignored : statuses);
        for (int i = 0; all && i < count; i++)
            empty_status(status_at(statuses, i, &ignored));
        return MPI_SUCCESS;
    }
    if (local >= 0 && !all) { /* a completed request: report it at once */
        struct mpcr_request *q = mpcr_request_get(reqs[local]);
        MPI_Status *st = any ? (statuses == MPI_STATUSES_IGNORE ? &ignored : statuses)
                             : status_at(statuses, 0, &ignored);
        int err = finish(&reqs[local], q, NULL, st, c);
        *result = any ? local : 1;
        if (!any) indices[0] = local;
        return err;
    }
    uint64_t off, bytes = mpcr_completion_offset(0, (uint32_t)count) +
                          (uint64_t)count * sizeof(struct mpcr_completion);
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) return err;
    uint32_t *tokens = mpcr_staging_ptr(off);
    for (int i = 0; i < count; i++) {
        struct mpcr_request *q = reqs[i] == MPI_REQUEST_NULL ? NULL : mpcr_request_get(reqs[i]);
        tokens[i] = q ? q->token : 0;
    }
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMPLETE);
    call->offset = off;
    call->peer = count;
    call->tag = mode;
    const struct mpcr_reply *r = mpcr_call_finish();
    err = r->rc;
    int value = r->value, all_done = r->flag;
    const struct mpcr_completion *res =
        mpcr_staging_ptr(mpcr_completion_offset(off, (uint32_t)count));
    if (!err && any) {
        *result = value >= 0 ? value : MPI_UNDEFINED;
        if (flag) *flag = value >= 0;
        if (value >= 0)
            err = finish_result(&reqs[value], &res[value],
                                statuses == MPI_STATUSES_IGNORE ? &ignored : statuses, c);
    } else if (!err && all) {
        if (flag) *flag = all_done;
        for (int i = 0; all_done && i < count; i++) {
            MPI_Status *st = status_at(statuses, i, &ignored);
            MPI_Errhandler ci = *c;
            int e = reqs[i] == MPI_REQUEST_NULL ? (empty_status(st), MPI_SUCCESS)
                    : res[i].done               ? finish_result(&reqs[i], &res[i], st, &ci)
                                  : finish(&reqs[i], mpcr_request_get(reqs[i]), NULL, st, &ci);
            st->MPI_ERROR = e;
            if (e && !err) err = statuses == MPI_STATUSES_IGNORE ? e : MPI_ERR_IN_STATUS, *c = ci;
        }
    } else if (!err) { /* SOME */
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (!res[i].done) continue;
            MPI_Status *st = status_at(statuses, n, &ignored);
            MPI_Errhandler ci = *c;
            int e = finish_result(&reqs[i], &res[i], st, &ci);
            st->MPI_ERROR = e;
            if (e && !err) err = MPI_ERR_IN_STATUS, *c = ci;
            indices[n++] = i;
        }
        *result = n;
        if (flag) *flag = n > 0;
    }
    mpcr_staging_free(off);
    return err;
}

/* The count was checked (non-negative) by the entry point; MPI's int
 * count is what these functions take. */
#define SEVERAL(name, mode, count, reqs, result, flag, indices, statuses)                          \
    MPI_Errhandler eh = mpcr_world_errhandler();                                                   \
    int err = several(mode, (int)(count), reqs, result, flag, indices, statuses, &eh);             \
    return mpcr_error_eh(eh, err, name)

int mpcr_impl_Waitany(MPI_Count count, MPI_Request requests[], int *index, MPI_Status *status)
{
    SEVERAL("MPI_Waitany", MPCR_WAITANY, count, requests, index, NULL, NULL, status);
}

int mpcr_impl_Testany(MPI_Count count, MPI_Request requests[], int *index, int *flag,
                      MPI_Status *status)
{
    SEVERAL("MPI_Testany", MPCR_TESTANY, count, requests, index, flag, NULL, status);
}

int mpcr_impl_Waitsome(MPI_Count incount, MPI_Request requests[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    SEVERAL("MPI_Waitsome", MPCR_WAITSOME, incount, requests, outcount, NULL, indices, statuses);
}

int mpcr_impl_Testsome(MPI_Count incount, MPI_Request requests[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    int flag;
    SEVERAL("MPI_Testsome", MPCR_TESTSOME, incount, requests, outcount, &flag, indices, statuses);
}

int mpcr_impl_Waitall(MPI_Count count, MPI_Request requests[], MPI_Status statuses[])
{
    int result;
    SEVERAL("MPI_Waitall", MPCR_WAITALL, count, requests, &result, NULL, NULL, statuses);
}

int mpcr_impl_Testall(MPI_Count count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    int result;
    SEVERAL("MPI_Testall", MPCR_TESTALL, count, requests, &result, flag, NULL, statuses);
}
