/* The record of how each communicator was made and freed, in the order this
 * rank took part. A new proxy replays it (all ranks replay their records in
 * their original order, so every collective creation meets its partners as
 * it did the first time), which gives it the same communicators under the
 * same mpcr ids. */
#ifndef MPCR_PROXY_RECORD_H
#define MPCR_PROXY_RECORD_H

#include <stdint.h>

enum comm_op_kind { COMM_OP_DUP = 1, COMM_OP_SPLIT, COMM_OP_FREE };

struct comm_op {
    uint32_t kind;
    uint32_t comm;      /* the parent (DUP, SPLIT) or the one freed (FREE) */
    int32_t color, key; /* SPLIT, color in mpcr's ABI */
    uint32_t new_id;    /* DUP, SPLIT */
};

extern struct comm_op *record;
extern uint32_t nrecord;

/* Each returns an MPI error code of this MPI and appends to the record. */
int comm_dup(uint32_t parent, uint32_t new_id);
int comm_split(uint32_t parent, int32_t color, int32_t key, uint32_t new_id, int *member, int *rank,
               int *size);
int comm_free(uint32_t id);

/* Replays a saved record (the record then holds it again). */
int record_replay(const struct comm_op *ops, uint32_t n);

#endif
