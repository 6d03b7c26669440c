/* Non-blocking and persistent collectives (docs/collectives.md): the
 * blocking collective's own schedule, run as a task of the library on a
 * stack of its own. Where the blocking schedule makes a round (one BATCH,
 * coll_round.c), a task posts the round's sends and receives as ISEND and
 * IRECV requests of the proxy and lets the program go on; the Wait and
 * Test functions, and every other call into the library, advance it
 * (mpcr_coll_progress) until the schedule returns.
 *
 * Everything of a task is in the program's memory: its stack (where the
 * schedule stands, its partial results), its arguments, the tokens of the
 * round in flight. At a checkpoint those requests are the proxy's pending
 * requests, drained and reposted like an MPI_Irecv's (docs/pt2pt.md), so
 * a task cut at any instant continues after a restart, under either MPI,
 * and the request value the program holds never changes. */
#ifndef MPCR_COLL_TASK_H
#define MPCR_COLL_TASK_H

#include "channel.h"
#include "comm/comm.h"
#include "datatype/typemap.h"
#include "pt2pt/request.h"

#include <stddef.h>

/* Runs the blocking collective on the arguments a task keeps (generated:
 * src/lib/api/gen_api.py, the `nonblocking` and `persistent` flags). */
typedef int mpcr_coll_run_fn(const void *args);

/* MPI_Ixxx (persistent 0: starts at once) and MPI_Xxx_init (persistent 1:
 * inactive until MPI_Start): a new request on c that runs run(args). args
 * (size bytes) is copied; the ntypes datatypes and op (a user op, or any
 * other) are kept while the request lives, also when the program frees
 * them meanwhile (MPI 4.0 section 6.12). A persistent request takes its
 * sequence number now: MPI orders persistent collectives by their *_init
 * calls, and lets ranks start them in different orders. An error the
 * schedule meets before it first waits is returned, and no request is made. */
int mpcr_coll_task_new(struct mpcr_comm *c, MPI_Request *request, mpcr_coll_run_fn *run,
                       const void *args, size_t size, const struct mpcr_type *const types[],
                       int ntypes, MPI_Op op, int persistent);
/* MPI_Start of a persistent collective request (inactive): a new run, with
 * the communicator's next sequence number. */
int mpcr_coll_task_start(struct mpcr_request *q);
/* Whether q's run has ended (then q->rc and q->status are set). */
int mpcr_coll_task_done(const struct mpcr_request *q);
/* The request is destroyed (after its run ended). */
void mpcr_coll_task_destroy(struct mpcr_request *q);

/* Whether rounds must be posted as non-blocking requests: inside a task,
 * or while tasks are in flight (a blocking collective or wait must let
 * them advance, or a program waiting in one for a peer that waits for
 * this rank's task would never end). */
int mpcr_coll_async(void);
/* Whether tasks are in flight or one executes (mpcr_coll_async but for
 * the thread level): every call must then let them advance. */
int mpcr_coll_in_flight(void);
/* Under MPI_THREAD_MULTIPLE, whether this thread's wait may be made at the
 * proxy with `poll` set (no task in flight, no other thread waiting:
 * threads.h); notes that this thread's call waits. */
int mpcr_coll_wait_at_proxy(void);
/* The n sends and receives (struct mpcr_batch_op) at staging offset off:
 * one BATCH call; inside a task or while tasks run (mpcr_coll_async), as
 * non-blocking requests, posted, then waited for (a task pauses meanwhile).
 * Each operation's result is written as BATCH writes it. */
int mpcr_coll_batch(uint64_t off, unsigned n);

/* Finishes a blocking send or receive begun on the call line (SEND, SSEND,
 * RECV): while tasks are in flight it is posted as ISEND, ISSEND or IRECV
 * and waited for together with them (the reply then says how it ended);
 * under MULTIPLE the same, unless mpcr_coll_wait_at_proxy. */
const struct mpcr_reply *mpcr_coll_finish_blocking(void);

/* One step of progress of every task in flight, and of n other tokens of
 * the proxy (token 0: none): tests (block 0), or waits until at least one
 * of them has completed (block 1). A token that completed is set to 0 and
 * its result written to res[i]. Tasks whose round completed go on to
 * their next round (or end). Returns an error class of the call itself. */
int mpcr_coll_progress(int block, uint32_t *tokens, struct mpcr_completion *res, uint32_t n);

/* The progress helper's turn (progress.c), the library held: tests the
 * rounds of the tasks in flight and resumes those whose round completed,
 * except tasks with a user op below MPI_THREAD_MULTIPLE (the program's own
 * function then runs on the program's threads only). Returns 1 while tasks
 * are in flight. */
int mpcr_coll_progress_background(void);
/* A task paused in a round: the progress helper is started, or woken
 * (progress.c). */
void mpcr_progress_arm(void);
/* MPI_Finalize: the helper ends at its next turn. */
void mpcr_progress_stop(void);

#endif
