/* Requests (request.c, completion.c; docs/pt2pt.md): the object behind
 * every MPI_Request, point-to-point, generalized, collective or
 * MPI_Comm_idup's, and how one is started, completed and freed. */
#ifndef MPCR_REQUEST_H
#define MPCR_REQUEST_H

#include <mpi.h>
#include <stdint.h>

#include "channel.h"
#include "runtime/handle.h"

struct mpcr_comm;
struct mpcr_type;

/* MPCR_REQ_COMM: an MPI_Comm_idup's, completed by the proxy (src/proxy/idup.h). */
enum mpcr_req_kind { MPCR_REQ_SEND = 1, MPCR_REQ_RECV, MPCR_REQ_GREQ, MPCR_REQ_COLL, MPCR_REQ_COMM };
struct mpcr_grequest; /* grequest.c */
struct coll_task;     /* coll_task.c: a non-blocking or persistent collective */
struct mpcr_request {
    struct mpcr_object h;
    enum mpcr_req_kind kind;
    uint32_t token;  /* the proxy's slot; 0 when nothing is pending there */
    int queued;      /* its start waits in the library's queue (post_queue.c): its place
                        there + 1, token 0 meanwhile; else 0 */
    int inactive;    /* a persistent request not started, or completed since */
    int rc;          /* token 0 and active: it completed here, with this class and status */
    uint64_t offset; /* staging area used */
    int has_staging;
    void *buf; /* receive: where to unpack */
    uint64_t capacity;
    const struct mpcr_type *type; /* referenced while the request lives */
    struct mpcr_comm *comm;       /* referenced while the request lives */
    MPI_Status status;            /* for requests completed here */
    /* A persistent request: what MPI_Start starts (persistent.c). */
    int persistent;
    enum mpcr_op start_op; /* MPCR_OP_ISEND, ISSEND or IRECV */
    int buffered;          /* MPI_Bsend_init */
    const void *sbuf;
    MPI_Count count;
    int peer, tag;
    /* Freed by the program while pending (orphan), or a buffered send. */
    uint64_t bsend_charge; /* bytes of the attached buffer it holds (bsend.c) */
    int copies_data;       /* its data is copied, never shared: the program may have the buffer back
                              before it completes (a buffered send, MPI_Isendrecv's send half) */
    struct mpcr_request *next_orphan;
    /* MPI_Isendrecv(_replace)'s request (its receive): the send half, an
     * orphan referenced until its error has been reported here (p2p.c). */
    struct mpcr_request *send_half;
    struct mpcr_grequest *greq;
    struct coll_task *task;
    /* A partitioned request (partitioned.c, docs/partitioned.md): its
     * partitions, which the program has marked ready since MPI_Start
     * (a send's), how many, and whether it is started with its whole
     * message not yet sent (a send waiting for its last MPI_Pready). Its
     * message travels on the collective context (ctx MPCR_COLL_CONTEXT),
     * out of reach of every ordinary receive. */
    int partitions;
    unsigned char *ready;
    int nready;
    int part_started;
    uint32_t ctx;
    int hidden_tag;
};
/* The token that names q in a call about to be made: a queued request's
 * place among the posts that call carries (channel.h: MPCR_TOKEN_CARRIED),
 * valid in that call only; nothing else may reach the proxy in between. */
static inline uint32_t mpcr_request_token(const struct mpcr_request *q)
{
    return q->queued ? MPCR_TOKEN_CARRIED | (uint32_t)(q->queued - 1) : q->token;
}
/* A new request on communicator c (referenced until the request is freed);
 * *handle is set. NULL when out of memory. */
struct mpcr_request *mpcr_request_new(struct mpcr_comm *c, MPI_Request *handle);
struct mpcr_request *mpcr_request_get(MPI_Request handle);
/* The program's MPI_Request_free (and the end of a non-persistent request
 * completed by a Wait/Test): the handle becomes MPI_REQUEST_NULL; a request
 * still pending at the proxy lives on and completes by itself (an orphan). */
void mpcr_request_free(MPI_Request *handle, struct mpcr_request *q);
/* Completion reported by the proxy (r), or NULL for a completion here:
 * unpacks a receive, frees the staging, leaves the status and class in
 * q->status and q->rc; token becomes 0. */
void mpcr_request_settle(struct mpcr_request *q, const struct mpcr_reply *r);
/* Writes the status of completed request q into the program's status as
 * MPI_Wait does: a receive's (MPI_ERROR left alone); of a send's, only the
 * cancelled bit: its source, tag and count keep what the program had there,
 * as with MPICH (a status array shared by sends and receives, MPI_Waitany's,
 * keeps a receive's values). */
void mpcr_request_status_out(const struct mpcr_request *q, MPI_Status *status);
/* Starts a send (op ISEND or ISSEND) or a receive on q (fields set here).
 * The start may be queued (mpcr_posts_deferrable): a caller that needs
 * q's token at once (to make q an orphan) calls mpcr_posts_flush(). */
int mpcr_request_start_send(struct mpcr_request *q, enum mpcr_op op, const void *buf,
                            MPI_Count count, const struct mpcr_type *t, int dest, int tag);
int mpcr_request_start_recv(struct mpcr_request *q, void *buf, MPI_Count count,
                            const struct mpcr_type *t, int source, int tag);
/* Completes what orphans (requests freed while pending, buffered sends) the
 * proxy has finished; with wait_buffered, first waits for every buffered
 * send. Cheap when there are none. */
void mpcr_orphans_poll(int wait_buffered);
/* Waits until every orphan has completed (MPI_Finalize: MPI 4.0 11.2.2
 * has MPI complete a request the program freed while active). */
void mpcr_orphans_finish(void);
/* Completion of q, an MPI_Isendrecv's request: its send half's error
 * becomes q's unless q has one. wait: waits for the send half (MPI_Wait,
 * MPI_Waitall); else only a send half that has completed counts, and one
 * still pending completes by itself, its data staged (as a buffered send's). */
void mpcr_request_join_send_half(struct mpcr_request *q, int wait);
/* One COMPLETE call (channel.h) over n tokens in the staging area at off
 * (allocated by the caller, mpcr_completion_offset's layout). */
/* yielding: a waiting mode answers with nothing completed while another
 * thread wants the library's lock (MULTIPLE: threads.h, mpcr_lock_pass). */
const struct mpcr_reply *mpcr_complete_call(enum mpcr_complete_mode mode, uint32_t n, uint64_t off,
                                           int yielding);

#endif
