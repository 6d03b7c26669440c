/* Mutation fuzzing of the proxy's state-file reader, state_load
 * (src/proxy/ckpt/state.c; mutate.h): linked with the proxy's own files (all
 * but its main.c) under AddressSanitizer and UBSan, it starts MPI once (a
 * singleton: one rank, as the state file of a one-rank job says) and loads
 * each damaged copy in a forked child, which replays it as a restarted
 * proxy would: communicators re-created, requests and cache filled. Besides
 * plain damage, the header's counts, saved requests, cached messages and
 * the communicator record, creations, duplicates, open files and windows are given extreme values or random bytes with the
 * trailing CRC32C made right again, so that the checks behind it are tried;
 * so are the sections' headers (names, versions, sizes).
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
_Noreturn void end_job_for_mpcr(int code)
{
    _exit(code);
}

/* The layout state.c writes (its comment): header, a section per resource
 * kind (a 32-byte header, its bytes padded to 8), identity, CRC32C. */
#define HEADER 32
#define SECTION_HEADER 32
#define REQ 72
#define MSG 24
#define TRAILER (16 + 4)

enum kind { FLIP, TRUNCATE, RANDOM, COUNTS, SECTION, REQUEST, MESSAGE, RECORD, RANDOM_FIXED, KINDS };
static const char *const kind_name[KINDS] = {
    "bit flips",        "truncated",          "random bytes",
    "header fields",    "section headers",    "request fields",
    "cached message fields", "communicator, creation, duplicate and file sections",
    "random bytes with the checksum right"};

static const struct mutate_field header_fields[] = {
    {"version", 8, 4}, {"rank", 12, 4}, {"size", 16, 4}, {"nsections", 20, 4}};
static const struct mutate_field section_fields[] = {
    {"name", 0, 8}, {"name's end", 8, 8}, {"version", 16, 4}, {"bytes", 24, 8}};
static const struct mutate_field req_fields[] = {{"token", 0, 4},  {"state", 4, 1},   {"kind", 5, 1},
                                          {"comm", 8, 4},   {"peer", 12, 4},   {"tag", 16, 4},
                                          {"offset", 24, 8}, {"bytes", 32, 8}, {"posted", 40, 8},
                                          {"done", 48, 8}};
static const struct mutate_field msg_fields[] = {
    {"comm", 0, 4}, {"source", 4, 4}, {"tag", 8, 4}, {"rc", 12, 4}, {"bytes", 16, 8}};
static const struct mutate_field count_field = {"count", 0, 4};
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

/* Where the valid file's sections lie (from its own headers). */
#define MAX_SECTIONS 16
static size_t section_at[MAX_SECTIONS], section_bytes[MAX_SECTIONS], nsections;
static char section_name[MAX_SECTIONS][17];
static char state_path[4300], gen_dir[4200];

/* Where the data of section `name` begins (its count first); *bytes 0 when
 * there is none. */
static size_t section_data(const char *name, size_t *bytes)
{
    for (size_t i = 0; i < nsections; i++)
        if (!strcmp(section_name[i], name)) return *bytes = section_bytes[i], section_at[i] + SECTION_HEADER;
    return *bytes = 0, 0;
}

/* A record of a section of fixed-size records after an 8-byte count, or,
 * now and then, the count. */
static void damage_record(struct mutate_rng *g, unsigned char *buf, const char *name, size_t size,
                          const struct mutate_field *fields, size_t nfields, char *what, size_t cap)
{
    size_t bytes, at = section_data(name, &bytes), n = bytes >= 8 ? (bytes - 8) / size : 0;
    char where[64];
    snprintf(where, sizeof where, "%s: ", name);
    if (!n || mutate_below(g, 4) == 0) {
        if (bytes >= 8) mutate_set_field(g, buf + at, &count_field, what, cap, where);
        return;
    }
    uint64_t i = mutate_below(g, n);
    snprintf(where, sizeof where, "%s %llu: ", name, (unsigned long long)i);
    mutate_set_field(g, buf + at + 8 + size * i, &fields[mutate_below(g, nfields)], what, cap, where);
}

