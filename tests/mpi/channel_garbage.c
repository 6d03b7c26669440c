/* Run under mpcr only. Plays a hostile (or badly broken) library: after
 * MPI_Init it finds the channel in its own address space (the memfd named
 * "mpcr-channel", layout in src/channel/channel.h), writes call lines with
 * offsets and lengths outside the staging area (some wrapping around 2^64),
 * dead or made-up communicator ids, bad tokens, peers and tags, an unknown
 * operation and a COMPLETE with a huge count, publishes each as the library
 * does (src/lib/runtime/call.c) and checks that the proxy answers each with the MPI
 * error class MPI prescribes for that argument. Then it puts the channel's
 * sequence number back where the library expects it and checks that the
 * proxy still works through the ordinary MPI calls.
 * Exits 1 if any answer was wrong; a proxy that crashes ends the job. */
#include "channel.h"

#include <limits.h>
#include <linux/futex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct mpcr_chan *ch;
static uint64_t staging_size;
static int rank, failures, cases;

/* The channel's mapping: its start, and the staging area's size. */
static void find_channel(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    unsigned long start, end;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "memfd:mpcr-channel") && sscanf(line, "%lx-%lx", &start, &end) == 2) {
            ch = (struct mpcr_chan *)start;
            staging_size = end - start - MPCR_CHAN_CONTROL;
        }
    if (f) fclose(f);
    if (!ch || ch->magic != MPCR_CHAN_MAGIC) {
        printf("rank %d: no mpcr channel in /proc/self/maps (run this under `mpcr run`)\n", rank);
        exit(1);
    }
}

/* Publishes the call line with sequence number seq as the library does and
 * waits for the proxy's answer. */
