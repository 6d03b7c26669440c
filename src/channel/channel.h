/* The channel between mpcr's passive MPI library (in the application) and
 * mpcr-proxy (which holds the real MPI library).
 *
 * One memfd, created by the library and handed to the proxy over a unix
 * socket at start-up, mapped MAP_SHARED by both:
 *
 *   [0, MPCR_CHAN_CONTROL)   control page: the call line (written by the
 *                            library), the reply line (written by the proxy)
 *   [MPCR_CHAN_CONTROL, ...) staging area: message data and bulky arguments,
 *                            addressed by offsets; the library allocates in
 *                            it and asks the proxy to extend the memfd
 *                            (GROW) when it needs more. The library keeps
 *                            no descriptor of the memfd: a checkpoint of
 *                            the application must find none.
 *
 * A call is one cache line each way: the library fills the call line and
 * publishes it by bumping call.seq; the proxy answers in the reply line and
 * bumps reply.seq to the same value. Each side spins a short while, then
 * sleeps on a futex; the other side wakes it only when its *_sleeping flag
 * says so, so the fast path makes no system call.
 *
 * Nothing in here is implementation-specific: handles are mpcr's virtual
 * ids, errors are MPI error classes, data is packed bytes. An image taken
 * under one proxy can therefore continue under another. The channel memory
 * is saved in the program's image (a call in progress is in it); a restarted
 * library copies it into a new memfd for the new proxy.
 * See docs/channel.md. */
#ifndef MPCR_CHANNEL_H
#define MPCR_CHANNEL_H

#include <sched.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include <stdatomic.h>
#include <stdint.h>

#include "clock.h" /* mpcr_now_ns */

#define MPCR_CHAN_MAGIC   0x7263706du /* "mpcr" */
#define MPCR_CHAN_VERSION 2
#define MPCR_CHAN_CONTROL 4096u
#define MPCR_CACHE_LINE   64
#define MPCR_PAGE_SIZE    4096u

/* Offsets from MPCR_SHARED_BASE to MPCR_SHARED_END name shared buffers:
 * memfds mapped both over a buffer of the program and by the proxy, one
 * range each, so that large messages move without a copy (SHARE; docs/
 * pt2pt.md, "Large messages without copies"). The staging area stays
 * below MPCR_SHARED_BASE. */
#define MPCR_SHARED_BASE (128ull << 30)
#define MPCR_SHARED_END  (255ull << 30)
#define MPCR_SHARED_MAX  64u /* ranges alive at once */
/* After a restart the library hands each shared range's new memfd to the
 * new proxy over the set-up socket, with this message, then closes it. */
struct mpcr_shared_handover {
    uint64_t offset, length;
};

/* The largest tag a job may use (its MPI_TAG_UB, as the proxy answers INIT
 * and checks every call): the least of the MPIs it may be restarted on
 * (Debian's MPICH 4.0: 2^28 - 1; Open MPI 4.1: 2^31 - 1), not the proxy's
 * own: a program that took its tags from Open MPI's would have them refused
 * by MPICH's after a restart (PETSc counts its tags down from MPI_TAG_UB). */
#define MPCR_TAG_UB_PORTABLE 0x0fffffff

/* A communicator id with this bit set names the communicator's collective
 * context: the same group, but messages that never match the program's own
 * (the library builds collectives from point-to-point messages there). */
#define MPCR_COLL_CONTEXT 0x80000000u
/* Communicator ids are below this: 0 and 1 the predefined ones, then 2 +
 * the slot of the library's handle (src/lib/runtime/handle.h: 20 bits). The
 * proxy refuses others (a damaged state file would have it make a table of
 * gigabytes). */
#define MPCR_COMM_ID_END (2u + (1u << 20))

/* The library's first message on the set-up socket, with the memfd: at
 * start-up staging_size is 0; after a restart it is the size of the staging
 * area the restored program already has mapped. */
struct mpcr_hello {
    uint32_t magic, version;
    uint64_t staging_size;
};
/* The hello's version when the program's guard (src/guard) refuses it, an
 * MPI mpcr cannot stand in for loaded: sent without a descriptor; the
 * proxy ends the job (docs/abi-check.md). */
#define MPCR_HELLO_REFUSED 0x52454655u /* "REFU" */

/* A proxy that restarts a program from its image leaves the set-up socket at
 * this descriptor for the library's `restarted` hook (the restored
 * environment is the old one, so no variable can say where it is). */
#define MPCR_RESTART_FD 1000

/* Environment variable through which the proxy tells the application which
 * inherited descriptor is its end of the set-up socket. */
#define MPCR_ENV_CHANNEL_FD "MPCR_CHANNEL_FD"
/* The program's own LD_LIBRARY_PATH, before the proxy put mpcr's library
 * first; the library restores it once connected. */
