/* Mutation fuzzing of the proxy's state-file reader, state_load
 * (src/proxy/state.c; mutate.h): linked with the proxy's own files (all
 * but its main.c) under AddressSanitizer and UBSan, it starts MPI once (a
 * singleton: one rank, as the state file of a one-rank job says) and loads
 * each damaged copy in a forked child, which replays it as a restarted
 * proxy would: communicators re-created, requests and cache filled. Besides
 * plain damage, the header's counts, saved requests, cached messages and
 * the communicator record are given extreme values or random bytes with the
 * trailing CRC32C made right again, so that the checks behind it are tried.
 *   fuzz_state STATE_FILE SCRATCH_DIR   (MUTATE_ITERATIONS, MUTATE_SEED)
 * STATE_FILE: rank-0.state of a one-rank job's checkpoint. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32c.h"
#include "mutate.h"
#include "proxy.h"
#include "state.h"

/* A sanitizer's report must not look like a refusal (status 1). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "exitcode=86:detect_leaks=0";
}
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "exitcode=86:halt_on_error=1:print_stacktrace=1";
}

/* What main.c of the proxy provides; a state file's reader needs none of it
 * but the proxy's identity. */
struct proxy proxy = {.memfd = -1};
volatile sig_atomic_t child_exited;
int grow_staging(uint64_t size)
{
    (void)size;
    return MPI_ERR_NO_MEM;
}
int progress_wait(MPI_Request *req, MPI_Status *st, int abandonable)
{
    (void)abandonable;
    return MPI_Wait(req, st);
}
_Noreturn void child_ended(void)
{
    _exit(3);
}

/* The layout state.c writes (its comment): header, record, requests,
 * cached messages, identity, CRC32C. */
#define HEADER 32
#define REQ 72
#define MSG 24
#define TRAILER (16 + 4)

enum kind { FLIP, TRUNCATE, RANDOM, COUNTS, REQUEST, MESSAGE, RECORD, RANDOM_FIXED, KINDS };
static const char *const kind_name[KINDS] = {
    "bit flips",        "truncated",         "random bytes",
    "header counts",    "request fields",    "cached message fields",
    "record bytes",     "random bytes with the checksum right"};

struct field {
    const char *name;
    size_t off;
    int width;
};
static const struct field header_fields[] = {{"version", 8, 4}, {"rank", 12, 4},
                                             {"size", 16, 4},    {"record_bytes", 20, 4},
                                             {"nreqs", 24, 4},   {"ncache", 28, 4}};
static const struct field req_fields[] = {{"token", 0, 4},  {"state", 4, 1},   {"kind", 5, 1},
                                          {"comm", 8, 4},   {"peer", 12, 4},   {"tag", 16, 4},
                                          {"offset", 24, 8}, {"bytes", 32, 8}, {"posted", 40, 8},
                                          {"done", 48, 8}};
static const struct field msg_fields[] = {
    {"comm", 0, 4}, {"source", 4, 4}, {"tag", 8, 4}, {"rc", 12, 4}, {"bytes", 16, 8}};
#define COUNT(a) (sizeof a / sizeof a[0])