static void damage(struct mutate_rng *g, int kind, unsigned char *buf, size_t len, size_t *size,
                   char *what, size_t cap)
{
    char where[64];
    switch ((enum kind)kind) {
    case FLIP: mutate_flip_bits(g, buf, len); break;
    case RANDOM:
    case RANDOM_FIXED: mutate_random_bytes(g, buf, len - 4); break;
    case TRUNCATE: mutate_truncate(g, buf, len, size, 0, what, cap); break;
    case COUNTS:
        mutate_set_field(g, buf, &header_fields[mutate_below(g, COUNT(header_fields))], what, cap,
                         "header ");
        break;
    case SECTION: {
        size_t k = mutate_below(g, nsections);
        snprintf(where, sizeof where, "section %s: ", section_name[k]);
        mutate_set_field(g, buf + section_at[k], &section_fields[mutate_below(g, COUNT(section_fields))],
                         what, cap, where);
        break;
    }
    case REQUEST: damage_record(g, buf, "requests", REQ, req_fields, COUNT(req_fields), what, cap); break;
    case MESSAGE: { /* the first message's header: each message's bytes follow its header */
        size_t bytes, at = section_data("drained", &bytes);
        if (bytes >= 8 + MSG)
            mutate_set_field(g, buf + at + 8, &msg_fields[mutate_below(g, COUNT(msg_fields))], what,
                             cap, "first cached message: ");
        else if (bytes >= 8)
            mutate_set_field(g, buf + at, &count_field, what, cap, "drained: ");
        break;
    }
    case RECORD: {
        static const char *const records[] = {"comms", "creations", "idups", "files", "windows"};
        const char *name = records[mutate_below(g, COUNT(records))];
        size_t bytes, at = section_data(name, &bytes);
        if (!bytes) break;
        if (mutate_below(g, 2)) {
            mutate_random_bytes(g, buf + at, bytes);
        } else {
            size_t off = mutate_below(g, bytes) & ~3ul;
            int w = off + 8 <= bytes && mutate_below(g, 2) ? 8 : 4;
            if (off + (size_t)w > bytes) break;
            struct mutate_field f = {"word", 0, w};
            snprintf(where, sizeof where, "%s byte %zu: ", name, off);
            mutate_set_field(g, buf + at + off, &f, what, cap, where);
        }
        break;
    }
    case KINDS: break;
    }
}

static void fix(unsigned char *buf, size_t size)
{
    uint32_t crc = mpcr_crc32c(0, buf, size - 4);
    memcpy(buf + size - 4, &crc, 4);
}

static void run(const unsigned char *buf, size_t size, struct mutate_outcome *o)
{
    if (mutate_write_file(state_path, buf, size)) {
        perror("fuzz_state: writing the damaged copy");
        exit(2);
    }
    mutate_run_fn(load, gen_dir, 60, o);
}

/* The pinned cases: what the drawn damage once got past the checks
 * (docs/reliability.md, 2026-12-06), the checksum made right (the driver
 * does), each to be refused. */
enum pinned {
    VIEW_COUNT, /* the first open file's filetype: its first node's count made
                 * 0x344b9ddd (877 million blocks: still an int) behind a right
                 * checksum; the real MPI_File_set_view then flattened it for
                 * the time limit (hung) before the sizes were saved and checked */
    COMM_ID,    /* the comms section's bytes 12-19 all ones (its first
                 * communicator's id among them): the proxy's table of
                 * communicators grew to 48 GiB before ids were bounded */
    PINNED
};

