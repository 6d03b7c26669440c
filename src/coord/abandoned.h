/* Generations given up while something may still be writing into them.
 *
 * When an MPI job's checkpoint fails in its image stage, other ranks may
 * still be at work on it: a proxy writing rank-R.state, a program writing
 * its image in place, a forked copy writing it. Removing gen-K at once
 * raced with them: a file renamed into the directory after the removal had
 * listed it left a partial gen-K behind, and a late report was refused
 * noisily. So the coordinator keeps each such generation here, with what
 * each rank may still write, and removes the directory once all of that
 * has ended (or, for a writer that never says so, after a time limit).
 *
 * What ends a rank's part (job.c says each): its proxy's "resumed K" (its
 * state file is written or given up; a proxy handles its lines in order),
 * its program's image report, its forked writer's end (a pidfd), its proxy
 * ending. A proxy's "signalled K" says that its program writes an image. */
#ifndef MPCR_COORD_ABANDONED_H
#define MPCR_COORD_ABANDONED_H

#define MPCR_ABANDONED_MAX 8 /* at once; a ninth removes the oldest regardless */

struct mpcr_abandoned_rank {
    unsigned char state;    /* its proxy may still be writing rank-R.state */
    unsigned char image;    /* its program (or its forked copy) writes rank-R.img */
    unsigned char went_on;  /* a forked copy writes it: it outlives its proxy */
    unsigned char reported; /* its image report is in (a later "signalled" adds nothing) */
    int writer_end;         /* pidfd of its forked copy on this host; -1 */
};

struct mpcr_abandoned {
    unsigned long gen;
    double since;
    struct mpcr_abandoned_rank *r; /* one per rank */
};

struct mpcr_abandons {
    const char *dir; /* the checkpoint directory */
    int nranks, n;
    struct mpcr_abandoned v[MPCR_ABANDONED_MAX];
};

/* A new entry for gen, every rank with nothing pending and writer_end -1,
 * for the caller to fill; NULL without memory (gen is then removed now). */
struct mpcr_abandoned_rank *mpcr_abandoned_add(struct mpcr_abandons *s, unsigned long gen,
                                               double now);
/* Rank r's part of an abandoned gen; NULL if gen is not waiting here. */
struct mpcr_abandoned_rank *mpcr_abandoned_rank(struct mpcr_abandons *s, unsigned long gen,
                                                int r);
/* Rank r's proxy ended: it writes nothing more, nor does a program that
 * wrote in place (it dies with its proxy); a forked copy may go on. */
void mpcr_abandoned_proxy_gone(struct mpcr_abandons *s, int r);
/* Notes forked writers that ended, removes each generation nothing writes
 * into any more, and those older than `timeout` s (said on stderr). */
void mpcr_abandoned_settle(struct mpcr_abandons *s, double now, double timeout);
/* Generations still waiting. */
int mpcr_abandoned_count(const struct mpcr_abandons *s);
/* Removes every generation still waiting (the coordinator ends). */
void mpcr_abandoned_remove_all(struct mpcr_abandons *s);

#endif