#define MPCR_ENV_SAVED_LIBRARY_PATH "MPCR_SAVED_LD_LIBRARY_PATH"
/* The same for LD_AUDIT, where the proxy puts mpcr's guard (src/guard). */
#define MPCR_ENV_SAVED_AUDIT "MPCR_SAVED_LD_AUDIT"

/* What the fields of the call line mean for an operation, as data: each
 * operation below lists the arguments it reads, and the proxy checks
 * exactly those before it serves the call (docs/channel.md, "Validation").
 * A field an operation does not list is ignored. */
enum mpcr_arg {
    MPCR_ARG_COMM = 1u << 0,         /* comm: a live communicator or its collective context */
    MPCR_ARG_PROGRAM_COMM = 1u << 1, /* comm: a live communicator, not a collective context */
    MPCR_ARG_DEST = 1u << 2,         /* peer: a rank of comm (MPI_PROC_NULL never travels) */
    MPCR_ARG_SOURCE = 1u << 3,       /* peer: a rank of comm or MPI_ANY_SOURCE */
    MPCR_ARG_COLOR = 1u << 4,        /* peer: a split's color, >= 0 or MPI_UNDEFINED */
    MPCR_ARG_TAG = 1u << 5,          /* tag: 0..MPI_TAG_UB */
    MPCR_ARG_ANY_TAG = 1u << 6,      /* tag: 0..MPI_TAG_UB or MPI_ANY_TAG */
    MPCR_ARG_DATA = 1u << 7,         /* [offset, offset + bytes) in the staging area */
    MPCR_ARG_INIT_OUT = 1u << 8,     /* [offset, offset + INIT's two strings) in staging */
    MPCR_ARG_TOKEN = 1u << 9,        /* token: a live request */
    MPCR_ARG_NEW_COMM = 1u << 10,    /* token: a free id for a new communicator */
    MPCR_ARG_COMPLETE = 1u << 11,    /* tag: mode, peer: count, offset: tokens and results */
    MPCR_ARG_BATCH = 1u << 12,       /* peer: count (1..MPCR_BATCH_MAX), offset: operations */
    MPCR_ARG_NEW_MESSAGE = 1u << 13, /* token: a free id (1..2^20) for a matched message */
    MPCR_ARG_MESSAGE = 1u << 14,     /* token: the id of a message matched and not received */
    MPCR_ARG_POLL = 1u << 15,        /* poll: any value (blocking creations, a yielding COMPLETE) */
    MPCR_ARG_ANY_INT = 0,            /* peer or tag: any value (ABORT's code, a split's key) */
};
#define MPCR_ARGS_SEND  (MPCR_ARG_COMM | MPCR_ARG_DEST | MPCR_ARG_TAG | MPCR_ARG_DATA)
#define MPCR_ARGS_RECV  (MPCR_ARG_COMM | MPCR_ARG_SOURCE | MPCR_ARG_ANY_TAG | MPCR_ARG_DATA)
#define MPCR_ARGS_PROBE (MPCR_ARG_COMM | MPCR_ARG_SOURCE | MPCR_ARG_ANY_TAG)

/* The operations, described once: X(NAME, name, arguments read) with what
 * the reply carries. */
