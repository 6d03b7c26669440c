/* The proxy's table of non-blocking requests, named by token (index + 1).
 *
 * Each entry says, in mpcr's neutral terms, what the request is (a send or
 * a receive: communicator id, peer, tag, staging offset, size) and where it
 * stands. That is what a checkpoint saves (state.c): after the drain every
 * send has completed and every receive not yet matched is cancelled in the
 * real MPI (REQ_REPOST), to be posted again on resume or by a new proxy.
 * A completed request keeps its status until the program waits for it. */
#ifndef MPCR_PROXY_REQUESTS_H
#define MPCR_PROXY_REQUESTS_H

#include <mpi.h>
#include <stdint.h>

enum req_state { REQ_FREE, REQ_ACTIVE, REQ_DONE, REQ_REPOST };
/* REQ_IDUP: an MPI_Comm_idup's (idup.h), active until the communicator is
 * made; no real request of its own, and never cancelled. */
enum req_kind { REQ_SEND, REQ_RECV, REQ_IDUP };

/* A finished request or receive, in neutral values (reply_status's). */
struct req_status {
    int32_t rc, source, tag;
    uint64_t bytes;
};

struct req {
    uint8_t state, kind;
    uint32_t comm;
    int32_t peer, tag;
    uint64_t offset, bytes; /* data, or the receive's capacity */
    uint64_t posted;        /* order of posting: receives are posted again in it */
    struct req_status done;
    MPI_Request real; /* REQ_ACTIVE only */
};

extern struct req *reqs;
extern uint32_t nreqs; /* table size; tokens are 1..nreqs */

struct req *req_get(uint32_t token); /* NULL for a bad token or a free slot */
struct req *req_new(uint32_t *token);
void req_release(struct req *q);

/* Starts a send of the call's kind; counts it. */
int req_start_send(struct req *q, int sync);
/* Posts a receive: from the drain cache if a message there matches (then
 * the request is REQ_DONE at once), else in the real MPI. */
int req_post_recv(struct req *q);
/* Tests one request (cheaper than req_progress when one is asked about). */
int req_test(struct req *q);
/* Tests the active requests among `tokens` (NULL: every one) once, with one
 * MPI_Testsome; those that completed become REQ_DONE. Returns an MPI error
 * code of the call itself. */
int req_progress(const uint32_t *tokens, uint32_t ntokens);
/* For a proxy whose program computes (no call in progress): tests every
 * active request once, so that transfers go on meanwhile. Returns -1 when
 * none is active (nothing to move), else how many completed. */
int req_progress_idle(void);
/* Whether a request of the program is active in the real MPI (an idle proxy
 * then naps between progress calls rather than yield its core: main.c). */
int req_pending(void);
/* Whether a send is under way in the real MPI (a quiesced proxy that
 * naps between drain steps would slow a large one down: ckpt.c). */
int req_sending(void);
/* Cancels a request nobody will wait for (or lets it complete, if it
 * cannot be cancelled any more) and frees its entry. */
void req_withdraw(struct req *q);
/* The program's MPI_Cancel: a receive not matched yet is cancelled in the
 * real MPI and its entry freed (1); a matched receive completes, a send
 * goes on (0), as with MPICH, which never cancels a send. */
int req_cancel(struct req *q);
/* As a resource (resource.h: resource_requests): before an image every
 * send completes and every pending receive is cancelled (REQ_REPOST);
 * the table is saved; when calls are served again (resume) the cancelled
 * receives are posted again, in the order they were first posted. */
/* Completion of a real receive or send into neutral terms. */
void req_status_from(struct req_status *s, int rc, const MPI_Status *st);

#endif
