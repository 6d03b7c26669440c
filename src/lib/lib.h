/* Internal state and helpers of mpcr's passive MPI library.
 *
 * Everything here lives in the application's memory, so it is part of the
 * application's checkpoint image (DESIGN section 2); the proxy holds nothing
 * that must survive. Names: MPI_/PMPI_ are the public ABI, mpcr_ internal. */
#ifndef MPCR_LIB_H
#define MPCR_LIB_H

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "channel.h"
#include "handle.h"

struct mpcr_lib {
    int initialized, finalized;
    int thread_level;
    /* 1 once the progress helper runs (progress.c): from then on every
     * call holds the library's lock, at every thread level (threads.h). */
    int progress_helper;
    pthread_t main_thread;
    int rank, size, tag_ub;
    pid_t proxy_pid;
    struct mpcr_chan *chan; /* its mapping */
    uint64_t staging_size;  /* bytes of staging area mapped after the control page */
    uint64_t staging_growing; /* size asked by a GROW not yet followed by the mremap, or 0 (staging.c) */
    uint32_t seq;           /* last call published */
    /* The call being written (mpcr_call_begin .. mpcr_call_finish), copied
     * into the channel's call line in one burst when it is published: the
     * proxy polls that line, and each field written there one at a time
     * would pull the line back and forth between the two cores. */
    struct mpcr_call draft;
    char processor_name[MPI_MAX_PROCESSOR_NAME];
    char proxy_version[256];
};
extern struct mpcr_lib mpcr;

#include "threads.h" /* reads mpcr.thread_level */

/* The proxy is our parent; the kernel sends this signal when it dies. */
#define MPCR_PROXY_DEATH_SIGNAL (SIGRTMAX - 1)

struct mpcr_request;

/* Hooks the checkpoint engine into this library (restart.c). */
void mpcr_checkpoint_setup(void);

/* ---- calls to the proxy (call.c) ---- */

/* ---- posting without waiting (post_queue.c) ---- */
extern unsigned mpcr_posts_queued; /* posts in the queue */
extern unsigned mpcr_posts_carried; /* posts the call being made carries */
void mpcr_posts_flush_queued(void);
struct mpcr_call;
void mpcr_posts_attach(struct mpcr_call *c); /* the queue goes with call c */
void mpcr_posts_settle_carried(void); /* c answered: the posts' tokens (mpcr_call_finish) */
/* Hands the queued posts to the proxy (one IBATCH call), if there are any.
 * Never allocates staging: pointers into the area stay valid. */
static inline void mpcr_posts_flush(void)
{
    if (__builtin_expect(mpcr_posts_queued != 0, 0)) mpcr_posts_flush_queued();
}
/* Whether a send or receive started now may be queued instead of posted:
 * below MULTIPLE, in the program's outermost call, the progress helper
 * running (started here if need be); or inside mpcr_posts_batch_begin/end. */
int mpcr_posts_deferrable(void);
/* Around starting several requests (MPI_Startall): they are queued, and the
 * queue is handed over at the end unless it may wait. */
void mpcr_posts_batch_begin(void);
void mpcr_posts_batch_end(void);
/* Queues the start of q (a send's or a receive's; op MPCR_OP_ISEND, ISSEND
 * or IRECV) with its data staged at [data, data + bytes): q is active, its
 * token 0 until the queue is handed over. */
int mpcr_post_enqueue(struct mpcr_request *q, enum mpcr_op op, int peer, int tag, uint64_t data,
                      uint64_t bytes);
/* One IBATCH call: the n operations at staging offset off started as
 * requests of the proxy (their tokens written back); the call's error class. */
int mpcr_ibatch(uint64_t off, unsigned n);
/* For the progress helper (progress.c): the queue's starts so far, and
 * whether the queue there now was there at its last turn already. */
uint32_t mpcr_posts_generation(void);
int mpcr_posts_overdue(void);
/* progress.c: whether the progress helper runs (started now if it may),
 * and the queue's start from empty, which wakes a helper asleep for good. */
int mpcr_progress_ready(void);
void mpcr_progress_posts_started(void);