#define MPCR_OPS(X)                                                                               \
    /* -> value: rank, source: size, tag: tag_ub, bytes: spin ns; name, version at offset */     \
    X(INIT, init, MPCR_ARG_INIT_OUT)                                                              \
    X(FINALIZE, finalize, 0)                 /* the real MPI_Finalize */                          \
    /* tag: the error code; peer: MPCR_ABORT_BY_MPCR when mpcr ends the job (the library has   \
       said why), else 0 (the program called MPI_Abort); never answered */                      \
    X(ABORT, abort, MPCR_ARG_ANY_INT)                                                             \
    X(SEND, send, MPCR_ARGS_SEND | MPCR_ARG_POLL)                                                 \
    X(SSEND, ssend, MPCR_ARGS_SEND | MPCR_ARG_POLL) /* synchronous */                             \
    X(ISEND, isend, MPCR_ARGS_SEND)          /* -> token */                                       \
    X(RECV, recv, MPCR_ARGS_RECV | MPCR_ARG_POLL) /* bytes: capacity -> status */                 \
    X(IRECV, irecv, MPCR_ARGS_RECV)          /* -> token */                                       \
    X(PROBE, probe, MPCR_ARGS_PROBE | MPCR_ARG_POLL) /* -> status */                              \
    X(IPROBE, iprobe, MPCR_ARGS_PROBE)       /* -> flag, status */                                \
    X(WAIT, wait, MPCR_ARG_TOKEN)            /* -> status */                                      \
    X(TEST, test, MPCR_ARG_TOKEN)            /* -> flag, status */                                \
    X(GROW, grow, 0)                         /* bytes: the new staging size (any: the proxy     \
                                                answers MPI_ERR_NO_MEM when it cannot map it) */  \
    X(COMPLETE, complete, MPCR_ARG_COMPLETE | MPCR_ARG_POLL) /* -> value */                       \
    /* token: the new communicator's id (chosen by the library) */                               \
    X(COMM_DUP, comm_dup, MPCR_ARG_PROGRAM_COMM | MPCR_ARG_NEW_COMM | MPCR_ARG_POLL)              \
    /* tag: key (any) -> flag: member, value: rank, source: size; the members' world ranks    \
       (int32 each) written at offset (bytes: room for the parent's size) */                     \
    X(COMM_SPLIT, comm_split,                                                                     \
      MPCR_ARG_PROGRAM_COMM | MPCR_ARG_COLOR | MPCR_ARG_NEW_COMM | MPCR_ARG_DATA | MPCR_ARG_POLL)  \
    X(COMM_FREE, comm_free, MPCR_ARG_PROGRAM_COMM)                                                \
    /* a pending receive not matched yet is cancelled and forgotten (-> flag 1); else the     \
       request stays, to be waited for (-> flag 0): src/proxy/serve_p2p.c */                      \
    X(CANCEL, cancel, MPCR_ARG_TOKEN)                                                             \
    X(BATCH, batch, MPCR_ARG_BATCH)          /* -> each operation's result */                     \
    X(ISSEND, issend, MPCR_ARGS_SEND)        /* synchronous -> token */                           \
    /* matched probes: the message is received at once and kept, under the id in token,        \
       until MRECV (docs/pt2pt.md) -> (flag,) status */                                           \
    X(MPROBE, mprobe, MPCR_ARGS_PROBE | MPCR_ARG_NEW_MESSAGE)                                     \
    X(IMPROBE, improbe, MPCR_ARGS_PROBE | MPCR_ARG_NEW_MESSAGE)                                   \
    X(MRECV, mrecv, MPCR_ARG_MESSAGE | MPCR_ARG_DATA) /* bytes: capacity -> status */           \
    /* as COMM_SPLIT; peer: the split type (MPICH's MPI_COMM_TYPE_SHARED or MPI_UNDEFINED) */    \
    X(COMM_SPLIT_TYPE, comm_split_type,                                                           \
      MPCR_ARG_PROGRAM_COMM | MPCR_ARG_NEW_COMM | MPCR_ARG_DATA | MPCR_ARG_POLL)                   \
    /* at offset: the group as ranks of comm (int32 each; bytes / 4 of them, this rank among     \
       them); collective over the group only */                                                  \
    X(COMM_CREATE_GROUP, comm_create_group,                                                       \
      MPCR_ARG_PROGRAM_COMM | MPCR_ARG_TAG | MPCR_ARG_NEW_COMM | MPCR_ARG_DATA | MPCR_ARG_POLL)   \
    /* as BATCH, but each operation started as ISEND/ISSEND/IRECV would be and the call        \
       answered at once: each operation's token (0: not started, rc says why) */                \
    X(IBATCH, ibatch, MPCR_ARG_BATCH)                                                             \
    /* as COMM_DUP, answered at once -> token: the request, completed once the communicator is   \
       made (src/proxy/idup.h) */                                                                \
    X(COMM_IDUP, comm_idup, MPCR_ARG_PROGRAM_COMM | MPCR_ARG_NEW_COMM)                            \
    /* bytes: a length in whole pages -> value: the proxy's descriptor of a new memfd that long  \
       (the library opens it as /proc/<proxy>/fd/<value>), bytes: its offset (src/proxy/shared.c) */ \
    X(SHARE, share, 0)                                                                            \
    X(UNSHARE, unshare, 0) /* offset: a range SHARE made; the proxy forgets it */              \
    /* Real datatypes (docs/datatypes.md, "Real datatypes in the proxy"; src/proxy/serve/real_types.c): \
       token: the library's handle of a derived datatype; at offset, bytes: its definition      \
       (struct mpcr_type_def) -> rc; refused: a message at offset, value: the node refused */    \
    X(TYPE_DEFINE, type_define, MPCR_ARG_DATA)                                                    \
    X(TYPE_FORGET, type_forget, 0) /* token: a handle defined -> flag: it was; its type freed */  \
    /* token: a type id (mpcr_type_id); at offset: struct mpcr_type_pack -> its results there;   \
       MPCR_TYPE_UNKNOWN: this proxy has no definition of that handle (a restart: define it) */  \
    X(TYPE_PACK, type_pack, MPCR_ARG_DATA)                                                        \
    /* MPI-IO (docs/mpi-io.md; src/proxy/serve/serve_file.c): at offset, bytes: struct           \
       mpcr_file_call and what its offsets name -> rc; its results written back there */         \
    X(FILE, file, MPCR_ARG_DATA)                                                                  \
    /* One-sided (docs/one-sided.md; src/proxy/serve/serve_win.c): at offset, bytes: struct     \
       mpcr_win_call and the data it names -> rc; its results written back there */             \
    X(WIN, win, MPCR_ARG_DATA)
