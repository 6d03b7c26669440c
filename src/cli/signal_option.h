/* --checkpoint-signal SIG and --exit-signal SIG of `mpcr run`, `exec`,
 * `restart` and `coordinator` (docs/batch-systems.md, "Signals"): the
 * signals that ask a job for a checkpoint after which it goes on, and for
 * one after which it ends. Defaults: SIGUSR2 and SIGUSR1, for a job with a
 * checkpoint directory; "none" turns one off. */
#ifndef MPCR_CLI_SIGNAL_OPTION_H
#define MPCR_CLI_SIGNAL_OPTION_H

#include <signal.h>

#define MPCR_DEFAULT_CHECKPOINT_SIGNAL SIGUSR2
#define MPCR_DEFAULT_EXIT_SIGNAL       SIGUSR1

struct mpcr_signals {
    int checkpoint, exit; /* 0: none */
    int given;            /* either was given on the command line */
};

/* The defaults. */
void mpcr_signals_init(struct mpcr_signals *s);

/* When `opt` is one of the two options: parses `value` (a name with or
 * without SIG, any case, or a number; "none") and returns 1, or says why
 * not and returns -1. Returns 0 for any other option. */
int mpcr_signal_option(struct mpcr_signals *s, const char *opt, const char *value);

/* Checks the pair (not the same signal twice): 0, or -1 after a message. */
int mpcr_signals_check(const struct mpcr_signals *s);

/* For the proxies: MPCR_CHECKPOINT_SIGNAL and MPCR_EXIT_SIGNAL (numbers). */
void mpcr_signals_export(const struct mpcr_signals *s);

/* The signals ignored in this process (and, through exec, in what it becomes). */
void mpcr_signals_ignore(const struct mpcr_signals *s);

/* "--checkpoint-signal N --exit-signal M" appended to argv at *k (two
 * buffers of 16 bytes each for the numbers). */
void mpcr_signals_argv(const struct mpcr_signals *s, char **argv, int *k, char num[2][16]);

#endif
