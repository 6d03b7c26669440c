/* See record.h. */
#include "record.h"
#include "proxy.h"

#include <stdlib.h>

struct comm_op *record;
uint32_t nrecord;
static uint32_t capacity;

static int append(struct comm_op op)
{
    if (nrecord == capacity) {
        uint32_t n = capacity ? 2 * capacity : 16;
        struct comm_op *r = realloc(record, n * sizeof *r);
        if (!r) return MPI_ERR_NO_MEM;
        record = r, capacity = n;
    }
    record[nrecord++] = op;
    return MPI_SUCCESS;
}

int comm_dup(uint32_t parent, uint32_t new_id)
{
    MPI_Comm comm;
    int rc = MPI_Comm_dup(real_comm(parent), &comm);
    if (rc == MPI_SUCCESS) rc = map_comm_add(new_id, comm);
    if (rc == MPI_SUCCESS) rc = append((struct comm_op){COMM_OP_DUP, parent, 0, 0, new_id});
    return rc;
}

int comm_split(uint32_t parent, int32_t color, int32_t key, uint32_t new_id, int *member, int *rank,
               int *size)
{
    enum { ABI_UNDEFINED = -32766 };
    MPI_Comm comm;
    int rc = MPI_Comm_split(real_comm(parent), color == ABI_UNDEFINED ? MPI_UNDEFINED : color, key,
                            &comm);
    *member = rc == MPI_SUCCESS && comm != MPI_COMM_NULL;
    if (*member) {
        MPI_Comm_rank(comm, rank);
        MPI_Comm_size(comm, size);
        rc = map_comm_add(new_id, comm);
    }
    if (rc == MPI_SUCCESS) rc = append((struct comm_op){COMM_OP_SPLIT, parent, color, key, new_id});
    return rc;
}

int comm_free(uint32_t id)
{
    int rc = map_comm_free(id);
    if (rc == MPI_SUCCESS) rc = append((struct comm_op){COMM_OP_FREE, id, 0, 0, 0});
    return rc;
}

int record_replay(const struct comm_op *ops, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct comm_op *o = &ops[i];
        int member, rank, size, rc = MPI_ERR_INTERN;
        if (o->kind == COMM_OP_DUP) rc = comm_dup(o->comm, o->new_id);
        if (o->kind == COMM_OP_SPLIT)
            rc = comm_split(o->comm, o->color, o->key, o->new_id, &member, &rank, &size);
        if (o->kind == COMM_OP_FREE) rc = comm_free(o->comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