/* Starts a call that has no place in the program's order of operations
 * (GROW, made from inside the staging allocator, which a hand-over of the
 * queue must not re-enter): returns the call's draft (mpcr.draft) with op
 * filled in, others stale. */
static inline struct mpcr_call *mpcr_call_begin_aside(enum mpcr_op op)
{
    struct mpcr_call *c = &mpcr.draft;
    c->op = op;
    c->pre_count = 0;
    return c;
}
/* Starts a call (as above) that carries the posts still queued: the proxy
 * starts them before it serves the call, so that it sees the program's
 * order, and the call's mpcr_call_finish gives them their tokens. */
static inline struct mpcr_call *mpcr_call_begin(enum mpcr_op op)
{
    struct mpcr_call *c = mpcr_call_begin_aside(op);
    if (__builtin_expect(mpcr_posts_queued != 0, 0)) mpcr_posts_attach(c);
    return c;
}
/* Publishes the call begun with mpcr_call_begin and waits for the reply. */
const struct mpcr_reply *mpcr_call_finish(void);
static inline const struct mpcr_reply *mpcr_call_finish_op(enum mpcr_op op)
{
    mpcr_call_begin(op);
    return mpcr_call_finish();
}
/* Ends the program when the proxy is gone (called from waits). */
_Noreturn void mpcr_proxy_lost(void);

/* ---- polls that keep finding nothing (poll_pace.c) ---- */
struct mpcr_poll_question {
    uint32_t op, comm; /* the call (MPCR_OP_IPROBE...), the communicator's vid */
    int32_t peer, tag;
};
/* Whether poll q may answer "nothing yet" without asking the proxy. */
int mpcr_poll_paced(const struct mpcr_poll_question *q);
/* The proxy answered poll q, asked at asked_ns (mpcr_now_ns): found or not. */
void mpcr_poll_answered(const struct mpcr_poll_question *q, int found, uint64_t asked_ns);

/* ---- shared buffers (shared_buffers.c): large messages without copies ---- */
/* Whether the contiguous message [data, data + bytes) moves through a
 * shared buffer; then *offset names it for the proxy (>= MPCR_SHARED_BASE),
 * and mpcr_staging_free(*offset) ends the use. A send's data is ready. */
int mpcr_share_send(const void *data, uint64_t bytes, uint64_t *offset);
int mpcr_share_recv(void *data, uint64_t bytes, uint64_t *offset);
/* A receive at offset completed with `got` bytes: its ends come out of the slots. */
void mpcr_share_received(uint64_t offset, uint64_t got);
void mpcr_share_release(uint64_t offset);
void mpcr_shares_before_checkpoint(void); /* checkpoint hooks (restart.c) */
void mpcr_shares_restarted(int sock);
/* Whether a share was ever made (any thread may ask: the progress helper's
 * sweeps, progress.c). */
int mpcr_shares_made(void);
/* The program is about to discard [lo, hi) (discard: MADV_DONTNEED or
 * MADV_DONTNEED_LOCKED, as the kernel should check it; the pages become
 * zeros) or to move it or change its kind (discard 0: the bytes stay):
 * the pieces of it that are a share's memory become private memory
 * first, so that the call does what it does to private memory
 * (memory_calls.c). -1 with errno: the kernel refused the discard, or no
 * memory (a piece may be left as it was). */
int mpcr_shares_leave(uintptr_t lo, uintptr_t hi, int discard);

/* ---- staging area (staging.c) ---- */
int mpcr_staging_alloc(uint64_t bytes, uint64_t *offset); /* 0 or MPI error class */
void mpcr_staging_free_area(uint64_t offset);
/* Ends a message's use of offset: of the staging area or of a shared buffer. */
static inline void mpcr_staging_free(uint64_t offset)
{
    if (__builtin_expect(offset >= MPCR_SHARED_BASE, 0))
        mpcr_share_release(offset);
    else
        mpcr_staging_free_area(offset);
}
/* Around an access to the channel by a thread that has not the library's
 * lock (MULTIPLE): the channel does not move meanwhile (staging.c). */
void mpcr_chan_use_begin(void);
void mpcr_chan_use_end(void);
static inline void *mpcr_staging_ptr(uint64_t offset)
{
    return mpcr_staging(mpcr.chan, offset);
}

