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
 * MUTATE_SECONDS=S draws inputs for S seconds instead of a count (what
 * tests/security/fuzz.sh asks for). MUTATE_VERBOSE=1 prints every run's
 * damage and outcome.
 *
 * Pinned cases: before the drawn ones, a driver may replay damage found
 * before (docs/reliability.md), with its checksums made right; each must
 * be refused, every run, so that what was fixed stays fixed. */
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

/* Cuts the file (len bytes) at a random length, or, with may_grow one time
 * in four, adds up to 4095 bytes after it (buf has room); sets *size and
 * says so in what. */
void mutate_truncate(struct mutate_rng *g, unsigned char *buf, size_t len, size_t *size,
                     int may_grow, char *what, size_t cap);

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

/* The iteration count and seed (environment, else these); the time budget
 * in seconds (MUTATE_SECONDS), 0 when none is asked for. */
long mutate_iterations(long default_count);
double mutate_seconds(void);
uint64_t mutate_seed(void);

/* Writes len bytes to path (created 0600, replaced); 0 or -1. */
int mutate_write_file(const char *path, const void *buf, size_t len);
/* Reads the whole file; NULL on error. */
unsigned char *mutate_read_file(const char *path, size_t *len);

/* A field of a record: its name, offset and width (1, 2, 4 or 8 bytes). */
struct mutate_field {
    const char *name;
    size_t off;
    int width;
};
/* Sets field f of the record at `at` to mutate_extreme(); describes it in
 * what as "WHERE NAME = NEW (was OLD)". */
void mutate_set_field(struct mutate_rng *g, unsigned char *at, const struct mutate_field *f,
                      char *what, size_t cap, const char *where);

/* One reader's driver. */
struct mutate_driver {
    const char *reader; /* for the report */
    const char *const *kind_name;
    int nkinds;
    int first_fixed; /* kinds from this one on have their checksums made right */
    long default_iterations;
    /* Damages buf (the valid file's len bytes, room for 4096 more) as kind
     * says; sets *size; says what it did in what. */
    void (*damage)(struct mutate_rng *g, int kind, unsigned char *buf, size_t len, size_t *size,
                   char *what, size_t cap);
    void (*fix)(unsigned char *buf, size_t size); /* makes every checksum right again */
    void (*run)(const unsigned char *buf, size_t size, struct mutate_outcome *o);
    /* Pinned cases (none when npinned is 0): applies case i to buf (the
     * valid file, room as above), sets *size, says what it did in what;
     * 0, or -1 when the valid file has nothing it applies to. */
    int npinned;
    int (*pin)(int i, unsigned char *buf, size_t len, size_t *size, char *what, size_t cap);
};
/* Runs the reader on the intact file (which must be accepted), then on
 * the pinned cases (each must be refused), then on damaged copies, judging
 * each; prints what failed (keeping the input as FAILDIR/fail-N) and a
 * summary. Returns the driver's exit status: 0, 1
 * when anything failed. */
int mutate_drive(const struct mutate_driver *d, const unsigned char *orig, size_t len,
                 const char *faildir);

#endif
