/* The numbers of the command line, checked one way for every command: a
 * value mpcr cannot use is refused with a message naming the option and the
 * range, never taken as something else (atof("nan"), atoi("x") = 0). */
#ifndef MPCR_CLI_OPTION_VALUE_H
#define MPCR_CLI_OPTION_VALUE_H

/* The longest --interval: a year. Longer would never fire, and a number of
 * seconds beyond that only overflows the timer's arithmetic. */
#define MPCR_MAX_INTERVAL_S (365.0 * 24 * 3600)
/* The most generations --keep may keep (each one is a full set of images). */
#define MPCR_MAX_KEEP 1000000
/* --full-every N: a full image after at most N-1 increments (1: increments
 * off); the engine reads it as MPCR_FULL_EVERY (docs/incremental.md). At
 * most MPCR_MAX_CHAIN (src/engine/image.h). */
#define MPCR_MAX_FULL_EVERY 64
int mpcr_opt_full_every(const char *cmd, const char *value);

/* A number of seconds, finite, > 0 and at most MPCR_MAX_INTERVAL_S, into
 * *out; else says so ("CMD: OPT ...") and returns -1. */
int mpcr_opt_seconds(const char *cmd, const char *opt, const char *s, double *out);
/* A whole number in [1, max] into *out; else says so and returns -1. */
int mpcr_opt_count(const char *cmd, const char *opt, const char *s, long max, long *out);

/* The most ranks the launcher can start on this host, from this process's
 * limits (which the launcher inherits): it keeps a few descriptors open per
 * local process, and each rank is a proxy, its program and at a checkpoint
 * the program's forked writer. Beyond it the launcher fails halfway ("Too
 * many open files") with no word from mpcr. */
#define MPCR_LAUNCHER_FDS_PER_RANK 4
#define MPCR_PROCESSES_PER_RANK 3
long mpcr_max_local_ranks(void);

#endif