/* ---- datatypes (datatype.c; struct mpcr_type and pack/unpack: typemap.h) ---- */
#include "typemap.h"
/* NULL when the handle is not a valid datatype. */
const struct mpcr_type *mpcr_type_get(MPI_Datatype type);
int64_t mpcr_type_pair_first(const struct mpcr_type *t); /* datatype.c */
void mpcr_pack(void *dst, const void *src, MPI_Count count, const struct mpcr_type *t);
void mpcr_unpack(void *dst, const void *src, uint64_t bytes, const struct mpcr_type *t);
/* Where count elements of t at buf lie when they are one range of bytes
 * (packing them is one memcpy), or NULL. */
const void *mpcr_type_flat_data(const void *buf, MPI_Count count, const struct mpcr_type *t);

/* Whether a datatype handle is one of MPI's predefined types (a NULL buffer
 * with one of them is an error; with a derived type it is MPI_BOTTOM). */
static inline int mpcr_type_is_predefined(MPI_Datatype type)
{
    uint32_t u = (uint32_t)type;
    return (u >> 30) == 1 || (u >= 0x8c000000u && u <= 0x8c000004u); /* the MINLOC pairs */
}

/* An array of counts or displacements of an MPI function whose int form
 * takes int[] and whose _c form takes MPI_Count[] or MPI_Aint[] (both 64-bit). */
struct mpcr_counts {
    const void *p;
    int large;
};
static inline MPI_Count mpcr_count_at(struct mpcr_counts c, MPI_Count i)
{
    return c.large ? ((const MPI_Count *)c.p)[i] : ((const int *)c.p)[i];
}

/* ---- communicators (comm.c) ---- */
struct mpcr_topo;
struct mpcr_comm {
    struct mpcr_object h; /* user communicators; unused for WORLD and SELF */
    uint32_t vid;         /* the proxy's id of it */
    int rank, size;
    MPI_Errhandler errhandler;
    uint32_t coll_seq; /* collectives this rank started on it (src/lib/coll.h: their tags) */
    uint8_t hints;     /* the MPI 4 assertions set on it, a bit each (comm_info.c) */
    int32_t *members;       /* world rank of each rank, malloc'd; NULL: MPI_COMM_WORLD's */
    char *name;             /* MPI_Comm_set_name's (malloc'd), or NULL: the default */
    struct mpcr_topo *topo; /* its topology (topo.c), or NULL */
    struct mpcr_inter *inter; /* an inter-communicator's other side (intercomm.c), or NULL */
};
struct mpcr_comm *mpcr_comm_get(MPI_Comm comm); /* NULL when invalid */
/* The world rank of rank r of c (of its local group, for an inter-communicator). */
static inline int32_t mpcr_comm_world_rank(const struct mpcr_comm *c, int r)
{
    return c->members ? c->members[r] : r;
}

/* An inter-communicator (docs/communicators.md): at the proxy one
 * intra-communicator over both groups (the "span": the group whose leader
 * has the lower world rank first), named by the inter-communicator's vid;
 * here its local group (members, rank, size of struct mpcr_comm) and this.
 * Point-to-point translates the ranks the program names (the remote group's)
 * into ranks of the span, and the span's back into the remote group's. */
struct mpcr_inter {
    int remote_size;
    int32_t *remote;    /* world rank of each remote rank */
    int32_t *to_span;   /* rank in the span of each remote rank */
    int32_t *from_span; /* remote rank of each rank of the span; -1: a local one */
    int span_size;      /* the span's size, local and remote groups together */
    int low;            /* the local group comes first in the span (MPI_Intercomm_merge's tie) */
    struct mpcr_comm *local; /* a hidden intra-communicator over the local group (collectives);
                                NULL until mpcr_inter_ready makes it */
};
/* The ranks a point-to-point call on c may name: the remote group's size
 * for an inter-communicator. */
static inline int mpcr_comm_peers(const struct mpcr_comm *c)
{
    return c->inter ? c->inter->remote_size : c->size;
}
/* A rank the program names (>= 0) as the proxy's communicator knows it;
 * wildcards and MPI_PROC_NULL unchanged. */
