/* Communicator creation (MPI_Comm_dup, MPI_Comm_split, MPI_Comm_split_type,
 * MPI_Comm_create_group; the library makes the others from these) that a checkpoint
 * may interrupt at any instant (docs/mpi-checkpoint.md, "Creating a
 * communicator during a checkpoint").
 *
 * The real creation is a blocking collective: a member inside it answers
 * nothing until every member has joined, so if one member were quiesced
 * before joining, the others would never reach a safe point. So the real
 * call is made only once every member is known to have entered, and that
 * knowledge travels as messages the checkpoint's drain counts: each member
 * first sends an empty "entered" message to every other member of the
 * parent taking part (MPI_Comm_create_group: the group's members; the
 * others: all) on the parent's collective context, then collects one from each. After
 * a drain, every message sent has been received, so all members agree on
 * whether all entered: then each makes the real call (even while quiesced,
 * in the drain), else none has, and the creation is simply redone later.
 *
 * A program whose calls are serialised has one creation at a time. Under
 * MPI_THREAD_MULTIPLE the library polls (a call with `poll` set is
 * answered at once, `pending` until the communicator is made, and the
 * program's other threads call meanwhile), and several threads may create
 * communicators from different parents at once, begun in different orders
 * on different ranks, as MPI allows. So a polled creation's real call is
 * made in a thread of its own (the real MPI initialised with
 * MPI_THREAD_MULTIPLE): a proxy blocked in one real call would never enter
 * the creation its partner is blocked in. The thread makes MPI calls only;
 * the proxy's main thread records the outcome once it has returned. Such
 * calls begin one at a time where they can, in an order most programs
 * make the same on every member (step in creation.c): MPICH makes
 * concurrent context ids of a process by rounds of MPI_Allreduce that fail
 * until every member's threads are in the same creation, and with 8 at
 * once on 2 busy cores (MPICH's threads/comm/comm_create_threads) a real
 * call took 0.6 s on average. Calls that neither end nor begin for a while
 * get others beside them, so that a creation whose members have all
 * entered always begins in the end, whatever order each member chose.
 * Its progress (entered, from whom, or done with the answer) is part of the
 * proxy's state file, so a restarted rank neither enters twice nor asks for
 * a creation its partners have finished. */
#ifndef MPCR_PROXY_CREATION_H
#define MPCR_PROXY_CREATION_H

#include <stddef.h>
#include <stdint.h>

#include "channel.h"

/* Serves a COMM_DUP, COMM_SPLIT, COMM_SPLIT_TYPE or COMM_CREATE_GROUP call
 * (its call line checked; the rest is checked here). Returns 0
 * when r holds the answer, 1 when the call must be left for a checkpoint
 * (it is served again afterwards, by this proxy or a new one). */
int creation_serve(const struct mpcr_call *c, struct mpcr_reply *r);

/* Whether the creation of communicator `id` has been made but not answered
 * (its id is then taken, rightly: the call is being served again). */
int creation_is_done(uint32_t id);

/* The level the real MPI gave the proxy (threads for real calls only with
 * MPI_THREAD_MULTIPLE). */
void creation_init(int provided);

/* In a checkpoint's drain: takes what has arrived and, once every member
 * has entered, makes the real creation. */
void creation_progress(void);


/* Whether a real call is under way in a thread of its own: a wait that
 * polls the real MPI meanwhile should let MPICH's lock go between polls
 * (sched_yield), or that thread starves. */
int creation_running(void);

/* As a resource (resource.h: resource_creations): its drain is
 * creation_progress; before an image it waits for every real call under
 * way (each returns: all its members have entered) and records its outcome;
 * a drain that lasts says, for each creation not done, which members have
 * not entered yet or that its real call is under way, so that a checkpoint
 * that times out in the quiesce stage shows why. */

#endif
