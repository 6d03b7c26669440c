/* What the point-to-point files of the library share among themselves
 * (p2p.c, request.c, completion.c, bsend.c, persistent.c, mprobe.c,
 * grequest.c), and the point-to-point calls the rest of the library makes
 * (collectives, communicator creation). See docs/pt2pt.md. */
#ifndef MPCR_P2P_H
#define MPCR_P2P_H

#include <mpi.h>
#include <stdint.h>

#include "channel.h"

struct mpcr_comm;
struct mpcr_request;
struct mpcr_type;

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

/* MPI_Start of partitioned request q (partitioned.c): a receive is posted
 * whole, a send waits for its partitions to be marked ready. */
int mpcr_partitioned_start(struct mpcr_request *q);

/* ---- status (status.c) ---- */
void mpcr_status_set(MPI_Status *st, int source, int tag, uint64_t bytes);
static inline uint64_t mpcr_status_bytes(const MPI_Status *st)
{
    return (uint32_t)st->count_lo | ((uint64_t)((uint32_t)st->count_hi_and_cancelled >> 1) << 32);
}

/* Bytes of `count` elements of t; MPI_ERR_COUNT when that overflows. */
int mpcr_bytes_of(MPI_Count count, const struct mpcr_type *t, uint64_t *bytes);

/* MPI's empty status (status.c): the status of an inactive request. */
void mpcr_status_set_empty(MPI_Status *st);

/* ---- buffered sends (bsend.c) ---- */
/* A buffered send of count elements of t: charged to the attached buffer
 * (MPI_ERR_BUFFER when it has no room), then sent by an orphan request. */
int mpcr_bsend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
               struct mpcr_comm *c);
/* A buffered send completed: its bytes of the attached buffer are free. */
void mpcr_bsend_release(uint64_t charge);

/* ---- generalized requests (grequest.c) ---- */
int mpcr_grequest_set_fortran(MPI_Request request); /* the callbacks are Fortran's */
int mpcr_grequest_done(struct mpcr_request *q);   /* MPI_Grequest_complete was called */
int mpcr_grequest_finish(struct mpcr_request *q); /* calls query_fn: q->status, q->rc */
int mpcr_grequest_free(MPI_Request *handle, struct mpcr_request *q); /* calls free_fn */
int mpcr_grequest_cancel(struct mpcr_request *q);
void mpcr_grequest_destroy(struct mpcr_request *q);

#endif