static inline int mpcr_comm_peer_out(const struct mpcr_comm *c, int rank)
{
    return c && c->inter && rank >= 0 ? c->inter->to_span[rank] : rank;
}
/* A source the proxy reports (>= 0) as the program knows it. */
static inline int mpcr_comm_peer_in(const struct mpcr_comm *c, int source)
{
    return c && c->inter && source >= 0 && source < c->inter->span_size
               ? c->inter->from_span[source]
               : source;
}
/* The size of the proxy's communicator behind c (the span's for an
 * inter-communicator). */
static inline int mpcr_comm_proxy_size(const struct mpcr_comm *c)
{
    return c->inter ? c->inter->span_size : c->size;
}
/* Creation helpers of comm.c that intercomm.c builds on. */
int mpcr_comm_create_world(const int32_t *world_ranks, int n, int tag, MPI_Errhandler eh,
                           struct mpcr_comm **out);
void mpcr_comm_release(struct mpcr_comm *c); /* a hidden or failed communicator: gone */
/* MPI_Comm_split_type's hardware types (comm_split_hw.c). */
int mpcr_comm_split_hw(struct mpcr_comm *c, int split_type, int key, MPI_Info info,
                       MPI_Comm *newcomm);
int mpcr_comm_split_neighborhood(struct mpcr_comm *c, int key, MPI_Info info, MPI_Comm *newcomm);
/* MPI_Comm_idup (comm.c): newcomm at once, made at the proxy by the request. */
int mpcr_comm_idup(struct mpcr_comm *c, MPI_Comm *newcomm, MPI_Request *request);
/* COMM_SPLIT of the proxy's communicator behind c (an inter-communicator's span). */
int mpcr_comm_split_span(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out);
/* COMM_SPLIT_TYPE of it: the span's ranks on this rank's host. */
int mpcr_comm_split_type_span(struct mpcr_comm *c, int split_type, int key,
                              struct mpcr_comm **out);
/* intercomm.c: what comm.c's dup, split, compare, free do for an inter-communicator.
 * MPI_Comm_idup's duplicate gets its hidden local communicator at its first
 * collective (mpcr_inter_ready), which every rank of both groups calls, so
 * the duplicate needs no blocking creation (MPI_Comm_dup makes it at once). */
int mpcr_inter_dup(const struct mpcr_comm *c, struct mpcr_comm *n);
/* Before a collective on inter-communicator c: its hidden local communicator
 * made if it is not yet (a split of the span, collective over both groups). */
int mpcr_inter_ready(struct mpcr_comm *c);
int mpcr_inter_split(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out);
int mpcr_inter_split_type(struct mpcr_comm *c, int split_type, int key, struct mpcr_comm **out);
struct mpcr_group;
int mpcr_inter_create(struct mpcr_comm *c, struct mpcr_group *g, MPI_Comm *newcomm);
int mpcr_inter_compare(const struct mpcr_comm *a, const struct mpcr_comm *b);
void mpcr_inter_destroy(struct mpcr_inter *x);

/* ---- windows (win.c; their attributes: attr.c, dtype.h) ---- */
struct mpcr_win;
struct mpcr_win *mpcr_win_get(MPI_Win win); /* NULL when invalid */

/* ---- groups (group.c): ranks of MPI_COMM_WORLD, in the group's order ---- */
struct mpcr_group {
    struct mpcr_object h; /* user groups; unused for MPI_GROUP_EMPTY */
    int size;
    int32_t ranks[]; /* world ranks */
};
struct mpcr_group *mpcr_group_get(MPI_Group group); /* NULL when invalid */
/* A new group of n world ranks (copied) and its handle; MPI_GROUP_EMPTY when n is 0. */
int mpcr_group_make(const int32_t *ranks, int n, MPI_Group *handle);
/* Rank of world rank w in the group, or MPI_UNDEFINED. */
int mpcr_group_rank_of(const struct mpcr_group *g, int32_t w);
/* A request on the communicator keeps it alive after MPI_Comm_free. */
void mpcr_comm_ref(struct mpcr_comm *c);
void mpcr_comm_unref(struct mpcr_comm *c);

/* A point-to-point call on communicator id `vid` (with MPCR_COLL_CONTEXT for
 * the library's own collective traffic); arguments are not checked. */
