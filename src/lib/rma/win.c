/* Windows (MPI 4.0 chapter 12; docs/one-sided.md) as objects: made by
 * MPI_Win_create, MPI_Win_allocate and MPI_Win_create_dynamic, with their group, name, info,
 * error handler, attributes (the keyval functions are attr.c's) and the
 * predefined attributes, freed by MPI_Win_free.
 *
 * Making a window is collective, and no real collective is made for it:
 * each rank gets its memory from its own proxy (win_mem.c), then the
 * members tell each other where it is with the library's allgather, which
 * a checkpoint's drain covers like any message. Errors of a call on a
 * window go to the window's own handler once the program has set one
 * (mpcr_win_error: the generator's rule for WIN), before that to
 * MPI_COMM_WORLD's, as in MPICH. */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "env/attr.h"
#include "env/errors.h"
#include "env/info.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"
#include "win.h"

#include <stdlib.h>
#include <string.h>

struct mpcr_win *mpcr_win_get(MPI_Win win)
{
    return mpcr_obj_get(MPCR_KIND_WIN, (uint32_t)win);
}

static void destroy(void *obj)
{
    struct mpcr_win *w = obj;
    mpcr_win_detach_all(w);
    if (w->flavor == MPI_WIN_FLAVOR_SHARED && w->mem) mpcr_win_shared_freed();
    mpcr_win_mem_release(w);
    if (w->comm) mpcr_comm_release(w->comm);
    if (w->info != MPI_INFO_NULL) mpcr_impl_Info_free(&w->info);
    free(w->members), free(w->peers), free(w->locks), free(w->snap);
    free(w->post_ranks), free(w->start_ranks);
}

/* Whether a created window's pages may be shared with the proxy: copied
 * into a memfd mapped over them, a store another thread makes meanwhile to
 * a byte outside the window but on its first or last page would be lost.
 * So the window must fill those pages, or no other thread may call MPI
 * (the program's other threads then are not storing, in a correct OpenMP
 * program: the thread that calls MPI is outside a parallel region). */
static int pages_safe_to_share(const void *base, MPI_Count size)
{
    uintptr_t lo = (uintptr_t)base, hi = lo + (uint64_t)size;
    return mpcr.thread_level != MPI_THREAD_MULTIPLE ||
           (lo % MPCR_PAGE_SIZE == 0 && hi % MPCR_PAGE_SIZE == 0);
}

/* A created window's memory (docs/one-sided.md, "Where a window's memory
 * lives"): its control page (made first: the job's first window makes the
 * proxies' real window), and where the program's bytes are reached at the
 * proxy, told to the other members (*at, *absolute; *separate):
 *   - memory of an allocated or shared window of this program: at the
 *     offset the proxy attached it at already, unified;
 *   - the program's own private pages, shared with the proxy as a dynamic
 *     window's attached memory is, at their address: unified;
 *   - else (a shared mapping, the proxy cannot map them at that address,
 *     or the rule above forbids) a public copy beside them, merged at each
 *     synchronisation: MPI_WIN_SEPARATE. */
static int created_memory(struct mpcr_win *w, void *base, MPI_Count size, uint64_t *at,
                          uint32_t *absolute, uint32_t *separate)
{
    int err = mpcr_win_mem_make(w, 0);
    if (err) return err;
    if (mpcr_win_mem_within(base, (uint64_t)size, at)) return MPI_SUCCESS;
    err = MPI_ERR_UNSUPPORTED_OPERATION;
    if (pages_safe_to_share(base, size)) err = mpcr_win_region_add(w, base, (uint64_t)size, 1);
    *at = (uint64_t)(uintptr_t)base, *absolute = 1;
    if (err != MPI_ERR_UNSUPPORTED_OPERATION) return err;
    mpcr_win_mem_release(w);
    *absolute = 0, *separate = 1;
    if ((err = mpcr_win_mem_make(w, (uint64_t)size))) return err;
    *at = w->offset;
    if (!size) return MPI_SUCCESS;
    if (!(w->snap = malloc((size_t)size))) return MPI_ERR_NO_MEM;
    memcpy(w->mem, base, (size_t)size), memcpy(w->snap, base, (size_t)size);
    return MPI_SUCCESS;
}

/* A window of `size` bytes at base (NULL: memory of its own, returned in
 * *base: MPI_Win_allocate), collective over comm. */
