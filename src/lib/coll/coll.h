/* What the collectives (coll_*.c) share: the tag of a collective's
 * messages, and rounds, the sends and receives of one step of a schedule
 * sent to the proxy together (docs/collectives.md).
 *
 * Every collective is a schedule of point-to-point messages on the
 * communicator's collective context (its id with MPCR_COLL_CONTEXT), run
 * by the library one round at a time; each round is one BATCH call, one
 * round trip to the proxy. A checkpoint finds a rank either between two
 * rounds (plain program memory) or inside a BATCH call, which the proxy
 * finishes or serves again (docs/channel.md), and the drain takes every
 * message in flight: nothing of a collective lives in the proxy. */
#ifndef MPCR_COLL_H
#define MPCR_COLL_H

#include "api/api.h"
#include "channel.h"
#include "comm/comm.h"
#include "datatype/typemap.h"

/* A collective's messages carry its sequence number on the communicator
 * (each member counts the collectives it starts on it, in the order MPI
 * requires all members to start them) and a phase within the schedule:
 * tag = (seq mod COLL_SEQ_MOD) * COLL_PHASES + phase. Tags stay below
 * 2^15, the least MPI_TAG_UB MPI allows, so that an image taken under one
 * MPI restarts under another with the same tags; and below 32752: the
 * proxy's own messages on the collective context use the 16 tags above
 * (src/proxy/entered.h). */
#define COLL_PHASES  16
#define COLL_SEQ_MOD 2047

/* One collective call on one rank. */
struct coll {
    uint32_t ctx; /* the communicator's collective context */
    int tag;      /* tag of phase 0 */
    int rank, size;
};

/* The sequence number of a collective starting on c: the next one, or a
 * persistent collective's, taken when it was made (coll_task.c). */
uint32_t mpcr_coll_seq_take(struct mpcr_comm *c);

/* Starts a collective on c: takes its sequence number. */
static inline struct coll coll_begin(struct mpcr_comm *c)
{
    uint32_t seq = mpcr_coll_seq_take(c);
    return (struct coll){c->vid | MPCR_COLL_CONTEXT, (int)(seq % COLL_SEQ_MOD) * COLL_PHASES,
                         c->rank, c->size};
}

/* One send or receive of a round: count elements of t at buf. */
struct coll_xfer {
    int send, peer, phase;
    const void *sbuf;
    void *rbuf;
    MPI_Count count;
    const struct mpcr_type *t;
    uint64_t bytes; /* packed bytes, or the receive's capacity */
    uint64_t got;   /* a receive: bytes that arrived */
};

/* The sends and receives of one round, at most MPCR_BATCH_MAX: one BATCH. */
struct coll_round {
    const struct coll *k;
    unsigned n;
    int err; /* the first error of a round_send/recv (a count too large) */
    struct coll_xfer x[MPCR_BATCH_MAX];
};

static inline void round_init(struct coll_round *r, const struct coll *k)
{
    r->k = k, r->n = 0, r->err = MPI_SUCCESS;
}
/* Adds a send or receive to the round. A round that is full is run first:
 * only for rounds whose operations do not depend on each other's order
 * (one rank sending to or receiving from many). */
void round_send(struct coll_round *r, int peer, int phase, const void *buf, MPI_Count count,
                const struct mpcr_type *t);
void round_recv(struct coll_round *r, int peer, int phase, void *buf, MPI_Count count,
                const struct mpcr_type *t);
/* Runs the round (one round trip; nothing when empty) and empties it:
 * sends packed, receives unpacked. Returns the first error class. */
int round_run(struct coll_round *r);

/* Convenience: one round of a send and a receive (either peer MPI_PROC_NULL). */
int coll_sendrecv(const struct coll *k, int phase, int to, const void *sbuf, MPI_Count scount,
                  const struct mpcr_type *st, int from, void *rbuf, MPI_Count rcount,
                  const struct mpcr_type *rt);

/* ---- helpers ---- */

