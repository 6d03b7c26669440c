/* Mutation fuzzing of mpcr's file readers (tests/security/mutate/): take a
 * valid file, damage a copy of it, run the reader on the copy, and judge
 * what it did. The damage: bit flips, truncation, random bytes, a size or
 * count field set to an extreme value; and, since a checksum guards against
 * damage, not against a crafted file, the same with every checksum made
 * right again, so that the reader's later checks are reached too.
 *
 * The verdict is the same for every reader: a damaged file is refused with
 * exit status 1 and a message; one whose checksums were made right may be
 * accepted (status 0: the change may be harmless); nothing may crash, hang,
 * or be reported by a sanitizer (status MUTATE_SANITIZER_STATUS).
 *
 * Iterations: MUTATE_ITERATIONS in the environment, else the driver's
 * default (sized for CI); the seed: MUTATE_SEED, else fixed. A failing
 * input is kept as FAILDIR/fail-N (the driver's last argument says where).
 * MUTATE_VERBOSE=1 prints every run's damage and outcome. */
#ifndef MPCR_TESTS_MUTATE_H
#define MPCR_TESTS_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#define MUTATE_SANITIZER_STATUS 86 /* what a sanitizer's report ends a reader with */

struct mutate_rng {
    uint64_t s;
};
uint64_t mutate_next(struct mutate_rng *g);
uint64_t mutate_below(struct mutate_rng *g, uint64_t n); /* 0 <= x < n (n > 0) */

/* A value a size, count or offset field might be set to by someone
 * hostile: 0, 1, all ones, 2^31, 2^32 - 1, 2^63, near the old value, or
 * random; `width` bytes (1, 2, 4 or 8) of it are used. */
uint64_t mutate_extreme(struct mutate_rng *g, uint64_t old);
/* Writes v into `width` bytes at p (little-endian). */
void mutate_put(unsigned char *p, int width, uint64_t v);
uint64_t mutate_get(const unsigned char *p, int width);

/* Damage that leaves the checksums as they were: flips 1 to 8 bits, or
 * writes 1 to 64 random bytes, at random places of buf[0, len). */
void mutate_flip_bits(struct mutate_rng *g, unsigned char *buf, size_t len);
void mutate_random_bytes(struct mutate_rng *g, unsigned char *buf, size_t len);

/* The outcome of running a reader on one damaged file. */
struct mutate_outcome {
    int status;      /* exit status, or -1 */
    int signal;      /* the signal that ended it, or 0 */
    int hung;        /* killed after the time limit */
    char said[1024]; /* the start of what it wrote on stderr */
};
/* Runs argv[0] (argv NULL-terminated) with stdout to /dev/null, stderr
 * captured, killed after `limit_s` seconds. */
void mutate_run(char *const argv[], double limit_s, struct mutate_outcome *o);
/* Runs fn(arg) in a forked child that writes its refusal on stderr and
 * ends with its status (the in-process reader's driver). */
void mutate_run_fn(int (*fn)(void *arg), void *arg, double limit_s, struct mutate_outcome *o);

/* The verdict: NULL when acceptable, else why not. `must_refuse`: the
 * damage left a checksum wrong (or cut the file), so only a refusal will do. */
const char *mutate_judge(const struct mutate_outcome *o, int must_refuse);

/* The iteration count and seed (environment, else these). */
long mutate_iterations(long default_count);
uint64_t mutate_seed(void);

/* Writes len bytes to path (created 0600, replaced); 0 or -1. */
int mutate_write_file(const char *path, const void *buf, size_t len);
/* Reads the whole file; NULL on error. */
unsigned char *mutate_read_file(const char *path, size_t *len);

/* Tallies and the report of a run: prints what failed (and keeps the input
 * as FAILDIR/fail-N), and the summary line. */
struct mutate_tally {
    long runs, refused, accepted, failed;
    long by_kind[16];
    const char *faildir;
};
void mutate_count(struct mutate_tally *t, int kind, const struct mutate_outcome *o,
                  const char *verdict, const char *what, const void *input, size_t len);
/* Prints the summary; returns the driver's exit status (1 if anything failed). */
int mutate_summary(const struct mutate_tally *t, const char *reader, uint64_t seed,
                   const char *const kind_name[], int nkinds);

#endif