static int make(void **base, MPI_Count size, MPI_Count disp_unit, MPI_Info info,
                struct mpcr_comm *comm, int flavor, MPI_Win *win)
{
    if (size < 0) return MPI_ERR_SIZE;
    if (disp_unit <= 0 || disp_unit > INT32_MAX) return MPI_ERR_DISP;
    if (info != MPI_INFO_NULL && !mpcr_info_get(info)) return MPI_ERR_INFO;
    if (comm->inter) return MPI_ERR_COMM;
    struct mpcr_win *w = mpcr_obj_new(MPCR_KIND_WIN, sizeof *w, destroy);
    if (!w) return MPI_ERR_NO_MEM;
    w->eh = MPI_ERRHANDLER_NULL, w->info = MPI_INFO_NULL; /* none set yet: mpcr_win_error */
    w->members = malloc(((size_t)comm->size + 1) * sizeof *w->members);
    w->peers = calloc((size_t)comm->size, sizeof *w->peers);
    w->locks = calloc((size_t)comm->size, 1);
    int err = !w->members || !w->peers || !w->locks ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (!err && info != MPI_INFO_NULL) err = mpcr_impl_Info_dup(mpcr_info_get(info), &w->info);
    if (!err) err = mpcr_comm_dup(comm, &w->comm);
    if (!err) {
        for (int r = 0; r < comm->size; r++)
            w->members[r] = mpcr_comm_world_rank(comm, r);
        w->nmembers = comm->size;
        w->size = (MPI_Aint)size, w->disp_unit = (int)disp_unit, w->flavor = flavor;
        w->model = MPI_WIN_UNIFIED;
    }
    struct mpcr_win_peer mine = {0};
    if (!err && flavor == MPI_WIN_FLAVOR_CREATE)
        err = created_memory(w, *base, size, &mine.offset, &mine.absolute, &mine.separate);
    /* a dynamic window's: its control page only (the lock word); its
     * displacements are addresses */
    else if (!err && flavor != MPI_WIN_FLAVOR_SHARED) {
        err = mpcr_win_mem_make(w, (uint64_t)size);
        mine.offset = w->offset, mine.absolute = flavor == MPI_WIN_FLAVOR_DYNAMIC;
        if (mine.absolute) mine.offset = (uint64_t)(uintptr_t)MPI_BOTTOM;
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED) /* collective: every member, whatever it got */
        err = mpcr_win_shared_make(w, (uint64_t)size, comm, err, &mine);
    else if (!err)
        mine.size = (uint64_t)size, mine.lock = mpcr_win_mem_lock_word(w);
    mine.disp_unit = (int64_t)disp_unit;
    if (!err)
        w->base = flavor == MPI_WIN_FLAVOR_CREATE    ? *base
                  : flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM
                  : flavor == MPI_WIN_FLAVOR_SHARED  ? w->base
                                                     : w->mem;
    /* every member takes part, whatever it got: the result is agreed after */
    int e = mpcr_impl_Allgather(&mine, sizeof mine, mpcr_type_get(MPI_BYTE), w->peers,
                                sizeof mine, mpcr_type_get(MPI_BYTE), comm);
    int agreed = 0, all = 0;
    agreed = err ? err : e;
    e = mpcr_impl_Allreduce(&agreed, &all, 1, MPI_INT, mpcr_type_get(MPI_INT), MPI_MAX, comm);
    if (e || all) {
        mpcr_obj_drop_handle(w);
        return e ? e : err ? err : all;
    }
    /* one model for the window: unified unless a member keeps a public copy */
    for (int r = 0; r < w->nmembers; r++)
        if (w->peers[r].separate) w->model = MPI_WIN_SEPARATE;
    if (flavor != MPI_WIN_FLAVOR_CREATE) *base = w->base;
    *win = (MPI_Win)mpcr_obj_handle(w);
    return MPI_SUCCESS;
}

int mpcr_impl_Win_create(void *base, MPI_Count size, MPI_Count disp_unit, MPI_Info info,
                         struct mpcr_comm *comm, MPI_Win *win)
{
    return make(&base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, win);
}

/* A window with memory of its own, returned in *baseptr. */
static int allocate(MPI_Count size, MPI_Count disp_unit, MPI_Info info, struct mpcr_comm *comm,
                    void *baseptr, MPI_Win *win, int flavor)
{
    if (!baseptr) return MPI_ERR_ARG;
    void *base = NULL;
    int err = make(&base, size, disp_unit, info, comm, flavor, win);
    if (!err) *(void **)baseptr = base;
    return err;
}

int mpcr_impl_Win_allocate(MPI_Count size, MPI_Count disp_unit, MPI_Info info,
                           struct mpcr_comm *comm, void *baseptr, MPI_Win *win)
{
    return allocate(size, disp_unit, info, comm, baseptr, win, MPI_WIN_FLAVOR_ALLOCATE);
}

int mpcr_impl_Win_allocate_shared(MPI_Count size, MPI_Count disp_unit, MPI_Info info,
                                  struct mpcr_comm *comm, void *baseptr, MPI_Win *win)
{
    return allocate(size, disp_unit, info, comm, baseptr, win, MPI_WIN_FLAVOR_SHARED);
}