/* count * per, or MPI_ERR_COUNT when it overflows. */
static inline int coll_span(MPI_Count count, uint64_t per, uint64_t *bytes)
{
    return count < 0 || __builtin_mul_overflow((uint64_t)count, per, bytes) ? MPI_ERR_COUNT
                                                                            : MPI_SUCCESS;
}
/* Address of the element at index `at` (elements of t) from buf. */
static inline char *coll_at(const void *buf, MPI_Count at, const struct mpcr_type *t)
{
    return (char *)buf + at * t->extent;
}
/* Where the blocks of one side of an exchange lie, block i for (or from)
 * peer i: count elements of t at buf + i * count (the plain forms), or
 * counts[i] elements at displs[i] elements (v forms), or counts[i]
 * elements of types[i] at displs[i] bytes (w forms); with `one`, every
 * block is the whole buffer (what Allgatherv sends to each peer). */
struct coll_side {
    const char *buf;
    MPI_Count count;
    struct mpcr_counts counts, displs; /* v and w forms: counts.p non-NULL */
    const struct mpcr_type *t;         /* all but the w forms */
    const MPI_Datatype *types;         /* the w forms */
    int one;
};
struct coll_block {
    char *buf;
    MPI_Count count;
    const struct mpcr_type *t;
};
/* Block i of s (coll_alltoall.c): 0, or MPI_ERR_COUNT, MPI_ERR_TYPE. */
int coll_block_of(const struct coll_side *s, int i, struct coll_block *b);

/* Copies count elements of st at src to rcount elements of rt at dst
 * (a rank's message to itself); MPI_ERR_TRUNCATE when they do not fit. */
int coll_copy(const void *src, MPI_Count count, const struct mpcr_type *st, void *dst,
              MPI_Count rcount, const struct mpcr_type *rt);
/* The send and receive arguments significant on this rank (their kinds
 * are optional in src/lib/api): 0 or an error class. */
int coll_check_used(MPI_Count scount, const struct mpcr_type *st, MPI_Count rcount,
                    const struct mpcr_type *rt, int send_used, int recv_used);

/* A broadcast of n packed bytes cut into one piece per rank, scattered,
 * then gathered by all (coll_bcast_split.c), where wanted: from 8 ranks
 * and 64 KiB on. */
int coll_bcast_split_wanted(int size, uint64_t bytes);
int coll_bcast_split(const struct coll *k, int phase, void *buf, MPI_Count count,
                     const struct mpcr_type *t, int root, uint64_t n);

/* MPI_Reduce_scatter(_block) by recursive halving, commutative ops
 * (coll_basic.c): displs[i] where rank i's block starts in the `total`
 * elements of acc (this rank's contribution); this rank's `mine` elements
 * of the result go to recvbuf. */
int coll_reduce_scatter_halving(const struct coll *k, void *acc, MPI_Count total,
                                const MPI_Count *displs, MPI_Count mine, void *recvbuf,
                                MPI_Datatype type, const struct mpcr_type *t, MPI_Op op);

/* ---- reductions (op.c) ---- */

/* inout[i] = in[i] op inout[i] for count elements of type (MPI 4.0's
 * order: `in` is the earlier ranks' part); MPI_ERR_OP when op is not
 * defined on type. in NULL and count 0: only the check. */
int mpcr_reduce_local(MPI_Op op, MPI_Datatype type, const void *in, void *inout, MPI_Count count);
/* Whether op commutes (predefined ops all do). */
int mpcr_op_commutes(MPI_Op op);

/* A buffer of count elements of t for a reduction's partial results (the
 * element layout of t, so that ops apply to it); NULL when out of memory. */
void *coll_tmp(MPI_Count count, const struct mpcr_type *t);
void coll_tmp_free(void *p, const struct mpcr_type *t);
/* len bytes, 64-byte aligned; large ones are kept for the next call
 * (coll_scratch.c). NULL when out of memory. */
void *coll_scratch_get(size_t len);
void coll_scratch_put(void *p); /* p: from coll_scratch_get, not NULL */

#endif