static int load(void *gen_dir)
{
    char err[600];
    if (state_load(gen_dir, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

static void set_field(struct mutate_rng *g, unsigned char *at, const struct field *f, char *what,
                      size_t cap, const char *where)
{
    uint64_t old = mutate_get(at + f->off, f->width), v = mutate_extreme(g, old);
    mutate_put(at + f->off, f->width, v);
    v = mutate_get(at + f->off, f->width); /* what of it fits */
    snprintf(what, cap, "%s%s = %#llx (was %#llx)", where, f->name, (unsigned long long)v,
             (unsigned long long)old);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fuzz_state STATE_FILE SCRATCH_DIR\n");
        return 2;
    }
    size_t len;
    unsigned char *orig = mutate_read_file(argv[1], &len), *buf = malloc(len + 4096);
    if (!orig || !buf || len < HEADER + TRAILER) {
        fprintf(stderr, "fuzz_state: cannot read the state file %s\n", argv[1]);
        return 2;
    }
    uint32_t record_bytes = (uint32_t)mutate_get(orig + 20, 4), nreqs = (uint32_t)mutate_get(orig + 24, 4),
             ncache = (uint32_t)mutate_get(orig + 28, 4);
    uint64_t job = mutate_get(orig + len - TRAILER, 8), gen = mutate_get(orig + len - TRAILER + 8, 8);
    size_t reqs_at = HEADER + record_bytes, msgs_at = reqs_at + (size_t)nreqs * REQ;
    if (msgs_at > len - TRAILER) {
        fprintf(stderr, "fuzz_state: %s is no state file of this format\n", argv[1]);
        return 2;
    }
    /* The slot it belongs to: the job (MPCR_JOB_ID) and gen-K. */
    char job_hex[32], gen_dir[4200], path[4300];
    snprintf(job_hex, sizeof job_hex, "%016llx", (unsigned long long)job);
    setenv("MPCR_JOB_ID", job_hex, 1);
    snprintf(gen_dir, sizeof gen_dir, "%s/gen-%llu", argv[2], (unsigned long long)gen);
    if (mkdir(gen_dir, 0700) && errno != EEXIST) {
        perror("fuzz_state: mkdir");
        return 2;
    }
    snprintf(path, sizeof path, "%s/rank-0.state", gen_dir);

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &proxy.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &proxy.size);
    map_init();
    mpcr_crc32c_init();

    struct mutate_outcome o;
    if (mutate_write_file(path, orig, len)) return perror("fuzz_state: writing"), 2;
    mutate_run_fn(load, gen_dir, 60, &o);
    if (o.status != 0) {
        printf("fuzz_state: the intact state file is refused (status %d, signal %d): %s\n",
               o.status, o.signal, o.said);
        free(orig), free(buf);
        return 1;
    }
    uint64_t seed = mutate_seed();
    struct mutate_rng g = {seed};
    struct mutate_tally t = {.faildir = argv[2]};
    long iterations = mutate_iterations(300);
    for (long it = 0; it < iterations; it++) {
        memcpy(buf, orig, len);
        size_t size = len;
        enum kind k = (enum kind)mutate_below(&g, KINDS);
        char what[300], where[64];
        snprintf(what, sizeof what, "%s", kind_name[k]);
        switch (k) {
        case FLIP: mutate_flip_bits(&g, buf, size); break;
        case RANDOM:
        case RANDOM_FIXED: mutate_random_bytes(&g, buf, size - 4); break;
        case TRUNCATE:
            size = mutate_below(&g, len);
            snprintf(what, sizeof what, "%zu of %zu bytes", size, len);
            break;
        case COUNTS:
            set_field(&g, buf, &header_fields[mutate_below(&g, COUNT(header_fields))], what,
                      sizeof what, "header ");
            break;
        case REQUEST: {
            if (!nreqs) break;
            uint64_t i = mutate_below(&g, nreqs);
            snprintf(where, sizeof where, "request %llu: ", (unsigned long long)i);
            set_field(&g, buf + reqs_at + REQ * i, &req_fields[mutate_below(&g, COUNT(req_fields))],
                      what, sizeof what, where);
            break;
        }
        case MESSAGE:
            if (!ncache) break;
            set_field(&g, buf + msgs_at, &msg_fields[mutate_below(&g, COUNT(msg_fields))], what,
                      sizeof what, "first cached message: ");
            break;
        case RECORD:
            if (!record_bytes) break;
            if (mutate_below(&g, 2)) mutate_random_bytes(&g, buf + HEADER, record_bytes);
            else {
                size_t at = HEADER + (mutate_below(&g, record_bytes) & ~3ul);
                int w = at + 8 <= reqs_at && mutate_below(&g, 2) ? 8 : 4;
                if (at + (size_t)w > reqs_at) break;
                struct field f = {"word", 0, w};
                snprintf(where, sizeof where, "record byte %zu: ", at - HEADER);
                set_field(&g, buf + at, &f, what, sizeof what, where);
            }
            break;
        case KINDS: break;
        }
        int fixed = k >= COUNTS;
        if (fixed) {
            uint32_t crc = mpcr_crc32c(0, buf, size - 4);
            memcpy(buf + size - 4, &crc, 4);
        }
        int changed = size != len || memcmp(buf, orig, len);
        if (mutate_write_file(path, buf, size)) return perror("fuzz_state: writing"), 2;
        mutate_run_fn(load, gen_dir, 60, &o);
        mutate_count(&t, k, &o, mutate_judge(&o, changed && !fixed), what, buf, size);
    }
    int rc = mutate_summary(&t, "fuzz_state (state_load)", seed, kind_name, KINDS);
    free(orig), free(buf);
    MPI_Finalize();
    return rc;
}
