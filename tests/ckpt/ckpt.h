/* Shared by the checkpoint/restart test programs (tests/ckpt/). Their output
 * must not depend on timing, nor on where a job was checkpointed, killed
 * and restarted: only rank 0 prints, a few progress lines (progress()) and,
 * at the end, the results of every rank gathered to it (report(), one
 * write). Its output is therefore one ordered stream; ckpt.sh compares it
 * sorted with the native run's, and a restart's output as a suffix of it.
 * Everything is computed from integers by fixed rules (mix64), so it is
 * the same in every run. */
#ifndef TEST_CKPT_H
#define TEST_CKPT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* open_memstream (the build defines it anyway) */
#endif
#include <mpi.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* splitmix64's finaliser: a deterministic 64-bit hash. */
static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static inline uint64_t mix2(uint64_t a, uint64_t b)
{
    return mix64(a ^ mix64(b));
}

/* h with the n values at v mixed in, in order. */
static inline uint64_t fold64(uint64_t h, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        h = mix2(h, (uint64_t)v[i]);
    return h;
}

/* A value of 20 bits for step s, rank r, slot i: what the one-sided
 * programs put and accumulate. */
static inline int64_t step_value(long s, int r, int i)
{
    return (int64_t)(mix2((uint64_t)s, (uint64_t)(r * 1000 + i)) & 0xfffff);
}

/* Pure computation, no MPI and no memory traffic: UNITS units (the unit of
 * the programs' UNITS arguments), about 0.6 ms each on one core of the CI
 * machine, built with -O2 (as CMakeLists.txt does, whatever the build
 * type). It was 1 ms until 2026-12-06: most of a checkpoint test's time is
 * this computation, twice (the native reference and the job under mpcr),
 * and 0.6 ms took about 2 minutes off the suite, the checkpoints landing at
 * the same fractions of each program. */
static inline uint64_t compute(uint64_t seed, long units)
{
    uint64_t x = seed;
    for (long u = 0; u < units; u++)
        for (int i = 0; i < 135000; i++)
            x = mix64(x + (uint64_t)i);
    return x;
}

/* Ranks paired up (0-1, 2-3, ...): this rank's partner; this rank in
 * *rank. Ends the job if the number of ranks is odd. */
static inline int paired_peer(int *rank)
{
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((*rank ^ 1) >= size) {
        fprintf(stderr, "an even number of ranks is needed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return *rank ^ 1;
}

/* A positive integer argument (argv[i]), or dflt if absent. */
static inline long arg_long(int argc, char **argv, int i, long dflt)
{
    if (argc <= i) return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v <= 0) {
        fprintf(stderr, "%s: argument %d must be a positive integer, not '%s'\n", argv[0], i,
                argv[i]);
        exit(2);
    }
    return v;
}

/* A line printed by rank 0 only, flushed at once. */
#define progress(...) progress_on(MPI_COMM_WORLD, __VA_ARGS__)
/* The same with rank 0 of communicator comm (before MPI_Init, a session's). */
#define progress_on(comm, ...)                                                                     \
    do {                                                                                           \
        int r_;                                                                                    \
        MPI_Comm_rank(comm, &r_);                                                                  \
        if (r_ == 0) {                                                                             \
            printf(__VA_ARGS__);                                                                   \
            fflush(stdout);                                                                        \
        }                                                                                          \
    } while (0)

/* Ends the job with a message (on stderr) when a check fails. */
#define check(cond, ...) check_on(MPI_COMM_WORLD, cond, __VA_ARGS__)
/* The same naming this rank of communicator comm, and aborting on it. */
#define check_on(comm, cond, ...)                                                                  \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int r_;                                                                                \
            MPI_Comm_rank(comm, &r_);                                                              \
            fprintf(stderr, "rank %d: ", r_);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            MPI_Abort(comm, 3);                                                                    \
        }                                                                                          \
    } while (0)

/* *sum mixed with the XOR of every member's v over communicator c
 * (collective over c). */
static inline void fold_xor_over(MPI_Comm c, uint64_t *sum, uint64_t v)
{
    uint64_t y = 0;
    MPI_Allreduce(&v, &y, 1, MPI_UINT64_T, MPI_BXOR, c);
    *sum = mix2(*sum, y);
}

/* Creates PATH.reached, then waits until the file PATH (or, if not NULL,
 * the file OR_PATH) exists. */
