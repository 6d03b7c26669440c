/* Windows (MPI 4.0 chapter 12; docs/one-sided.md): what the files of this
 * folder, the generated prologue (the WIN kind) and the attributes
 * (env/attr.c) share.
 *
 * A window is an object of the handle system in the program's memory, and
 * so is everything one-sided that must survive a checkpoint: its memory (a
 * memfd the proxy maps too, attached to the proxy's one real window), the
 * lock word in that memory's control page, a separate window's snapshot,
 * and what every member told the others at creation (where its memory is,
 * its size and displacement unit). Win_mem.c makes and releases the memory
 * and hands it to a new proxy after a restart; win_ops.c moves data;
 * win_sync.c synchronises. */
#ifndef MPCR_WIN_H
#define MPCR_WIN_H

#include <mpi.h>
#include <stdint.h>

#include "channel.h"
#include "runtime/handle.h"

struct mpcr_comm;
struct mpcr_type;
struct mpcr_win_region; /* win_dynamic.c */

/* What a member told the others at creation (an allgather). */
struct mpcr_win_peer {
    uint64_t offset;   /* its window's offset in its proxy's reservation, or its address */
    uint64_t size;     /* bytes of its window */
    int64_t disp_unit;
    uint64_t lock;     /* its lock word's offset there (in its control page) */
    uint32_t absolute; /* 1: offset is its address, its pages shared (dynamic, unified created) */
    uint32_t separate; /* 1: a created window's public copy (MPI_WIN_SEPARATE) */
};

/* A lock held by this rank on a member's window. */
enum { WIN_UNLOCKED, WIN_LOCKED_SHARED, WIN_LOCKED_EXCLUSIVE };

struct mpcr_win {
    struct mpcr_object h;
    void *base;
    MPI_Aint size;
    int disp_unit, flavor, model; /* what the predefined attributes point to */
    int32_t *members;             /* the communicator's, as world ranks */
    int nmembers;
    char name[MPI_MAX_OBJECT_NAME];
    struct mpcr_comm *comm; /* the library's duplicate: fences are barriers on it */
    MPI_Errhandler eh;
    MPI_Info info; /* the hints given at creation and to set_info (a library copy), or NULL */
    /* Memory (win_mem.c): the memfd's mapping here, `mem_len` bytes: the
     * window's pages, then the control page; its offset at the proxy. */
    char *mem;
    uint64_t mem_len, offset;
    /* A created window whose pages could not be shared (win.c): mem is the
     * public copy, base the private one, snap the bytes both had at the
     * last synchronisation; NULL otherwise. */
    char *snap;
    struct mpcr_win_peer *peers; /* per rank of the window */
    uint8_t *locks;              /* per rank: WIN_UNLOCKED... */
    int lock_all;
    /* Generalised active target (win_pscw.c): the ranks of the window's
     * communicator this rank exposes its window to (post .. wait) and
     * accesses (start .. complete); NULL outside those epochs. */
    int *post_ranks, npost, post_done;
    int *start_ranks, nstart;
    struct mpcr_win *next; /* every window with memory (a restart hands them over) */
    struct mpcr_win_region *regions; /* a dynamic window's attached memory (win_dynamic.c) */
};

struct mpcr_win *mpcr_win_get(MPI_Win win); /* NULL when invalid */
/* Applies w's error handler to error class (or code) err raised by function
 * fn: returns err (MPI_ERRORS_RETURN, a user handler) or ends the job. */
int mpcr_win_error(struct mpcr_win *w, int err, const char *fn);
static inline uint32_t mpcr_win_id(const struct mpcr_win *w)
{
    return mpcr_obj_index(w);
}
/* A window's predefined attributes (MPI_WIN_BASE...; MPI_ERR_KEYVAL for
 * another keyval). */
int mpcr_win_predefined(struct mpcr_win *w, int keyval, void *value, int *flag);

/* ---- memory (win_mem.c) ---- */
/* Gives w its memory for `size` bytes (its pages and a control page): a
 * memfd of the proxy's, mapped here at an address of the kernel's choice. */
