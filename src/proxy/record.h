/* What a new proxy needs to re-create this rank's communicators: for each
 * live one, its outcome, not the calls that made it (docs/mpi-checkpoint.md,
 * "Communicators across a restart"):
 *   - its mpcr id (the library's name for it),
 *   - its members as ranks of MPI_COMM_WORLD, in the order of their ranks
 *     in it,
 *   - its creation key, a Lamport clock agreed by its members when it was
 *     made (the largest of their clocks plus one): two communicators that
 *     share a member have different keys, and every member saw them made
 *     in the order of their keys.
 * A restart creates the live communicators in the order of their keys with
 * MPI_Comm_create_group over MPI_COMM_WORLD; as the order is the same on
 * every member, no creation waits for one that waits for it. A freed
 * communicator leaves nothing, so the record's size is that of what lives,
 * whatever the program made and freed before, and a communicator whose
 * recipe depended on where the ranks ran (a split by node) keeps its
 * members. */
#ifndef MPCR_PROXY_RECORD_H
#define MPCR_PROXY_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* Each returns an MPI error code of this MPI and records the outcome. */
int comm_dup(uint32_t parent, uint32_t new_id);
int comm_split(uint32_t parent, int32_t color, int32_t key, uint32_t new_id, int *member, int *rank,
               int *size);
/* MPI_COMM_TYPE_SHARED (or MPI_UNDEFINED when `undefined`). */
int comm_split_shared(uint32_t parent, int undefined, int32_t key, uint32_t new_id, int *member,
                      int *rank, int *size);
/* Collective over the group only: n ranks of the parent, in the new order. */
int comm_create_group(uint32_t parent, int n, const int32_t *group, int32_t tag, uint32_t new_id);
int comm_free(uint32_t id);
/* The world ranks of live communicator id's members (NULL: not recorded). */
const int32_t *record_members(uint32_t id, uint32_t *n);

/* Live communicators recorded (MPI_COMM_WORLD and MPI_COMM_SELF excluded). */
uint32_t record_count(void);
/* The record in the state file's form (state.c): a malloc'd buffer of *len
 * bytes; NULL when out of memory. */
void *record_save(size_t *len);
/* Re-creates the communicators of a saved record (collective over every
 * rank of the job). 0, or -1 with a reason in err. */
int record_rebuild(const void *buf, size_t len, char *err, size_t cap);

#endif
