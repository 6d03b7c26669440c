/* The coordinator's line protocol, described once (docs/coordinator-protocol.md).
 *
 * Every line that goes to or from a coordinator (src/coord/job.c for an MPI
 * job, src/coord/coord.c for one process) is a row of MPCR_COORD_LINES: its
 * first word, the pattern of its arguments, and who may send it. Both
 * coordinators parse what they receive with mpcr_coord_line_parse against
 * this table, the fuzzers build their lines from it, and the rows the
 * coordinator sends document what the proxy, the engine and `mpcr` read.
 *
 * Argument patterns, words separated by one space:
 *   %u    an unsigned decimal number (digits only)
 *   %w    a word: no space, 1 to MPCR_LINE_WORD - 1 characters
 *   %t    text: the rest of the line, at least one character (last only)
 *   [..]  an optional tail (last only)
 *   other a literal word
 * A line matches a row when the whole of it follows the pattern; where two
 * rows share a word (image ... ok / image ... error) the first that matches
 * wins. */
#ifndef MPCR_COMMON_COORD_PROTOCOL_H
#define MPCR_COMMON_COORD_PROTOCOL_H

#include <limits.h>
#include <stddef.h>

/* Who sends a line (a mask: a row may have several senders). */
enum mpcr_line_from {
    MPCR_FROM_CLIENT = 1, /* `mpcr checkpoint`, `mpcr status`, `mpcr exec` */
    MPCR_FROM_PROXY = 2,  /* a rank's proxy, on its lasting connection */
    MPCR_FROM_ENGINE = 4, /* a program's engine (one connection per report) */
    MPCR_FROM_COORD = 8,  /* the coordinator, to any of them */
};

