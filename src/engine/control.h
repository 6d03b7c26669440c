/* How a coordinator talks to the engine of one process. Shared by the engine
 * and src/coord; an MPI coordinator speaks the same.
 *
 * Request: SIGRTMAX sent with sigqueue(pid, SIGRTMAX, {.sival_ptr = value}),
 * value = MPCR_CTL_REQUEST(generation). The engine writes
 * $MPCR_CKPT_DIR/gen-<generation>/rank-<$MPCR_RANK>.img (the directory must
 * exist), then connects to the unix socket $MPCR_COORD_SOCK and sends one line:
 *     image <generation> ok <bytes>\n     or     image <generation> error <why>\n
 * and waits for one line back: "exit\n" (end the process now: the image is
 * safe and the manifest written) or "continue\n". */
#ifndef MPCR_CONTROL_H
#define MPCR_CONTROL_H

#include <stdint.h>

#define MPCR_CTL_COORD 1  /* a checkpoint asked by the coordinator */
#define MPCR_CTL_API 2    /* asked by the program (mpcr_engine_checkpoint) */
#define MPCR_CTL_FOLLOW 3 /* internal: a thread is asked to stop */
#define MPCR_CTL_VALUE(type, slot, num) ((uint64_t)(type) | (uint64_t)(slot) << 16 | (uint64_t)(num) << 32)
#define MPCR_CTL_REQUEST(gen) MPCR_CTL_VALUE(MPCR_CTL_COORD, 0, gen)

#endif