/* ---- real datatypes (TYPE_DEFINE, TYPE_FORGET, TYPE_PACK) ----
 *
 * A datatype is named on the channel by its MPICH ABI handle, mpcr's ABI:
 * a predefined type by its value (0x4c00xxxx, the MINLOC pairs 0x8c00000x),
 * a derived one by the library's handle (slot and generation: one object
 * for the handle's whole life). The proxy knows a derived one once the
 * library has sent its definition (TYPE_DEFINE), until TYPE_FORGET; a new
 * proxy (after a restart) knows none. */
#define MPCR_TYPE_UNKNOWN (-1) /* TYPE_PACK's reply value: a handle not defined here */

/* A definition: `nodes` nodes one after the other, each a constructor whose
 * old types are earlier nodes; the last is the type. Everything in 64-bit
 * words after the header. */
struct mpcr_type_def {
    uint32_t nodes, pad;
};
/* What made a node: MPI's constructors, numbered so (neutral); the F90
 * types travel as the sized predefined type they are. */
enum mpcr_type_kind {
    MPCR_TYPE_NAMED,          /* named: a predefined type's id */
    MPCR_TYPE_DUP,            /* types: old */
    MPCR_TYPE_CONTIGUOUS,     /* ints: count; types: old */
    MPCR_TYPE_VECTOR,         /* ints: count, blocklength, stride (elements) */
    MPCR_TYPE_HVECTOR,        /* ints: count, blocklength; addrs: stride (bytes) */
    MPCR_TYPE_INDEXED,        /* ints: count, blocklengths[count], displacements[count] */
    MPCR_TYPE_HINDEXED,       /* ints: count, blocklengths[count]; addrs: displacements[count] */
    MPCR_TYPE_INDEXED_BLOCK,  /* ints: count, blocklength, displacements[count] */
    MPCR_TYPE_HINDEXED_BLOCK, /* ints: count, blocklength; addrs: displacements[count] */
    MPCR_TYPE_STRUCT,         /* ints: count, blocklengths[count]; addrs: displ.; types[count] */
    MPCR_TYPE_RESIZED,        /* addrs: lb, extent */
    MPCR_TYPE_SUBARRAY,       /* ints: ndims, sizes, subsizes, starts, order (MPICH's values) */
    MPCR_TYPE_DARRAY,         /* ints: size, rank, ndims, gsizes, distribs, dargs, psizes, order */
    MPCR_TYPE_KINDS
};
/* One node; after it nints, then naddrs int64_t, then ntypes uint64_t
 * (indexes of earlier nodes), the arguments of MPI_Type_get_contents in
 * its order. lb and extent are the library's: where the real MPI bounds
 * the type otherwise (a struct's padding, markers: docs/datatypes.md), the
 * proxy resizes it to them, so that the real type is the library's type
 * map with the library's extent at every level. */
struct mpcr_type_node {
    uint32_t kind;  /* enum mpcr_type_kind */
    uint32_t named; /* MPCR_TYPE_NAMED: the predefined type's id */
    uint32_t nints, naddrs, ntypes, pad;
    int64_t lb, extent;
};

/* TYPE_PACK: count elements of the type at `data + origin` in the staging
 * area (the data copied there, [data, data + data_bytes) covering them)
 * packed by the real MPI_Pack into [out, out + out_bytes); the proxy
 * writes the bytes packed and its real type's bounds back. */
struct mpcr_type_pack {
    uint64_t data, data_bytes;
    int64_t origin, count;
    uint64_t out, out_bytes;
    /* Written by the proxy: */
    uint64_t packed;
    int64_t size, lb, extent, true_lb, true_extent;
};

/* ---- files (FILE; docs/mpi-io.md) ----
 *
 * Every open file is opened by the proxy on MPI_COMM_SELF, so that no real
 * MPI-IO call waits for another rank: what is collective about a file
 * (the agreement at open, the barrier at close) is done by the library
 * with point-to-point messages, which a checkpoint's drain covers. A file
 * is named by the library's id (its handle's slot). Offsets into the
 * staging area (or a shared buffer for a read's or write's data) name the
 * bulky arguments; strings are NUL-terminated inside their range. */