static int pin(int c, unsigned char *buf, size_t len, size_t *size, char *what, size_t cap)
{
    *size = len;
    if ((enum pinned)c == COMM_ID) {
        size_t bytes, at = section_data("comms", &bytes);
        if (bytes < 20) return -1;
        snprintf(what, cap, "comms bytes 12-19: 0x7fffffffffffffff (was %#llx)",
                 (unsigned long long)mutate_get(buf + at + 12, 8));
        uint64_t v = 0x7fffffffffffffff;
        memcpy(buf + at + 12, &v, 8);
        return 0;
    }
    if ((enum pinned)c != VIEW_COUNT) return -1;
    /* the files section: u32 count, pad, then the first file's 128-byte
     * record (its string and definition lengths at bytes 72-111), its
     * path, hints and etype's definition (each padded to 8), then the
     * filetype's: u32 nodes, pad, then nodes of 40 bytes and their words */
    size_t bytes, at = section_data("files", &bytes);
    if (bytes < 8 + 128 || !mutate_get(buf + at, 4)) return -1;
    const unsigned char *rec = buf + at + 8;
    uint64_t path = mutate_get(rec + 72, 8), hints = mutate_get(rec + 80, 8), ebytes = mutate_get(rec + 88, 8),
             fbytes = mutate_get(rec + 96, 8);
    size_t def = at + 8 + 128 + (path + 7) / 8 * 8 + (hints + 7) / 8 * 8 + (ebytes + 7) / 8 * 8;
    if (!fbytes || def + fbytes > at + bytes) return -1;
    uint32_t nodes = (uint32_t)mutate_get(buf + def, 4);
    size_t node = def + 8;
    for (uint32_t k = 0; k < nodes && node + 40 <= def + fbytes; k++) {
        uint64_t nints = mutate_get(buf + node + 8, 4), words = nints + mutate_get(buf + node + 12, 4) +
                                                              mutate_get(buf + node + 16, 4);
        if (nints && mutate_get(buf + node, 4) != 0 && node + 40 + 8 <= def + fbytes) {
            snprintf(what, cap, "files: the first file's filetype, node %u: its count 0x344b9ddd (was %lld)", k,
                     (long long)mutate_get(buf + node + 40, 8));
            uint64_t v = 0x344b9ddd;
            memcpy(buf + node + 40, &v, 8);
            return 0;
        }
        node += 40 + 8 * words;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fuzz_state STATE_FILE SCRATCH_DIR\n");
        return 2;
    }
    size_t len;
    unsigned char *orig = mutate_read_file(argv[1], &len);
    if (!orig || len < HEADER + TRAILER) {
        fprintf(stderr, "fuzz_state: cannot read the state file %s\n", argv[1]);
        return 2;
    }
    nsections = (size_t)mutate_get(orig + 20, 4);
    size_t at = HEADER;
    for (size_t k = 0; k < nsections; k++) {
        if (k == MAX_SECTIONS || at + SECTION_HEADER > len - TRAILER) break;
        memcpy(section_name[k], orig + at, 16);
        section_at[k] = at, section_bytes[k] = (size_t)mutate_get(orig + at + 24, 8);
        at += SECTION_HEADER + (section_bytes[k] + 7) / 8 * 8;
    }
    if (at != len - TRAILER) {
        fprintf(stderr, "fuzz_state: %s is no state file of this format\n", argv[1]);
        return 2;
    }
    /* The slot it belongs to: the job (MPCR_JOB_ID) and gen-K. */
    uint64_t job = mutate_get(orig + len - TRAILER, 8), gen = mutate_get(orig + len - TRAILER + 8, 8);
    char job_hex[32];
    snprintf(job_hex, sizeof job_hex, "%016llx", (unsigned long long)job);
    setenv("MPCR_JOB_ID", job_hex, 1);
    snprintf(gen_dir, sizeof gen_dir, "%s/gen-%llu", argv[2], (unsigned long long)gen);
    if (mkdir(gen_dir, 0700) && errno != EEXIST) {
        perror("fuzz_state: mkdir");
        return 2;
    }
    snprintf(state_path, sizeof state_path, "%s/rank-0.state", gen_dir);

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &proxy.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &proxy.size);
    map_init();
    mpcr_crc32c_init();
    static const struct mutate_driver d = {"fuzz_state (state_load)", kind_name, KINDS, COUNTS, 300,
                                           damage, fix, run, PINNED, pin};
    int rc = mutate_drive(&d, orig, len, argv[2]);
    free(orig);
    MPI_Finalize();
    return rc;
}
