/* The proxy's part in a checkpoint (docs/mpi-checkpoint.md): a connection to
 * the job's coordinator, and the stages quiesce -> drain -> image -> resume.
 *
 * Lines from the coordinator: "quiesce K", "image K", "resume K", "exit K",
 * "where K" (answered by the reader thread: "where K RANK WHAT", see
 * ckpt_doing).
 * Lines to it: "proxy PROTOCOL RANK SIZE PID TOKEN" once, then "quiet K
 * SENT RECEIVED", "busy K WHY", "count K RECEIVED", "signalled K", "failed
 * K WHY", "resumed K", "finalizing RANK", "signal checkpoint|exit" (triggers.h).
 * Both ways: "windows" (ckpt_ask_windows). When the connection ends, the
 * proxy goes on without checkpoints (ckpt.c, coordinator_lost). */
#ifndef MPCR_PROXY_CKPT_H
#define MPCR_PROXY_CKPT_H

#include <stdint.h>

enum ckpt_stage {
    CKPT_RUNNING,  /* calls are served */
    CKPT_QUIESCED, /* no call is served; messages are drained into the cache */
    CKPT_IMAGING,  /* the program writes its image; the proxy waits */
};

/* Connects to $MPCR_COORD_SOCK if set (a job that can be checkpointed). */
void ckpt_connect(void);
/* Handles what the coordinator said since the last look; in a quiesced
 * stage also drains. Returns 1 while calls must not be served. Cheap when
 * nothing happened: one atomic load. */
int ckpt_poll(void);
/* Runs a checkpoint's stages until calls may be served again. */
void ckpt_hold(void);
enum ckpt_stage ckpt_stage(void);
/* Tells the coordinator that the program called MPI_Finalize: the job is
 * ending, and no checkpoint can be taken any more. */
void ckpt_finalizing(void);
/* Asks the coordinator to tell every proxy of the job to make the real
 * window (resources/windows.c: made at the job's first window, not at
 * start); each does so when it hears "windows" in its next ckpt_poll. 0, or
 * -1 without a coordinator: nobody would hear it. */
int ckpt_ask_windows(void);

/* What the proxy's MPI thread is doing: `what` and `name`, static strings
 * (name may be ""). A checkpoint that waits long for a rank to quiesce asks
 * its proxy "where K"; the reader thread answers from these, without the
 * MPI thread, which may be inside a real MPI call that does not return
 * (the coordinator puts the answer in its time-out message). Two relaxed
 * stores: cheap enough for every call. */
void ckpt_doing(const char *what, const char *name);

/* A wait before an image that should end in moments (idup.c, creation.c):
 * 1, once, when it has lasted 10 s since *start_ns (0: now is the start),
 * so that the waiter says what it waits for. A checkpoint whose ranks never
 * write their image otherwise fails with nothing but the coordinator's
 * time-out. */
int ckpt_settle_overdue(uint64_t *start_ns);

#endif
