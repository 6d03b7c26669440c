/* Signals that ask the job's coordinator for a checkpoint (issue 15,
 * docs/batch-systems.md "Signals"): one means "checkpoint and continue",
 * one "checkpoint, then the job ends". A scheduler may deliver them to
 * every process of the job (srun, scancel --signal), an MPI launcher pass
 * them on to its processes (the proxies), an operator send one to one
 * process. So one delivery arrives several times: from the coordinator's
 * own process and from each rank's proxy ("signal KIND" on its
 * connection), within moments of each other but possibly after the
 * checkpoint it asked for is over. Hence the rule: a request of a kind
 * whose checkpoint is waiting, under way, or ended less than
 * MPCR_TRIGGER_MERGE_S ago is that same request. */
#ifndef MPCR_COORD_TRIGGERS_H
#define MPCR_COORD_TRIGGERS_H

#define MPCR_TRIGGER_MERGE_S 5.0

enum mpcr_trigger_kind { MPCR_TRIGGER_CONTINUE, MPCR_TRIGGER_EXIT, MPCR_TRIGGER_KINDS };

struct mpcr_triggers {
    int signo[MPCR_TRIGGER_KINDS];           /* 0: none */
    unsigned long own[MPCR_TRIGGER_KINDS];   /* this process's deliveries already noted */
    int pending[MPCR_TRIGGER_KINDS];         /* asked, waiting for the job to be ready */
    int busy[MPCR_TRIGGER_KINDS];            /* its checkpoint is under way */
    double ended[MPCR_TRIGGER_KINDS];        /* when its last checkpoint ended */
    char from[MPCR_TRIGGER_KINDS][48];       /* who asked for the pending one first */
};

/* The words of the proxies' lines ("signal WORD"), by kind. */
extern const char *const mpcr_trigger_word[MPCR_TRIGGER_KINDS];

/* Counts this process's deliveries of the two signals (0: none) from now on. */
void mpcr_triggers_install(struct mpcr_triggers *t, int continue_signal, int exit_signal);

/* `from` asks for a checkpoint of `kind` at time `now` (seconds, monotonic). */
void mpcr_triggers_note(struct mpcr_triggers *t, enum mpcr_trigger_kind kind, const char *from,
                        double now);

/* Takes this process's own deliveries since the last call into account. */
void mpcr_triggers_poll(struct mpcr_triggers *t, double now);

/* The pending request to act on (an exit one first, which also answers a
 * continue one), now marked under way; -1 when none. */
int mpcr_triggers_take(struct mpcr_triggers *t);

/* The checkpoint of `kind` that mpcr_triggers_take gave has ended. */
void mpcr_triggers_done(struct mpcr_triggers *t, int kind, double now);

/* Drops the pending requests (the job is ending). */
void mpcr_triggers_drop(struct mpcr_triggers *t);

/* The signal's name without "SIG" ("USR1"), or its number written in `buf`. */
const char *mpcr_signal_name(int signo, char *buf, unsigned cap);

#endif
