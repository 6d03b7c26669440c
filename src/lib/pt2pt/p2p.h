/* What the point-to-point files of the library share among themselves
 * (p2p.c, request.c, completion.c, bsend.c, persistent.c, mprobe.c,
 * grequest.c); the rest of the library needs only lib.h. See docs/pt2pt.md. */
#ifndef MPCR_P2P_H
#define MPCR_P2P_H

#include "lib.h"

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