static inline void wait_for_file(const char *path, const char *or_path)
{
    char reached[4096];
    snprintf(reached, sizeof reached, "%s.reached", path);
    int fd = open(reached, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    while (access(path, F_OK) != 0 && !(or_path && access(or_path, F_OK) == 0))
        usleep(20000);
}

/* The test harness's hold (ckpt.sh, tests/batch): with CKPT_HOLD=PATH in
 * the environment, rank 0 waits before the results are gathered until the
 * file PATH exists, having created PATH.reached, and the other ranks wait
 * for it in MPI_Barrier (not in the gather, which a small message leaves
 * at once, on to MPI_Finalize, where a checkpoint is refused). A job faster
 * than the harness guessed (an idle machine, a fast one) thus cannot end
 * before the checkpoints it is to take; a checkpoint taken then finds rank
 * 0 computing and the others blocked in MPI_Barrier, and the harness
 * counts it as taken at the job's end (PATH.reached exists). The native
 * reference runs without it. Collective. */
static inline void hold_for_harness_on(MPI_Comm comm, int rank)
{
    const char *path = getenv("CKPT_HOLD");
    if (!path || !*path) return;
    if (rank == 0) wait_for_file(path, NULL);
    MPI_Barrier(comm);
}
/* The same over MPI_COMM_WORLD (hold_for_harness_on: a session's
 * communicator, outside the world model). */
static inline void hold_for_harness(int rank)
{
    hold_for_harness_on(MPI_COMM_WORLD, rank);
}

/* The harness's midway hold (tests/batch, every job started after
 * hold_jobs): with CKPT_MIDWAY=PATH, rank 0 of a program that calls this
 * half-way through its work waits there (computing, not in MPI) until PATH
 * exists, having created PATH.reached; the others go on until they wait for
 * its messages. A checkpoint whose request travels through a batch system's
 * daemons (a signal sent by scancel, a requeue) or a launcher can take
 * seconds on two busy cores; it then lands at the latest here, in the
 * middle of the job with messages in flight, not at its end. The harness
 * releases it once its checkpoint is complete; releasing the final hold
 * (CKPT_HOLD's file) releases this one too, for runs that take none. */
static inline void midway_for_harness(int rank)
{
    const char *path = getenv("CKPT_MIDWAY");
    if (path && *path && rank == 0) wait_for_file(path, getenv("CKPT_HOLD"));
}

/* A data file's path, NAME.ID.EXT, in $CKPT_SCRATCH (the harness's scratch directory, kept
 * there for a restart from an older generation) or else in $TMPDIR or /tmp; ID is rank 0's pid,
 * the same on every rank. Collective. Whether it is in the scratch directory: if not, the
 * program removes the file at its end. */
static inline int scratch_file(char *path, size_t cap, const char *name, const char *ext)
{
    const char *scratch = getenv("CKPT_SCRATCH"), *tmp = getenv("TMPDIR");
    long id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, cap, "%s/%s.%ld.%s", scratch ? scratch : tmp ? tmp : "/tmp", name, id, ext);
    return scratch != NULL;
}

#define REPORT_MAX 8

/* Collective over comm: every rank's nv values (nv <= REPORT_MAX) are
 * gathered to its rank 0, which prints "NAME rank R: NAME0=V0 ..." per
 * rank, with one write. */
static inline void report_on(MPI_Comm comm, const char *name, const char *const *names,
                             const uint64_t *v, int nv)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    hold_for_harness_on(comm, rank);
    uint64_t mine[REPORT_MAX] = {0};
    memcpy(mine, v, (size_t)nv * sizeof *v);
    uint64_t *all = rank == 0 ? malloc((size_t)size * REPORT_MAX * sizeof *all) : NULL;
    MPI_Gather(mine, REPORT_MAX, MPI_UINT64_T, all, REPORT_MAX, MPI_UINT64_T, 0, comm);
    if (rank == 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        for (int r = 0; r < size; r++) {
            fprintf(f, "%s rank %d:", name, r);
            for (int i = 0; i < nv; i++)
                fprintf(f, " %s=%016" PRIx64, names[i], all[r * REPORT_MAX + i]);
            fprintf(f, "\n");
        }
        fclose(f);
        fflush(stdout);
        if (write(1, buf, len) != (ssize_t)len) perror("write");
        free(buf);
        free(all);
    }
}

/* report_on over MPI_COMM_WORLD. */
static inline void report(const char *name, const char *const *names, const uint64_t *v, int nv)
{
    report_on(MPI_COMM_WORLD, name, names, v, nv);
}

#endif