enum mpcr_file_op {
    MPCR_FILE_OPEN,       /* data: the path; info: hints; amode, comm, flag (1: the leader), tag */
    MPCR_FILE_CLOSE,      /* forgets the file (the leader deletes it if DELETE_ON_CLOSE) */
    MPCR_FILE_DELETE,     /* data: the path; info: hints (no file id) */
    MPCR_FILE_SET_VIEW,   /* at: disp; data: etype's, aux: filetype's definition
                             (struct mpcr_type_def); flag: datarep (0 native, 1 internal,
                             2 external32); info: hints */
    MPCR_FILE_READ,       /* data: the buffer (packed bytes: MPI_BYTE), at the individual */
    MPCR_FILE_WRITE,      /*   pointer -> done, result: the pointer after (etypes); aux: with
                             a view in external32, the memory datatype's definition: the
                             proxy unpacks the bytes into it and the real MPI converts them
                             (so in every access form, the shared ones too) */
    MPCR_FILE_READ_AT,    /* at: the offset (etypes) -> done */
    MPCR_FILE_WRITE_AT,
    MPCR_FILE_SEEK,       /* at: offset, flag: whence (mpcr's ABI) -> result: the pointer */
    MPCR_FILE_POSITION,   /* -> result: the individual pointer (etypes) */
    MPCR_FILE_BYTE_OFFSET,/* at: an offset (etypes) -> result: its absolute byte offset */
    MPCR_FILE_GET_SIZE,   /* -> result: bytes */
    MPCR_FILE_SET_SIZE,   /* at: bytes */
    MPCR_FILE_PREALLOCATE,/* at: bytes */
    MPCR_FILE_SYNC,
    MPCR_FILE_SET_ATOMICITY, /* flag */
    MPCR_FILE_SET_INFO,   /* info: hints */
    MPCR_FILE_GET_INFO,   /* info: room -> the hints in use written there, result: bytes */
    /* The shared file pointer (etypes): a small file beside the data file,
     * named by the open's tag, updated under an fcntl lock by every rank's
     * proxy (serve_file.c) */
    MPCR_FILE_READ_SHARED,  /* data: as READ; the pointer advanced by the request first */
    MPCR_FILE_WRITE_SHARED, /* -> done, result: where the access began (etypes) */
    MPCR_FILE_SHARED_ADD,   /* at: etypes -> result: the pointer before (write_ordered's leader) */
    MPCR_FILE_SEEK_SHARED,  /* at: offset, flag: whence -> result: the pointer */
    MPCR_FILE_GET_SHARED,   /* -> result: the pointer */
    MPCR_FILE_TYPE_EXTENT,  /* aux: a datatype's definition -> result: its extent in the view's
                               representation (MPI_File_get_type_extent, external32 views) */
    MPCR_FILE_OPS
};
/* Hints travel as "key\0value\0key\0value\0...". */
struct mpcr_file_call {
    uint32_t op;   /* enum mpcr_file_op */
    uint32_t file; /* the file's id: its handle's slot */
    int32_t amode; /* OPEN: the program's access mode (mpcr's ABI) */
    int32_t flag;  /* see the operations */
    uint32_t comm; /* OPEN: the communicator's id (kept in the proxy's record) */
    uint32_t pad;
    int64_t at;
    uint64_t data, bytes;
    uint64_t aux, aux_bytes;
    uint64_t info, info_bytes;
    uint64_t tag; /* OPEN: the same on every rank: names the shared pointer's file */
    /* Written by the proxy: */
    uint64_t done;  /* bytes read or written */
    int64_t result; /* see the operations */
};

/* ---- one-sided (WIN; docs/one-sided.md) ----
 *
 * Each proxy holds one real window, dynamic, over MPI_COMM_WORLD, locked
 * (MPI_Win_lock_all) for its whole life; every window of the program is a
 * memfd each member's proxy maps in a reservation of its own and attaches
 * to it. A window's memory is named by its offset in that reservation
 * (the same in the old and the new proxy of a restart); a target's byte is
 * named by the target's world rank and an offset there. Every operation is
 * complete at the target when the call is answered: nothing one-sided is
 * ever in flight while the program is outside a call. */
#define MPCR_WIN_RESERVE (64ull << 30) /* bytes of a proxy's window reservation */
/* A restart's hand-over of a window's memfd (struct mpcr_shared_handover)
 * carries its offset with this bit set (shared buffers' offsets never have it). */