/* X(NAME, WORD, ARGUMENTS, FROM, MEANING) */
#define MPCR_COORD_LINES(X)                                                                        \
    /* opening any connection (src/coord/conns.c): the job's secret, an engine's credential */     \
    X(SECRET, "secret", "%t", MPCR_FROM_CLIENT | MPCR_FROM_PROXY | MPCR_FROM_ENGINE,               \
      "[S] [rank R TOKEN]: the job's secret S, a rank's credential")                               \
    /* requests of a new connection */                                                             \
    X(CHECKPOINT, "checkpoint", "[exit]", MPCR_FROM_CLIENT, "take a checkpoint (then end: exit)")  \
    X(STATUS, "status", "[detail]", MPCR_FROM_CLIENT, "the job's state (detail: MPI job, JSON)")   \
    X(PING, "ping", "", MPCR_FROM_CLIENT, "is a coordinator there")                                \
    X(HELLO, "proxy", "%u %u %u %u %w", MPCR_FROM_PROXY, "PROTOCOL RANK SIZE PID TOKEN: a rank")   \
    X(SNAPSHOT, "snapshot", "%u %u", MPCR_FROM_ENGINE, "K PID: a forked copy PID writes image K")  \
    X(IMAGE_OK, "image", "%u ok %u [forked %u]", MPCR_FROM_ENGINE,                                 \
      "K ok BYTES [forked MS]: image K written (by a copy; the process stopped MS)")               \
    X(IMAGE_ERROR, "image", "%u error %t", MPCR_FROM_ENGINE, "K error WHY: image K failed")        \
    /* a proxy's lines, after its hello */                                                         \
    X(QUIET, "quiet", "%u %u %u", MPCR_FROM_PROXY, "K SENT RECEIVED: quiesced for checkpoint K")   \
    X(COUNT, "count", "%u %u", MPCR_FROM_PROXY, "K RECEIVED: drained so far")                      \
    X(SIGNALLED, "signalled", "%u", MPCR_FROM_PROXY, "K: its program was asked for image K")       \
    X(RESUMED, "resumed", "%u", MPCR_FROM_PROXY, "K: its rank goes on after checkpoint K")         \
    X(WHERE_AT, "where", "%u %u %t", MPCR_FROM_PROXY, "K R WHAT: what holds rank R from quiet")    \
    X(BUSY, "busy", "%u %t", MPCR_FROM_PROXY, "K WHY: it cannot quiesce now (try again)")          \
    X(FAILED, "failed", "%u %t", MPCR_FROM_PROXY, "K WHY: checkpoint K failed on its rank")        \
    X(FINALIZING, "finalizing", "%u", MPCR_FROM_PROXY, "R: rank R has called MPI_Finalize")        \
    X(SIGNAL, "signal", "%w", MPCR_FROM_PROXY, "checkpoint|exit: it had a signal that asks one")   \
    /* both ways: a proxy's program makes the job's first window; every proxy joins its start */   \
    X(WINDOWS, "windows", "", MPCR_FROM_PROXY | MPCR_FROM_COORD,                                   \
      "the proxies make their real window now (docs/one-sided.md)")                                \
    /* the coordinator's lines: to proxies */                                                      \
    X(QUIESCE, "quiesce", "%u", MPCR_FROM_COORD, "K: stop serving calls, say quiet")               \
    X(IMAGE, "image", "%u [fork]", MPCR_FROM_COORD, "K: save, signal the program (fork: a copy)")  \
    X(RESUME, "resume", "%u", MPCR_FROM_COORD, "K: checkpoint K is complete, go on")               \
    X(WHERE, "where", "%u", MPCR_FROM_COORD, "K: say what holds you from quiet")                   \
    X(EXIT, "exit", "[%u]", MPCR_FROM_COORD, "[K]: end now (to a proxy, and to an engine)")        \
    /* to engines */                                                                               \
    X(CONTINUE, "continue", "", MPCR_FROM_COORD, "the process goes on")                            \
    /* to clients */                                                                               \
    X(PROGRESS, "progress", "%t", MPCR_FROM_COORD, "N/M ranks, MiB, MB/s: images coming in")       \
    X(OK, "ok", "%t", MPCR_FROM_COORD, "DIR/gen-K BYTES MS ...: the checkpoint is complete")       \
    X(ERROR, "error", "%t", MPCR_FROM_COORD, "WHY: refused or failed")                             \
    X(PONG, "pong", "", MPCR_FROM_COORD, "the answer to ping")                                     \
    X(RUNNING, "running", "%t", MPCR_FROM_COORD, "pid P ...: the answer to status")                \
    X(DETAIL, "detail", "%t", MPCR_FROM_COORD, "pid P ...: the answer to status detail")

enum mpcr_line_kind {
#define MPCR_LINE_ENUM(name, word, args, from, meaning) MPCR_LINE_##name,
    MPCR_COORD_LINES(MPCR_LINE_ENUM)
#undef MPCR_LINE_ENUM
        MPCR_LINE_KINDS
};

struct mpcr_line_row {
    const char *word, *args;
    unsigned from; /* enum mpcr_line_from, or'ed */
    const char *meaning;
};
extern const struct mpcr_line_row mpcr_coord_lines[MPCR_LINE_KINDS];

#define MPCR_LINE_MAX  (PATH_MAX + 512) /* the longest line sent (an answer names a directory) */
#define MPCR_LINE_NUMS 4                /* the most %u of a row */
#define MPCR_LINE_WORD 32               /* a %w argument's room, NUL included */

/* A line taken apart: its row, its numbers in order, its %w, its %t. */
struct mpcr_line {
    enum mpcr_line_kind kind;
    int nnum;
    unsigned long long num[MPCR_LINE_NUMS];
    int opt;                   /* the row's optional tail was given */
    char word[MPCR_LINE_WORD]; /* "" without one */
    const char *text;          /* into the line parsed; "" without one */
};

/* Parses line (no newline) as one of the rows a sender in `from` may send.
 * 0 with *m filled, or -EINVAL: no such line (an unknown word, a word that
 * sender may not send, arguments that do not follow the pattern). */
int mpcr_coord_line_parse(const char *line, unsigned from, struct mpcr_line *m);

#endif