/* Memory comes later, attached (win_dynamic.c); its displacements are
 * addresses at the target. */
int mpcr_impl_Win_create_dynamic(MPI_Info info, struct mpcr_comm *comm, MPI_Win *win)
{
    void *base = MPI_BOTTOM;
    return make(&base, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, win);
}

int mpcr_impl_Win_free(MPI_Win *win, struct mpcr_win *w)
{
    for (int r = 0; r < w->nmembers; r++)
        if (w->locks[r] != WIN_UNLOCKED) return MPI_ERR_RMA_SYNC;
    /* No member frees its memory while another may still reach it (MPI
     * 4.0 12.2.5: Win_free is collective). No merge of a separate window:
     * its last synchronisation made the copies agree, and programs free
     * the window's memory before the window (MPICH's rma/test3). */
    int err = mpcr_impl_Barrier(w->comm);
    if (err) return err;
    err = mpcr_attr_delete_all(MPCR_ATTR_WIN, (uint32_t)*win); /* delete callbacks */
    if (err) return err;
    mpcr_obj_drop_handle(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_get_group(struct mpcr_win *w, MPI_Group *group)
{
    return mpcr_group_make(w->members, w->nmembers, group);
}

int mpcr_impl_Win_set_name(struct mpcr_win *w, const char *name)
{
    if (!name) return MPI_ERR_ARG;
    size_t n = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(w->name, name, n);
    w->name[n] = 0;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_get_name(struct mpcr_win *w, char *name, int *resultlen)
{
    if (!name || !resultlen) return MPI_ERR_ARG;
    size_t n = strlen(w->name);
    memcpy(name, w->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

/* The hints in use: those given (mpcr takes none of them into account, as
 * MPI allows; MPICH answers those it knows with their values). */
int mpcr_impl_Win_get_info(struct mpcr_win *w, MPI_Info *info_used)
{
    if (!info_used) return MPI_ERR_ARG;
    return w->info != MPI_INFO_NULL ? mpcr_impl_Info_dup(mpcr_info_get(w->info), info_used)
                                    : mpcr_impl_Info_create(info_used);
}

int mpcr_impl_Win_set_info(struct mpcr_win *w, struct mpcr_info *info)
{
    MPI_Info copy;
    int err = mpcr_impl_Info_dup(info, &copy);
    if (err) return err;
    if (w->info != MPI_INFO_NULL) mpcr_impl_Info_free(&w->info);
    w->info = copy;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_set_errhandler(struct mpcr_win *w, MPI_Errhandler errhandler)
{
    w->eh = errhandler;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_get_errhandler(struct mpcr_win *w, MPI_Errhandler *errhandler)
{
    if (!errhandler) return MPI_ERR_ARG;
    *errhandler = w->eh == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : w->eh; /* MPI's default */
    return MPI_SUCCESS;
}

int mpcr_impl_Win_call_errhandler(struct mpcr_win *w, int errorcode)
{
    mpcr_win_error(w, errorcode, "MPI_Win_call_errhandler");
    return MPI_SUCCESS; /* what the handler returned is not MPI_Win_call_errhandler's (MPI 4.0 9.3.4) */
}

/* A window whose program set no handler raises its errors on MPI_COMM_WORLD's
 * handler, as MPICH does (its windows start without one): the programs
 * mpcr's tests compare with MPICH's runs set MPI_ERRORS_RETURN on the world
 * and expect a window's errors back. MPI's default for a window is
 * MPI_ERRORS_ARE_FATAL, the world's default too. */
int mpcr_win_error(struct mpcr_win *w, int err, const char *fn)
{
    if (w->eh == MPI_ERRHANDLER_NULL) return mpcr_error(NULL, err, fn);
    if (err == MPI_SUCCESS || w->eh == MPI_ERRORS_RETURN) return err;
    if (mpcr_errhandler_call_win(w->eh, (MPI_Win)mpcr_obj_handle(w), err)) return err;
    mpcr_fatal_error_of(err, fn, "window");
}

/* One object kind for every handler, as in MPICH (errhandler.c). */
int mpcr_impl_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return mpcr_impl_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))fn,
                                            errhandler);
}

int mpcr_win_predefined(struct mpcr_win *w, int keyval, void *value, int *flag)
{
    void *v;
    switch (keyval) {
    case MPI_WIN_BASE:
        v = w->base; /* the base itself, not a pointer to it (MPI 4.0 12.2.6) */
        break;
    case MPI_WIN_SIZE:
        v = &w->size;
        break;
    case MPI_WIN_DISP_UNIT:
        v = &w->disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        v = &w->flavor;
        break;
    case MPI_WIN_MODEL:
        v = &w->model;
        break;
    default:
        return MPI_ERR_KEYVAL;
    }
    *(void **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}