#define MPCR_WIN_HANDOVER (1ull << 62)
/* ... and of memory a dynamic window attached, its address with this bit. */
#define MPCR_WIN_ATTACHED_HANDOVER (1ull << 61)
enum mpcr_win_op {
    MPCR_WIN_MEMORY,  /* bytes: a length in whole pages; win: the window's id -> fd: the proxy's
                         descriptor of a new memfd (opened as /proc/<proxy>/fd/<fd>), offset */
    MPCR_WIN_RELEASE, /* offset: a window's memory: detached, forgotten */
    MPCR_WIN_PUT,     /* data, bytes: the origin's packed bytes; target, at, ttype, tcount */
    MPCR_WIN_GET,     /*   the bytes read into aux */
    MPCR_WIN_ACC,     /*   and rop, the op (mpcr's ABI: MPICH's handle) */
    MPCR_WIN_GET_ACC, /*   the same, the target's bytes before it into aux */
    MPCR_WIN_FETCH_OP, /* one element of ttype (predefined): data, rop -> aux */
    MPCR_WIN_CAS,     /* data: the origin's element, then the compared one -> aux */
    MPCR_WIN_LOCK,    /* target, at: a lock word; flag 1 exclusive -> result 1: taken */
    MPCR_WIN_UNLOCK,  /* target, at, flag */
    MPCR_WIN_ATTACH,  /* at: a page of the program's, bytes: whole pages -> fd: a new memfd the
                         proxy mapped at that same address and attached (the program maps it
                         over its pages: a dynamic window's displacements are addresses) */
    MPCR_WIN_DETACH,  /* at: memory ATTACH gave: detached, unmapped here, forgotten */
    MPCR_WIN_MEMORY_OF, /* win, bytes; target: another proxy's pid, flag: its descriptor of a
                           window's memfd of that length (MPI_Win_allocate_shared: made by the
                           node's first member) -> offset: mapped here too and attached */
    MPCR_WIN_OPS
};
struct mpcr_win_call {
    uint32_t op;     /* enum mpcr_win_op */
    uint32_t win;    /* the window's id: its handle's slot */
    int32_t target;  /* a world rank */
    uint32_t ttype;  /* the target datatype's id (real datatypes, above) */
    uint32_t rop;    /* ACC: the op */
    int32_t flag;
    uint64_t at;     /* the target's offset (its window's offset + the displacement in bytes) */
    uint64_t tcount; /* target elements */
    uint64_t data, bytes; /* the origin's bytes (MEMORY: bytes is the length) */
    uint64_t aux, aux_bytes; /* room for what is read */
    /* Written by the proxy: */
    int64_t result;
    uint64_t offset;
    int32_t fd;
    int32_t unknown_type; /* 1: the proxy has no definition of ttype (a restart: define it) */
    /* Written by the program: */
    int32_t absolute; /* 1: at is an address at the target (a dynamic window), not an offset */
    int32_t pad;
};

/* COMPLETE: several requests at once, as MPI_Waitany/Testany/Waitsome/
 * Testsome/Testall do. The staging area holds `peer` tokens (0: no request),
 * then, 8-byte aligned, one result per token, written by the proxy. The
 * reply's value is the index completed (ANY; -1: none) or the number
 * completed (SOME, ALL). WAITALL answers once every request has completed:
 * MPI_Waitall costs one round trip, not one per request. */
enum mpcr_complete_mode {
    MPCR_WAITANY,
    MPCR_TESTANY,
    MPCR_WAITSOME,
    MPCR_TESTSOME,
    MPCR_TESTALL,
    MPCR_WAITALL, /* the last: the proxy checks modes against it */
};
struct mpcr_completion {
    int32_t done; /* 1: this request completed */
    int32_t rc, source, tag;
    uint64_t bytes;
};
/* BATCH: several sends and receives in one round trip (MPI_Sendrecv, a
 * round of a collective). The proxy posts every receive, then every send,
 * and answers once all have completed, each with its own result. A
 * checkpoint may interrupt it: what completed is marked `done` in the
 * staging area (so in the program's image), and when the call is served
 * again (after the checkpoint, or by a new proxy) only the rest is done. */
struct mpcr_batch_op {
    uint32_t op;   /* MPCR_OP_SEND, MPCR_OP_SSEND or MPCR_OP_RECV */
    uint32_t comm; /* as in the call line */
    int32_t peer, tag;
    uint64_t offset, bytes; /* data, or the receive's capacity */
    /* Written by the proxy: */
    uint32_t done; /* 1 once it completed */
    int32_t rc, source, rtag;
    uint64_t rbytes;
    uint32_t token; /* IBATCH: the request started for it */
    uint32_t pad;
};
_Static_assert(sizeof(struct mpcr_batch_op) == 64, "a batch operation is one cache line");
#define MPCR_BATCH_MAX 64u

static inline uint64_t mpcr_completion_offset(uint64_t tokens_offset, uint32_t n)
{
    return tokens_offset + ((uint64_t)n * 4 + 7) / 8 * 8;
}

/* INIT's reply in the staging area: the processor name, then the proxy's
 * MPI library version, at fixed offsets (mpcr's ABI, MPICH's sizes). */
/* ABORT's peer when the job ends because mpcr ends it (an unsupported
 * function, a fatal error), not because the program called MPI_Abort. */
#define MPCR_ABORT_BY_MPCR 1

#define MPCR_INIT_NAME_MAX    128
#define MPCR_INIT_VERSION_MAX 256

enum mpcr_op {
#define MPCR_OP_ENUM(name, fn, args) MPCR_OP_##name,
    MPCR_OPS(MPCR_OP_ENUM)
#undef MPCR_OP_ENUM
        MPCR_OP_COUNT
};