static const struct mpcr_reply *publish(uint32_t seq)
{
    atomic_store(&ch->call.seq, seq);
    if (atomic_load(&ch->reply.proxy_sleeping)) {
        atomic_fetch_add(&ch->doorbell, 1);
        syscall(SYS_futex, &ch->doorbell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
    while (atomic_load(&ch->reply.seq) != seq)
        usleep(100); /* a dead proxy ends this program (the library's death signal) */
    return &ch->reply;
}

static void fill(const struct mpcr_call *c)
{
    ch->call.op = c->op, ch->call.comm = c->comm, ch->call.peer = c->peer;
    ch->call.tag = c->tag, ch->call.token = c->token;
    ch->call.offset = c->offset, ch->call.bytes = c->bytes;
}

struct hostile {
    const char *what;
    struct mpcr_call call;
    int expect; /* error class */
};

static void play(const struct hostile *h, uint32_t *seq)
{
    fill(&h->call);
    const struct mpcr_reply *r = publish(++*seq);
    cases++;
    if (r->rc != h->expect) {
        printf("rank %d: %s: error class %d, expected %d\n", rank, h->what, r->rc, h->expect);
        failures++;
    }
    if (h->call.op == MPCR_OP_ISEND && r->token) {
        printf("rank %d: %s: a request was made (token %u)\n", rank, h->what, r->token);
        failures++;
    }
}

#define C(op_, ...) ((struct mpcr_call){.op = MPCR_OP_##op_, __VA_ARGS__})

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, *ub, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    int tag_ub = flag ? *ub : 32767;
    /* A communicator that existed once: id 2 (mpcr's library numbers its
     * communicators from 2, and frees this one at the proxy at once, as no
     * request keeps it alive). */
    MPI_Comm gone;
    MPI_Comm_dup(MPI_COMM_WORLD, &gone);
    MPI_Comm_free(&gone);
    find_channel();

    const uint64_t end = staging_size, wrap = UINT64_MAX - 7;
    const uint32_t coll = MPCR_COLL_CONTEXT, other = (uint32_t)(rank + 1) % (uint32_t)size;
    const struct hostile cases_[] = {
        /* staging ranges: [offset, offset + bytes) must lie inside it */
        {"SEND beyond the staging area", C(SEND, .peer = 0, .offset = end, .bytes = 64),
         MPI_ERR_BUFFER},
        {"SEND wrapping around 2^64", C(SEND, .peer = 0, .offset = wrap, .bytes = 64),
         MPI_ERR_BUFFER},
        {"RECV of 2^64-1 bytes", C(RECV, .peer = 0, .offset = 64, .bytes = UINT64_MAX),
         MPI_ERR_BUFFER},
        {"ISEND straddling the end", C(ISEND, .peer = 0, .offset = end - 8, .bytes = 64),
         MPI_ERR_BUFFER},
        {"IRECV far away", C(IRECV, .peer = 0, .offset = 1ull << 40, .bytes = 1), MPI_ERR_BUFFER},
        {"INIT's output beyond the end", C(INIT, .offset = end - 16, .bytes = 384), MPI_ERR_BUFFER},
        {"GROW to 2^64-1 bytes", C(GROW, .bytes = UINT64_MAX), MPI_ERR_NO_MEM},
        /* communicators */
        {"SEND on an unknown communicator", C(SEND, .comm = 12345, .bytes = 0), MPI_ERR_COMM},
        {"SEND on a freed communicator", C(SEND, .comm = 2), MPI_ERR_COMM},
        {"RECV on a freed one's collective context", C(RECV, .comm = 2 | coll), MPI_ERR_COMM},
        {"PROBE on an unknown collective context", C(PROBE, .comm = 99 | coll), MPI_ERR_COMM},
        {"IPROBE on id 2^32-1", C(IPROBE, .comm = UINT32_MAX), MPI_ERR_COMM},
        {"COMM_DUP of a collective context", C(COMM_DUP, .comm = coll, .token = 3), MPI_ERR_COMM},
        {"COMM_DUP into a live id", C(COMM_DUP, .comm = 0, .token = 1), MPI_ERR_COMM},
        {"COMM_DUP into a collective id", C(COMM_DUP, .comm = 0, .token = 3 | coll), MPI_ERR_COMM},
        {"COMM_DUP into id 2^31-1", C(COMM_DUP, .comm = 0, .token = INT32_MAX), MPI_ERR_COMM},
        {"COMM_SPLIT of a freed one", C(COMM_SPLIT, .comm = 2, .token = 3), MPI_ERR_COMM},
        {"COMM_SPLIT with color -5", C(COMM_SPLIT, .comm = 0, .peer = -5, .token = 3),
         MPI_ERR_ARG},
        {"COMM_FREE of MPI_COMM_WORLD", C(COMM_FREE, .comm = 0), MPI_ERR_COMM},
        {"COMM_FREE of a collective context", C(COMM_FREE, .comm = 0 | coll), MPI_ERR_COMM},
        {"COMM_FREE of an unknown id", C(COMM_FREE, .comm = 777), MPI_ERR_COMM},
        /* requests */
        {"WAIT on token 0", C(WAIT, .token = 0), MPI_ERR_REQUEST},
        {"WAIT on token 2^32-1", C(WAIT, .token = UINT32_MAX), MPI_ERR_REQUEST},
        {"TEST on a free slot", C(TEST, .token = 5), MPI_ERR_REQUEST},
        /* peers and tags */
        {"SEND to rank `size`", C(SEND, .peer = size), MPI_ERR_RANK},
        {"SEND to rank 1 of MPI_COMM_SELF", C(SEND, .comm = 1, .peer = 1), MPI_ERR_RANK},
        {"SEND to MPI_ANY_SOURCE", C(SEND, .peer = -2), MPI_ERR_RANK},
        {"ISEND to rank INT_MIN", C(ISEND, .peer = INT_MIN), MPI_ERR_RANK},
        {"RECV from rank 99", C(RECV, .peer = 99), MPI_ERR_RANK},
        {"PROBE from rank -3", C(PROBE, .peer = -3), MPI_ERR_RANK},
        {"SEND with MPI_ANY_TAG", C(SEND, .peer = (int)other, .tag = -1), MPI_ERR_TAG},
        {"SSEND above MPI_TAG_UB", C(SSEND, .peer = (int)other, .tag = tag_ub + 1),
         tag_ub < INT_MAX ? MPI_ERR_TAG : MPI_SUCCESS},
        {"IRECV with tag -2", C(IRECV, .peer = 0, .tag = -2), MPI_ERR_TAG},
        {"IPROBE with tag INT_MIN", C(IPROBE, .peer = 0, .tag = INT_MIN), MPI_ERR_TAG},
        /* operations */
        {"unknown operation 999", (struct mpcr_call){.op = 999}, MPI_ERR_OTHER},
        {"operation MPCR_OP_COUNT", C(COUNT), MPI_ERR_OTHER},
    };
    /* SSEND above MPI_TAG_UB only where there is room above it: never sent. */
    uint32_t lib_seq = atomic_load(&ch->call.seq), seq = lib_seq;
    for (size_t i = 0; i < sizeof cases_ / sizeof *cases_; i++)
        if (cases_[i].expect != MPI_SUCCESS) play(&cases_[i], &seq);

    /* COMPLETE: `peer` tokens at offset, then one result per token. */
    uint32_t *tokens = mpcr_staging(ch, 0);
    tokens[0] = 0, tokens[1] = 0xdeadbeef;
    const struct hostile complete[] = {
        {"COMPLETE with 2^31-1 requests", C(COMPLETE, .peer = INT32_MAX, .tag = MPCR_TESTANY),
         MPI_ERR_COUNT},
        {"COMPLETE with -1 requests", C(COMPLETE, .peer = -1, .tag = MPCR_TESTALL), MPI_ERR_COUNT},
        {"COMPLETE in mode 17", C(COMPLETE, .peer = 1, .tag = 17), MPI_ERR_ARG},
        {"COMPLETE's tokens beyond the end", C(COMPLETE, .peer = 2, .offset = end - 4),
         MPI_ERR_ARG},
        {"COMPLETE's tokens wrapping around", C(COMPLETE, .peer = 2, .offset = wrap), MPI_ERR_ARG},
        {"COMPLETE with a made-up token", C(COMPLETE, .peer = 2, .tag = MPCR_TESTSOME),
         MPI_ERR_REQUEST},
    };
    for (size_t i = 0; i < sizeof complete / sizeof *complete; i++)
        play(&complete[i], &seq);

    /* Real datatypes (src/proxy/serve/real_types.c): definitions and packs that
     * are malformed or name what is not there. Built at offset 256. */
    const uint64_t at = 256;
    char *def = mpcr_staging(ch, at);
    struct mpcr_type_def head = {.nodes = 1};
    struct mpcr_type_node node = {.kind = MPCR_TYPE_VECTOR, .nints = 3, .ntypes = 1};
    int64_t words[4] = {2, 1, 2, 0}; /* vector(2, 1, 2, node 0): itself */
    memcpy(def, &head, sizeof head);
    memcpy(def + sizeof head, &node, sizeof node);
    memcpy(def + sizeof head + sizeof node, words, sizeof words);
    const uint64_t one = sizeof head + sizeof node + sizeof words;
    const uint32_t derived = 0x8c100000u | 77; /* a handle of the library's form */
    const struct hostile self[] = {
        {"TYPE_DEFINE of a predefined handle", C(TYPE_DEFINE, .token = 0x4c000405, .offset = at, .bytes = one),
         MPI_ERR_TYPE},
        {"TYPE_DEFINE beyond the end", C(TYPE_DEFINE, .token = derived, .offset = end - 8, .bytes = one),
         MPI_ERR_BUFFER},
        {"TYPE_DEFINE of a node made of itself", C(TYPE_DEFINE, .token = derived, .offset = at, .bytes = one),
         MPI_ERR_ARG},
        {"TYPE_DEFINE cut short", C(TYPE_DEFINE, .token = derived, .offset = at, .bytes = one - 8),
         MPI_ERR_ARG},
        {"TYPE_PACK of a handle never defined", C(TYPE_PACK, .token = derived, .offset = at, .bytes = 128),
         MPI_ERR_TYPE},
        {"TYPE_PACK's arguments beyond the end", C(TYPE_PACK, .token = 0x4c000405, .offset = end - 8, .bytes = 128),
         MPI_ERR_BUFFER},
    };
    for (size_t i = 0; i < sizeof self / sizeof *self; i++)
        play(&self[i], &seq);
    head.nodes = UINT32_MAX; /* more nodes than the bytes hold */
    memcpy(def, &head, sizeof head);
    play(&(struct hostile){"TYPE_DEFINE of 2^32-1 nodes", C(TYPE_DEFINE, .token = derived, .offset = at, .bytes = one), MPI_ERR_ARG}, &seq);
    head.nodes = 1, words[0] = -1, words[3] = 0; /* vector(-1, 1, 2, itself) */
    memcpy(def, &head, sizeof head);
    memcpy(def + sizeof head, &node, sizeof node);
    memcpy(def + sizeof head + sizeof node, words, sizeof words);
    play(&(struct hostile){"TYPE_DEFINE of a vector of -1", C(TYPE_DEFINE, .token = derived, .offset = at, .bytes = one), MPI_ERR_ARG}, &seq);
    node = (struct mpcr_type_node){.kind = MPCR_TYPE_NAMED, .named = 0x4c0000ffu};
    memcpy(def, &head, sizeof head); /* a refusal's message went there */
    memcpy(def + sizeof head, &node, sizeof node);
    play(&(struct hostile){"TYPE_DEFINE of an unknown predefined type", C(TYPE_DEFINE, .token = derived, .offset = at, .bytes = sizeof head + sizeof node), MPI_ERR_TYPE}, &seq);
    /* MPI_INT, 4 elements from 8 bytes of data; then a count of -1 */
    struct mpcr_type_pack p = {.data = at + 256, .data_bytes = 8, .count = 4, .out = at + 512, .out_bytes = 16};
    memcpy(def, &p, sizeof p);
    play(&(struct hostile){"TYPE_PACK of more than the data", C(TYPE_PACK, .token = 0x4c000405, .offset = at, .bytes = sizeof p), MPI_ERR_ARG}, &seq);
    p.count = -1;
    memcpy(def, &p, sizeof p);
    play(&(struct hostile){"TYPE_PACK of -1 elements", C(TYPE_PACK, .token = 0x4c000405, .offset = at, .bytes = sizeof p), MPI_ERR_ARG}, &seq);

    /* Back to the library's view: a harmless call (GROW to no more than
     * there is) under the sequence number the library last used, so that
     * its next call (lib_seq + 1) is new to the proxy. */
    fill(&C(GROW, .bytes = 0));
    if (publish(lib_seq)->rc != MPI_SUCCESS) {
        printf("rank %d: a harmless GROW failed\n", rank);
        failures++;
    }
    printf("rank %d: %d hostile calls, %d wrong answers\n", rank, cases, failures);

    /* The proxy still serves the program. */
    int value = rank == 0 ? 42 : -1, sum = 0;
    if (rank == 0) MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank <= 1 && value != 42) {
        printf("rank %d: received %d, expected 42\n", rank, value);
        failures++;
    }
    printf("rank %d: after them: message %s, allreduce %d\n", rank, value == 42 ? "ok" : "WRONG",
           sum);
    MPI_Finalize();
    return failures ? 1 : 0;
}