const struct mpcr_reply *mpcr_p2p_call(enum mpcr_op op, uint32_t vid, int peer, int tag,
                                       uint64_t offset, uint64_t bytes);

/* Several sends and receives in one round trip (channel.h: BATCH): fills
 * each op's result; returns the call's error class. */
int mpcr_batch(struct mpcr_batch_op *ops, unsigned n);
/* A send to dest and a receive from source (either MPI_PROC_NULL) on
 * communicator c, in one round trip; the first error class. */
int mpcr_exchange(const struct mpcr_comm *c, int dest, int sendtag, const void *sendbuf,
                  MPI_Count sendcount, const struct mpcr_type *st, int source, int recvtag,
                  void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                  MPI_Status *status);

/* Completes a receive on communicator c: unpacks what the proxy's reply r
 * says arrived in the staging area at offset into buf, fills status (its
 * source as c's program knows it); returns r's error class. */
int mpcr_finish_recv(const struct mpcr_comm *c, const struct mpcr_reply *r, void *buf,
                     uint64_t capacity, uint64_t offset, const struct mpcr_type *t,
                     MPI_Status *status);

/* ---- info objects and attributes (info.c, attr.c; the rest in dtype.h) ---- */
struct mpcr_info;
/* NULL when the handle is not a valid info object (MPI_INFO_NULL included). */
struct mpcr_info *mpcr_info_get(MPI_Info info);
/* The attribute hooks of MPI_Comm_dup (copy callbacks; an MPI error class)
 * and of MPI_Comm_free (delete callbacks; an MPI error class). */
int mpcr_attr_comm_dup(struct mpcr_comm *from, struct mpcr_comm *to);
int mpcr_attr_comm_free(struct mpcr_comm *c);

/* ---- requests (request.c; docs/pt2pt.md) ---- */
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

/* ---- errors (errors.c) ---- */
/* Applies comm's error handler to error class `err` raised by function `fn`:
 * returns err (MPI_ERRORS_RETURN) or ends the job (MPI_ERRORS_ARE_FATAL).
 * comm NULL (the call had no valid communicator): MPI_COMM_WORLD's handler. */
int mpcr_error(struct mpcr_comm *comm, int err, const char *fn);
/* The same with the error handler itself and the handle of the communicator
 * it came from, which a user handler is given (the object may be gone: a
 * completion's request held it). */
int mpcr_error_on(MPI_Errhandler eh, MPI_Comm comm, int err, const char *fn);
MPI_Errhandler mpcr_world_errhandler(void);
/* Errors where no communicator is involved use MPI_COMM_WORLD's handler. */
int mpcr_error_world(int err, const char *fn);
_Noreturn void mpcr_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends the job with "mpcr: WHAT is not supported" (a use of a function that
 * mpcr implements only in part). */
_Noreturn void mpcr_unsupported_feature(const char *what);

/* ---- status ---- */
void mpcr_status_set(MPI_Status *st, int source, int tag, uint64_t bytes);
static inline uint64_t mpcr_status_bytes(const MPI_Status *st)
{
    return (uint32_t)st->count_lo | ((uint64_t)((uint32_t)st->count_hi_and_cancelled >> 1) << 32);
}

/* Argument checks of the generated entry points (api_gen.c). */
int mpcr_op_valid(MPI_Op op);
int mpcr_errhandler_valid(MPI_Errhandler e);

/* Every MPI function except a few must be called between Init and Finalize. */
#define MPCR_REQUIRE_INIT(fn)                                                                      \
    do {                                                                                           \
        if (__builtin_expect(!mpcr.initialized || mpcr.finalized, 0))                              \
            mpcr_fatal("%s called %s", fn,                                                         \
                       mpcr.finalized ? "after MPI_Finalize" : "before MPI_Init");                 \
    } while (0)

/* Defines MPI_name as a weak alias of PMPI_name, as MPICH does, so that
 * profiling tools can interpose MPI_ and still reach PMPI_. The generated
 * entry points have theirs; `custom` functions (src/lib/api) use this. */
#define MPCR_ALIAS(name)                                                                           \
    extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)))

#endif