/* Written by the library, read by the proxy. */
struct mpcr_call {
    alignas(MPCR_CACHE_LINE) _Atomic uint32_t seq; /* published last */
    uint32_t op;
    uint32_t comm;                 /* virtual communicator id */
    int32_t peer;                  /* rank in comm, or MPI_ANY_SOURCE */
    int32_t tag;                   /* or MPI_ANY_TAG; the error code for ABORT */
    uint32_t token;                /* proxy-side request slot, for WAIT/TEST */
    uint64_t offset;               /* of the data in the staging area */
    uint64_t bytes;                /* data length, or receive capacity */
    _Atomic uint32_t app_sleeping; /* library is (about to be) asleep on reply.seq */
    uint32_t poll; /* blocking creations: 1 = answer at once, made or not (creation.h);
                      COMPLETE waiting: 1 = answer, nothing completed, while another thread
                      of the program waits for the library (lock_wanted); SEND, SSEND,
                      RECV: 1 = answer `pending` with a request's token then, PROBE:
                      `pending` (serve.c);
                      0 in images older than the field, which is how they were served */
    /* Posts the program queued (src/lib/runtime/post_queue.c), carried by this call:
     * pre_count operations (struct mpcr_batch_op) at pre_offset in the
     * staging area, started as IBATCH starts them before the call is served
     * (each marked `done` with its token, so a call served again after a
     * checkpoint starts none twice); 0: none (and in older images). */
    uint32_t pre_count;
    uint64_t pre_offset;
};
/* A request among the posts a call carries, named before the proxy has
 * given it a token (MPI_Wait, MPI_Waitall... of a request whose start is
 * queued): this bit and the post's index among them, in the call line's
 * token (WAIT, TEST) or in COMPLETE's tokens; the proxy puts the token in
 * its place once the posts are started. Real tokens never have the bit. */
#define MPCR_TOKEN_CARRIED 0x80000000u

/* Written by the proxy, read by the library. */
struct mpcr_reply {
    alignas(MPCR_CACHE_LINE) _Atomic uint32_t seq; /* published last */
    int32_t rc;                                    /* MPI error class (MPI_SUCCESS = 0) */
    int32_t source;                                /* status of a receive or probe */
    int32_t tag;
    uint64_t bytes;
    int32_t flag;                    /* IPROBE, TEST: 1 when found / complete */
    int32_t value;                   /* small results (INIT: rank) */
    uint32_t token;                  /* ISEND/IRECV: request slot */
    _Atomic uint32_t proxy_sleeping; /* proxy is (about to be) asleep on doorbell */
    uint32_t pending;                /* a polled creation not made yet: ask again */
};

struct mpcr_chan {
    uint32_t magic;
    uint32_t version;
    _Atomic uint32_t doorbell; /* bumped to wake a sleeping proxy */
    struct mpcr_call call;
    struct mpcr_reply reply;
    /* MPI_THREAD_MULTIPLE: threads of the program waiting for the library's
     * lock (src/lib/runtime/threads.c); a waiting COMPLETE with poll set returns
     * while it is not 0, so that the thread inside lets the lock go. */
    alignas(MPCR_CACHE_LINE) _Atomic uint32_t lock_wanted;
    /* The library's progress helper (src/lib/runtime/progress.c): helper_waits is
     * 1 while it sleeps with collectives in flight; the proxy, when its
     * idle progress completes a request meanwhile, bumps progress_kick and
     * wakes it there (src/proxy/main.c wait_call). */
    alignas(MPCR_CACHE_LINE) _Atomic uint32_t helper_waits;
    _Atomic uint32_t progress_kick;
    /* Shared buffers (src/lib/runtime/shared_buffers.c): set by the proxy about once
     * a second while it maps any; the library's next call clears it and
     * drops the shares whose buffers the program has given back (a freed
     * buffer's pages would otherwise stay in the memfd). Read at every
     * call: a line of its own, written that rarely. */
    alignas(MPCR_CACHE_LINE) _Atomic uint32_t sweep_shares;
    /* The job's profile (src/lib/runtime/profile.h): set by the library when
     * it is on; the proxy then adds the time it spends serving each call
     * (the rest of a round trip is the hand-off's), in the time-stamp
     * counter's ticks (clock.h), which the library converts: the same
     * counter on one host. A restart folds it into the library's ns and
     * sets it to 0 before the new proxy counts. */
    alignas(MPCR_CACHE_LINE) _Atomic uint32_t profile;
    _Atomic uint64_t proxy_serve_ticks;
};

_Static_assert(sizeof(struct mpcr_call) == MPCR_CACHE_LINE, "call is one cache line");
_Static_assert(sizeof(struct mpcr_reply) == MPCR_CACHE_LINE, "reply is one cache line");
_Static_assert(sizeof(struct mpcr_chan) <= MPCR_CHAN_CONTROL, "control page");

static inline void *mpcr_staging(struct mpcr_chan *ch, uint64_t offset)
{
    return (char *)ch + MPCR_CHAN_CONTROL + offset;
}

/* Publishing a line: its fields copied in one burst from the writer's
 * private draft (docs/channel.md, "A call"), all but seq (stored after,
 * by the caller) and the 4-byte waiting flag at `flag` that belongs to the
 * line itself (call.app_sleeping, reply.proxy_sleeping). */
