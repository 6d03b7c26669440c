/* Counts of what the proxy did for checkpoints: messages the drain took into
 * the cache, blocking calls abandoned for re-issue, receives posted again.
 * They show which of these paths a run went through (the checkpoint tests
 * require theirs), and are reported only when asked:
 *
 *   MPCR_PROXY_STATS=PREFIX   each proxy keeps PREFIX.rank-R.pid-P up to date,
 *                             one line "rank R drained D abandoned A reposted P"
 *
 * The file is rewritten at every count, not at the proxy's exit: a proxy
 * ends in many ways (_exit after its program, MPI_Abort, killed with its
 * job), and the counts must survive all of them. Counts only grow, so the
 * line never gets shorter and one pwrite at offset 0 replaces it. */
#ifndef MPCR_PROXY_STATS_H
#define MPCR_PROXY_STATS_H

enum proxy_stat {
    STAT_DRAINED,   /* a message received into the drain cache (ckpt.c) */
    STAT_ABANDONED, /* a blocking call left unanswered, served again later (serve.c) */
    STAT_REPOSTED,  /* a cancelled receive posted again (requests.c) */
    STAT_COUNT
};

/* Counts one event; writes the file if MPCR_PROXY_STATS is set. Never fails
 * the proxy: a file that cannot be written is reported once. */
void stats_count(enum proxy_stat which);

#endif
