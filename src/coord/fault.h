/* Fault injection for tests, in CRIU's manner: one environment variable,
 * MPCR_COORD_FAULT, names one point of a checkpoint at which the job's
 * coordinator ends abruptly, as if it had been killed there. Tests use it
 * to check, deterministically, that proxies and programs outlive a
 * coordinator that dies mid-checkpoint (tests/ckpt/coord_lost.sh). */
#ifndef MPCR_COORD_FAULT_H
#define MPCR_COORD_FAULT_H

/* X(enum suffix, name in MPCR_COORD_FAULT, where it strikes) */
#define MPCR_FAULT_POINTS(X)                                                                       \
    X(QUIESCE, "quiesce", "right after every proxy was told quiesce K")                            \
    X(IMAGE, "image", "right after every proxy was told image K (programs write images)")          \
    X(SNAPSHOT, "snapshot", "at the first snapshot K (a forked writer writes, the rank runs)")     \
    X(REPORT, "report", "at the first image report (its engine waits for the answer)")

enum mpcr_fault {
    MPCR_FAULT_NONE,
#define MPCR_FAULT_ENUM(id, name, where) MPCR_FAULT_##id,
    MPCR_FAULT_POINTS(MPCR_FAULT_ENUM)
#undef MPCR_FAULT_ENUM
};

/* The status the coordinator ends with at an injected fault. */
#define MPCR_FAULT_STATUS 86

/* Ends the process at once (_exit, no clean-up: its sockets simply close)
 * when MPCR_COORD_FAULT names `point`; returns otherwise. */
void mpcr_fault_point(enum mpcr_fault point);

#endif