static inline void mpcr_line_fill(void *line, const void *draft, size_t flag, size_t size)
{
    const size_t first = sizeof(uint32_t); /* seq */
    memcpy((char *)line + first, (const char *)draft + first, flag - first);
    memcpy((char *)line + flag + 4, (const char *)draft + flag + 4, size - flag - 4);
}
_Static_assert(offsetof(struct mpcr_call, seq) == 0 && offsetof(struct mpcr_reply, seq) == 0, "seq first");
_Static_assert(sizeof(((struct mpcr_call *)0)->app_sleeping) == 4 &&
                   sizeof(((struct mpcr_reply *)0)->proxy_sleeping) == 4,
               "4-byte flags");

/* Futex helpers on a shared (not process-private) word; a timeout < 0
 * waits without one. */
int mpcr_futex_wait(_Atomic uint32_t *word, uint32_t expected, long timeout_ms);
int mpcr_futex_wait_us(_Atomic uint32_t *word, uint32_t expected, long timeout_us);
void mpcr_futex_wake(_Atomic uint32_t *word);

/* How long a side spins before it sleeps. Spinning keeps a ping-pong fast
 * when every process has a core of its own; where processes share cores,
 * a spinning side only delays the one it waits for, so the proxy chooses 0
 * there and tells the library (INIT). MPCR_SPIN_NS overrides the choice.
 *
 * After the spin, a side may poll with sched_yield() for mpcr_yield_ns()
 * before it sleeps: on a shared core a yield hands the core to the process
 * waited for without a futex wake-up (docs/channel.md, "A call"). The
 * proxy chooses it (MPCR_YIELD_NS in the program's environment, which the
 * proxy sets when the user has not); mpcr_set_spin_ns reads it. */
uint64_t mpcr_spin_ns(void);
uint64_t mpcr_yield_ns(void);
void mpcr_set_spin_ns(uint64_t ns);
/* Both as given, no environment read: a restarted library takes its new
 * proxy's choice (another placement may need another), which the
 * environment saved in its image does not hold. */
void mpcr_set_wait_ns(uint64_t spin, uint64_t yield);
/* Polls (*word == value) == equal, with sched_yield() between polls, for at
 * most limit_ns; 1 when the condition became true. */
int mpcr_yield_poll(_Atomic uint32_t *word, uint32_t value, int equal, uint64_t limit_ns);

static inline void mpcr_cpu_relax(void)
{
    __builtin_ia32_pause();
}

/* While spinning, a side gives its core away (sched_yield) this often: a
 * spinner that shares its core with the process it waits for (two of them
 * placed on one CPU, or a machine exactly full, every core holding a rank
 * or a proxy, when mpiexec or the kernel needs a moment) would otherwise
 * hold it for its whole spin budget. On a core of its own the yield
 * returns at once (0.1-1 us, a few % of the time spun). Measured with a
 * rank and its proxy spinning on one CPU: a proxied call 112 us without,
 * docs/performance.md "2026-12-04 (night)". */
#define MPCR_SPIN_YIELD_EVERY_NS 5000u

/* Whether a spinner that has polled until `now` owes its core a yield;
 * *next: when the next one is due (0: not yet started, which starts it). */
static inline int mpcr_spin_yield_due(uint64_t now, uint64_t *next)
{
    int due = *next && now >= *next;
    if (!*next || due) *next = now + MPCR_SPIN_YIELD_EVERY_NS;
    return due;
}

/* Spins until (*word == value) == equal, for at most mpcr_spin_ns(), then
 * polls with sched_yield() for at most yield_ns (mpcr_yield_ns(), or 0 where
 * the caller has better things to do than yield; both may be 0).
 * Returns 1 when the condition became true, 0 when time ran out: the caller
 * then sleeps on a futex. */
static inline int mpcr_spin(_Atomic uint32_t *word, uint32_t value, int equal, uint64_t yield_ns)
{
    uint64_t limit = mpcr_spin_ns(), start = 0, yield_at = 0;
    for (unsigned i = 0;; i++) {
        if ((atomic_load_explicit(word, memory_order_acquire) == value) == equal) return 1;
        if (!limit) break;
        mpcr_cpu_relax();
        if ((i & 15) == 15) { /* pause is slow on some CPUs: the clock is read every 16 */
            uint64_t now = mpcr_now_ns();
            if (!start)
                start = now;
            else if (now - start >= limit)
                break;
            if (mpcr_spin_yield_due(now, &yield_at)) sched_yield();
        }
    }
    return yield_ns ? mpcr_yield_poll(word, value, equal, yield_ns) : 0;
}

/* Sends / receives one descriptor with a small fixed message over a unix
 * socket. mpcr_recv_fd: -ECONNRESET when the peer closed it, -EPROTO when
 * the message is not what was expected; a message of the right size that
 * carries no descriptor gives 0 with *fd = -1 (a refusal, MPCR_HELLO_REFUSED). */
int mpcr_send_fd(int sock, int fd, const void *msg, unsigned len);
int mpcr_recv_fd(int sock, int *fd, void *msg, unsigned len);

const char *mpcr_op_name(uint32_t op);

#endif
