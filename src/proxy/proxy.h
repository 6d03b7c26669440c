/* mpcr-proxy: the process that holds the real MPI library for one rank and
 * serves its application's calls over the channel (serve/). It is never
 * checkpointed, but it keeps some state that must survive one: the record
 * of communicators, creations and duplicates under way, the program's
 * pending requests, messages a drain took out of the network. Each is a
 * resource kind (resources/resource.h, docs/proxy-resources.md), settled
 * and written to the rank's state file at a checkpoint (ckpt/) and rebuilt
 * from it by a new proxy, of either MPI. Everything else here (the map of
 * the library's ids to real handles, calls in progress) is re-created. */
#ifndef MPCR_PROXY_H
#define MPCR_PROXY_H

#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "channel.h"

#include <sys/mman.h>

struct proxy {
    int rank, size;
    pid_t child;             /* the application */
    int finalized;           /* the application called MPI_Finalize */
    int app_connected;       /* the application has reached MPI_Init (its channel is mapped) */
    int restarted;           /* the application is a restored image (--restore): an MPI program */
    int ckpt_exit;           /* a checkpoint with --exit: the application ends now, and so do we */
    uint64_t sent, received; /* messages, for the drain: sum(sent) = sum(received) */
    int memfd;
    struct mpcr_chan *chan; /* at a fixed address inside `reserve` */
    uint64_t staging_size;
    uint32_t last_seq;
    int tag_ub; /* this MPI's MPI_TAG_UB (map_init) */
};
extern struct proxy proxy;

/* The proxy's large address reservations (the staging area, the window
 * reservation: hundreds of GiB) are placed from this address up, far from
 * where the kernel puts a program's heap (just above its executable) and
 * mappings (below its stack): a window's pages are mapped at the program's
 * address in the proxy (docs/one-sided.md), which must be free there. With
 * the kernel's choice a program's large malloc fell inside the proxy's
 * reservations about one run in three. A hint only: the kernel chooses
 * elsewhere if it is taken. */
