/* Windows (MPI 4.0 chapter 12) as objects: made by MPI_Win_create, with
 * their group, name, attributes (the keyval functions are attr.c's) and
 * the predefined attributes, freed by MPI_Win_free. mpcr moves no data
 * through them yet: every one-sided communication and synchronisation call
 * (MPI_Put, MPI_Get, MPI_Win_fence...) ends the job as not supported. A
 * window is plain data in the program's memory, so it survives a restart
 * with its handle. Errors of window calls go to MPI_COMM_WORLD's handler
 * (window error handlers are not made yet); MPI_Win_create's to its
 * communicator's. */
#include "api_gen.h"
#include "comm/comm.h"
#include "env/attr.h"
#include "env/info.h"
#include "runtime/handle.h"
#include "win.h"

#include <stdlib.h>
#include <string.h>

struct mpcr_win {
    struct mpcr_object h;
    void *base;
    MPI_Aint size;
    int disp_unit, flavor, model; /* what the predefined attributes point to */
    int32_t *members;             /* the communicator's, as world ranks */
    int nmembers;
    char name[MPI_MAX_OBJECT_NAME];
};

struct mpcr_win *mpcr_win_get(MPI_Win win)
{
    return mpcr_obj_get(MPCR_KIND_WIN, (uint32_t)win);
}

static void destroy(void *obj)
{
    free(((struct mpcr_win *)obj)->members);
}

int mpcr_impl_Win_create(void *base, MPI_Count size, MPI_Count disp_unit, MPI_Info info,
                         struct mpcr_comm *comm, MPI_Win *win)
{
    if (size < 0) return MPI_ERR_SIZE;
    if (disp_unit <= 0 || disp_unit > INT32_MAX) return MPI_ERR_DISP;
    if (!mpcr_info_valid_or_null(info)) return MPI_ERR_INFO;
    if (comm->inter) return MPI_ERR_COMM;
    struct mpcr_win *w = mpcr_obj_new(MPCR_KIND_WIN, sizeof *w, destroy);
    if (!w) return MPI_ERR_NO_MEM;
    w->members = malloc(((size_t)comm->size + 1) * sizeof *w->members);
    if (!w->members) {
        mpcr_obj_drop_handle(w);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < comm->size; r++)
        w->members[r] = mpcr_comm_world_rank(comm, r);
    w->nmembers = comm->size;
    w->base = base, w->size = (MPI_Aint)size, w->disp_unit = (int)disp_unit;
    w->flavor = MPI_WIN_FLAVOR_CREATE, w->model = MPI_WIN_UNIFIED; /* MPICH's answers */
    *win = (MPI_Win)mpcr_obj_handle(w);
    return MPI_SUCCESS;
}

int mpcr_impl_Win_free(MPI_Win *win, struct mpcr_win *w)
{
    int err = mpcr_attr_delete_all(MPCR_ATTR_WIN, (uint32_t)*win); /* delete callbacks */
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
