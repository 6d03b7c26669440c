/* What a new proxy needs to re-create this rank's communicators: for each
 * live one, its outcome, not the calls that made it (docs/mpi-checkpoint.md,
 * "Communicators across a restart"):
 *   - its mpcr id (the library's name for it),
 *   - its members as ranks of MPI_COMM_WORLD, in the order of their ranks
 *     in it,
 *   - its creation key, agreed by its members when it was made: the
 *     largest of their shares (record_key_share). A rank's shares grow
 *     with each creation and past every key it has seen, and are its rank
 *     modulo the job's size, so no two communicators share a key, even
 *     two whose agreements overlapped (MPI_Comm_idup), and a member sees
 *     communicators made one after the other in the order of their keys.
 * A restart creates the live communicators in the order of their keys with
 * MPI_Comm_create_group over MPI_COMM_WORLD; as the order is the same on
 * every member, no creation waits for one that waits for it. A freed
 * communicator leaves nothing, so the record's size is that of what lives,
 * whatever the program made and freed before, and a communicator whose
 * recipe depended on where the ranks ran (a split by node) keeps its
 * members. */
#ifndef MPCR_PROXY_RECORD_H
#define MPCR_PROXY_RECORD_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

int comm_free(uint32_t id);
/* A creation's parts (creation.c, idup.c): this rank's share of a new
 * communicator's key, then, once the members agreed on the key (MPI_MAX of
 * their shares), the communicator and its collective context recorded and
 * handed to the id map (an MPI error code; both freed on failure). */
uint64_t record_key_share(void);
int record_made(uint32_t id, MPI_Comm comm, MPI_Comm coll, uint64_t key);
/* Live communicator id's creation key, the same on every member; 0 for
 * one not recorded (MPI_COMM_WORLD, MPI_COMM_SELF). */
uint64_t record_key(uint32_t id);
/* The world ranks of live communicator id's members (NULL: not recorded). */
const int32_t *record_members(uint32_t id, uint32_t *n);

/* As a resource (resource.h: resource_comms): saved in record_form.c's
 * form; a new proxy re-creates the communicators of the saved record
 * (collective over every rank of the job). */

#endif