#define MPCR_PROXY_RESERVE_HINT (16ull << 40)
enum { PROXY_RESERVE_STAGING, PROXY_RESERVE_WINDOWS }; /* a TiB apart */
static inline void *proxy_reserve(uint64_t bytes, int which)
{
    return mmap((void *)(MPCR_PROXY_RESERVE_HINT + ((uint64_t)which << 40)), bytes, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/* Set by the SIGCHLD handler; checked wherever the proxy waits. */
extern volatile sig_atomic_t child_exited;

/* Handles one call; fills the reply except its seq. c is the proxy's own
 * copy of the call line (the program's is not trusted), which serve_call
 * may change: the tokens of the posts it carries go in their places. */
void serve_call(struct mpcr_call *c, struct mpcr_reply *r);

/* Drives real MPI until `req` completes; returns the real error code. Also
 * watches the application: if it ends meanwhile, the proxy ends too. When a
 * checkpoint begins, an `abandonable` wait returns PROXY_ABANDON at once;
 * another one drains while it waits. */
#define PROXY_ABANDON (-1)
int progress_wait(MPI_Request *req, MPI_Status *st, int abandonable);
/* Between two polls of MPI in a blocking call: with MPCR_PROGRESS_YIELD=1
 * a sched_yield(), so that a process of this node waiting for the core runs
 * at once; where it spins, one every 5 us; where cores are shared, none
 * (docs/channel.md, "A call"). */
extern int progress_yield;
int creation_running(void); /* creation.h */
static inline void progress_pause(void)
{
    /* a creation's real call in a thread of its own waits for MPICH's lock,
     * which a loop taking it back at once starves (creation.h) */
    if (progress_yield || creation_running()) {
        sched_yield();
        return;
    }
    /* Spinning (a core each, or so it was decided): the core given away
     * now and then, as the channel's spin does (channel.h,
     * MPCR_SPIN_YIELD_EVERY_NS): a proxy waiting for the network beside
     * another spinner on its core held it until the scheduler's tick (ms).
     * Where cores are known to be shared (spin 0) it polls as before: the
     * yields made a 2-rank ping-pong on 2 cores 5 % slower. */
    /* (each file that waits keeps its own pair: measured so, and no thread
     * but the proxy's main one polls) */
    static unsigned polls;
    static uint64_t yield_at;
    if (++polls % 64 || !mpcr_spin_ns()) return;
    if (mpcr_spin_yield_due(mpcr_now_ns(), &yield_at)) sched_yield();
}
/* Whether a receive that ended with rc took a message off the network (a
 * truncated one did): the drain's count of received messages. */
static inline int took_message(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE;
}

/* Set by a handler that left its call unanswered for a checkpoint. */
extern int call_abandoned;

/* Real point-to-point on neutral arguments, any byte count (bytes.c). */
int real_isend(int sync, uint32_t comm, int peer, int tag, uint64_t offset, uint64_t bytes,
               MPI_Request *req);
int real_irecv(uint32_t comm, int peer, int tag, uint64_t offset, uint64_t cap, MPI_Request *req);
/* MPI_Mrecv of a matched message of `bytes` bytes into buf. */
int real_mrecv(void *buf, uint64_t bytes, MPI_Message *msg, MPI_Status *st);
uint64_t status_bytes(const MPI_Status *st);

/* Extends the staging area to `size` bytes; 0 or MPI_ERR_NO_MEM. */
int grow_staging(uint64_t size);
/* Makes room in the array *arrayp (a T *, *cap elements of `size` bytes)
 * for one more beside `count`, doubling from `first`: 0, or MPI_ERR_NO_MEM
 * (the array as it was). */
static inline int grow_array(void *arrayp, uint32_t *cap, uint32_t count, uint32_t first, size_t size)
{
    if (count < *cap) return 0;
    uint32_t n = *cap ? 2 * *cap : first;
    void *old, *t;
    memcpy(&old, arrayp, sizeof old);
    if (!(t = realloc(old, (size_t)n * size))) return MPI_ERR_NO_MEM;
    memcpy(arrayp, &t, sizeof t);
    *cap = n;
    return 0;
}

/* Called when the application has ended; never returns. */
_Noreturn void child_ended(void);
/* Ends the whole job with status code because mpcr ends it, not the
 * program: the reason has been reported already (main.c). */
_Noreturn void end_job_for_mpcr(int code);

/* Mapping of mpcr's neutral values to this MPI's (mpi_map.c). */
void map_init(void);                           /* after MPI_Init */
int map_comm_add(uint32_t vid, MPI_Comm comm); /* takes it over, adds its collective context */
int map_comm_put(uint32_t vid, MPI_Comm comm, MPI_Comm coll); /* with a collective context made */
int map_comm_free(uint32_t vid);
MPI_Comm real_comm(uint32_t vid);
uint32_t map_comm_slots(void); /* ids below this may be in use */
/* The number of ranks of the communicator (or collective context) that vid
 * names; 0 when it names none that is live. */
int map_comm_size(uint32_t vid);
/* Whether vid may name a new communicator (COMM_DUP, COMM_SPLIT): not in
 * use, not MPI_COMM_WORLD's or MPI_COMM_SELF's, and below MAP_COMM_ID_END. */
int map_comm_id_free(uint32_t vid);
/* The library's communicator ids are 2 + the slot index of its handles,
 * which has 20 bits (src/lib/runtime/handle.h): no id it makes reaches this, and a
 * made-up one cannot make the proxy's table huge. */
#define MAP_COMM_ID_END (2u + (1u << 20))
int error_class(int real_code);
/* mpcr's ABI values (MPICH's) of the constants the channel carries. */
enum { ABI_ANY_SOURCE = -2, ABI_PROC_NULL = -1, ABI_ANY_TAG = -1, ABI_UNDEFINED = -32766 };
int real_source(int peer); /* MPI_ANY_SOURCE in mpcr's ABI -> this MPI's */
int real_tag(int tag);
int neutral_source(int source);
int neutral_tag(int tag);

static inline void *staging(uint64_t offset)
{
    return mpcr_staging(proxy.chan, offset);
}

/* Whether [offset, offset + bytes) lies inside the staging area; written so
 * that no sum can wrap around 2^64. */
static inline int in_staging(uint64_t offset, uint64_t bytes)
{
    return offset <= proxy.staging_size && bytes <= proxy.staging_size - offset;
}

#endif
