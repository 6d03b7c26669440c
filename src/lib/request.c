/* Non-blocking requests: what a request needs to complete lives in its
 * object (handle.h); the proxy knows it by `token`. A request holds a
 * reference to its communicator, so that MPI_Comm_free with requests
 * pending frees the communicator only once they are done (MPI 4.0 6.4.3). */
#include "lib.h"

struct mpcr_request *mpcr_request_new(struct mpcr_comm *c, MPI_Request *handle)
{
    struct mpcr_request *q = mpcr_obj_new(MPCR_KIND_REQUEST, sizeof *q, NULL);
    if (!q) return NULL;
    q->comm = c;
    mpcr_comm_ref(c);
    *handle = (MPI_Request)mpcr_obj_handle(q);
    return q;
}

struct mpcr_request *mpcr_request_get(MPI_Request handle)
{
    return mpcr_obj_get(MPCR_KIND_REQUEST, (uint32_t)handle);
}

void mpcr_request_free(MPI_Request *handle, struct mpcr_request *q)
{
    struct mpcr_comm *c = q->comm;
    mpcr_obj_drop_handle(q);
    mpcr_comm_unref(c); /* may free a communicator the program freed already */
    *handle = MPI_REQUEST_NULL;
}
