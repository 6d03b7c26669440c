/* The proxy's part in checkpoints asked for by signals (src/coord/triggers.h):
 * MPCR_CHECKPOINT_SIGNAL and MPCR_EXIT_SIGNAL (numbers, set by `mpcr run`
 * and `mpcr exec`) name them. The proxy counts their deliveries and tells
 * the coordinator "signal checkpoint" or "signal exit". Its program ignores
 * them: a scheduler may signal every process of the job, and their default
 * action would end it. */
#ifndef MPCR_PROXY_TRIGGERS_H
#define MPCR_PROXY_TRIGGERS_H

/* Catches the signals (once connected to a coordinator). */
void triggers_catch(void);
/* In the program's process, before it starts: the signals are ignored. */
void triggers_ignore(void);
/* The words ("checkpoint", "exit") of deliveries since the last call, one
 * at a time; NULL when there is none. Cheap: one atomic load. */
const char *triggers_take(void);

#endif
