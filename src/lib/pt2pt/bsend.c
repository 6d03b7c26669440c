/* Buffered sends (MPI 4.0 section 3.6). The program's attached buffer is
 * the budget: each pending buffered send holds its packed size plus
 * MPI_BSEND_OVERHEAD bytes of it (as MPICH's mpi.h says), and a send that
 * does not fit fails with MPI_ERR_BUFFER once the sends that completed
 * have given their room back. The message itself waits in the staging
 * area (the one copy every send makes, in the program's memory and image)
 * as a send request the program never sees (an orphan, request.c): the
 * proxy completes it, a later MPI call collects it and frees its room. A
 * checkpoint finds it pending at the proxy, which completes it in the
 * drain: it is neither lost nor sent twice (docs/pt2pt.md). */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/typemap.h"
#include "p2p.h"
#include "request.h"
#include "runtime/runtime.h"

static void *attached;
static uint64_t attached_size, in_use;

void mpcr_bsend_release(uint64_t charge)
{
    in_use -= charge;
}

int mpcr_bsend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
               struct mpcr_comm *c)
{
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    uint64_t bytes, charge;
    int err = mpcr_bytes_of(count, t, &bytes);
    if (err) return err;
    if (__builtin_add_overflow(bytes, (uint64_t)MPI_BSEND_OVERHEAD, &charge)) return MPI_ERR_BUFFER;
    if (in_use + charge > attached_size) mpcr_orphans_poll(0); /* sends done give room back */
    if (in_use + charge > attached_size) return MPI_ERR_BUFFER;
    MPI_Request handle;
    struct mpcr_request *q = mpcr_request_new(c, &handle);
    if (!q) return MPI_ERR_NO_MEM;
    q->copies_data = 1;
    err = mpcr_request_start_send(q, MPCR_OP_ISEND, buf, count, t, dest, tag);
    mpcr_posts_flush(); /* its token, for the orphan list (its start may have been queued) */
    if (!err) {
        q->bsend_charge = charge;
        in_use += charge;
    }
    mpcr_request_free(&handle, q); /* pending: an orphan from now on */
    return err;
}

int mpcr_impl_Bsend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                    struct mpcr_comm *c)
{
    return mpcr_bsend(buf, count, t, dest, tag, c);
}

/* The message is in the buffer once the call returns: the request is
 * complete at once, as MPICH's is. */
int mpcr_impl_Ibsend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                     struct mpcr_comm *c, MPI_Request *request)
{
    int err = mpcr_bsend(buf, count, t, dest, tag, c);
    if (err) return err;
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) return MPI_ERR_NO_MEM;
    q->kind = MPCR_REQ_SEND;
    mpcr_status_set(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    return MPI_SUCCESS;
}

int mpcr_impl_Buffer_attach(void *buffer, MPI_Count size)
{
    if (attached) return MPI_ERR_BUFFER; /* one buffer at a time (MPI 4.0 3.6.1) */
    if (!buffer && size > 0) return MPI_ERR_BUFFER;
    attached = buffer, attached_size = (uint64_t)size;
    return MPI_SUCCESS;
}

/* Waits until every buffered send has completed, then hands the buffer
 * back. Without one attached: NULL and 0, as MPICH answers. */
int mpcr_impl_Buffer_detach(void *buffer_addr, MPI_Count *size)
{
    if (!buffer_addr) return MPI_ERR_ARG;
    while (in_use)
        mpcr_orphans_poll(1);
    *(void **)buffer_addr = attached;
    *size = (MPI_Count)attached_size;
    attached = NULL, attached_size = 0;
    return MPI_SUCCESS;
}