int mpcr_win_mem_make(struct mpcr_win *w, uint64_t size);
/* The memory given back (at the proxy, then here). */
void mpcr_win_mem_release(struct mpcr_win *w);
/* The offset at its proxy of this member's lock word (its control page). */
uint64_t mpcr_win_mem_lock_word(const struct mpcr_win *w);
/* Whether [base, base + size) lies in the memory of a window of
 * MPI_Win_allocate or _allocate_shared (a memfd the proxy has attached);
 * then *offset is where it begins at the proxy. */
int mpcr_win_mem_within(const void *base, uint64_t size, uint64_t *offset);
/* Memory made otherwise (win_shared.c), m of len bytes here, at offset at
 * the proxy, made w's as mpcr_win_mem_make makes it. */
void mpcr_win_mem_adopt(struct mpcr_win *w, char *m, uint64_t len, uint64_t offset);

/* ---- shared-memory windows (win_shared.c) ---- */
/* Gives w, of MPI_Win_allocate_shared, its part of the members' one memfd
 * (collective over comm: every member calls it, with the error it has met
 * so far, err): w->base, and what this member tells the others (*mine, but
 * for its disp_unit). An MPI error class. */
int mpcr_win_shared_make(struct mpcr_win *w, uint64_t size, struct mpcr_comm *comm, int err,
                         struct mpcr_win_peer *mine);
/* A shared window freed (a restart is refused while one exists). */
void mpcr_win_shared_freed(void);
/* Whether a restart must be refused: a shared window exists (the members'
 * images hold copies of its pages that would no longer be shared). */
int mpcr_wins_unrestartable(void);
/* A public copy made consistent with the program's memory (docs/one-sided.md):
 * what the program changed since the last synchronisation goes public,
 * every other byte comes from the public copy. Nothing for a window
 * without one (w->snap). */
void mpcr_win_merge(struct mpcr_win *w);
/* In the restarted process (the engine's signal handler: system calls
 * only): each window's memory made a memfd again with its bytes, at the
 * same place, handed to the new proxy over sock at its offset. */
void mpcr_wins_restarted(int sock);
/* How many restarts this process has had: a call to the proxy whose
 * answer named a descriptor is asked again when it changed meanwhile. */
unsigned mpcr_win_restarts(void);
/* In the restarted process (system calls only): len bytes at addr made a
 * memfd again with the same bytes, mapped there, handed over to the new
 * proxy over sock as `tag` (struct mpcr_shared_handover's offset). Whether
 * it was. */
int mpcr_win_hand_over(int sock, void *addr, uint64_t len, uint64_t tag);

/* ---- dynamic windows (win_dynamic.c) ---- */
/* The program's [base, base + size) made a region of w: its pages shared
 * with the proxy at the same address and attached to its real window. With
 * private_only, pages not yet shared must be private writable memory
 * (mpcr_private_memory).
 * MPI_ERR_UNSUPPORTED_OPERATION where they are not, or the proxy cannot
 * map them there (its own memory, or no dynamic window), nothing changed;
 * another MPI error class. */
int mpcr_win_region_add(struct mpcr_win *w, void *base, uint64_t size, int private_only);
/* Every region still attached to w detached (MPI_Win_free). */
void mpcr_win_detach_all(struct mpcr_win *w);
/* In the restarted process: every attached piece handed to the new proxy. */
void mpcr_attached_restarted(int sock);

/* The data of a WIN call: what goes to the proxy (packed into the staging
 * area: the call's data), what comes back (unpacked from its aux); a NULL
 * type: none. */
struct mpcr_win_io {
    const void *in;
    MPI_Count in_count;
    const struct mpcr_type *in_type;
    void *out;
    MPI_Count out_count;
    const struct mpcr_type *out_type;
};
/* One WIN call (channel.h); io NULL: no data. The proxy's error class;
 * *wc holds its results. */
int mpcr_win_call(struct mpcr_win_call *wc, const struct mpcr_win_io *io);

/* Where target rank r's displacement disp lies at its proxy (its memory's
 * offset, or address, plus disp * its unit; *absolute: an address), or
 * MPI_ERR_DISP/MPI_ERR_RANK. */
int mpcr_win_target(const struct mpcr_win *w, int r, MPI_Aint disp, uint64_t *at, int *absolute);
/* The offset of rank r's lock word at its proxy. */
uint64_t mpcr_win_lock_word(const struct mpcr_win *w, int r);

#endif
