/* User error handlers (MPI 4.0 section 9.3): objects of the handle system
 * holding the program's function. A handler the program frees while a
 * communicator still uses it must go on working (MPI 4.0 section 9.3.4);
 * the library does not count the communicators that use one, so a freed
 * handler's object stays (a few bytes each) and only the program's handle
 * is set to MPI_ERRHANDLER_NULL. Like every library object it is in the
 * image, so a communicator's handler survives a restart. */
#include "api_gen.h"
#include "comm/comm.h"
#include "errors.h"
#include "runtime/handle.h"

#include <stdarg.h>

struct mpcr_errhandler {
    struct mpcr_object h;
    MPI_Comm_errhandler_function *fn;
};

static int predefined(MPI_Errhandler e)
{
    return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN || e == MPI_ERRORS_ABORT;
}

int mpcr_errhandler_valid(MPI_Errhandler e)
{
    return predefined(e) || mpcr_obj_get(MPCR_KIND_ERRHANDLER, (uint32_t)e);
}

int mpcr_errhandler_call(MPI_Errhandler e, MPI_Comm comm, int err)
{
    struct mpcr_errhandler *u = mpcr_obj_get(MPCR_KIND_ERRHANDLER, (uint32_t)e);
    if (!u) return 0;
    u->fn(&comm, &err);
    return 1;
}

int mpcr_errhandler_call_win(MPI_Errhandler e, MPI_Win win, int err)
{
    struct mpcr_errhandler *u = mpcr_obj_get(MPCR_KIND_ERRHANDLER, (uint32_t)e);
    if (!u) return 0;
    /* made by MPI_Win_create_errhandler: a window's handler */
    ((MPI_Win_errhandler_function *)(void (*)(void))u->fn)(&win, &err);
    return 1;
}

int mpcr_errhandler_call_file(MPI_Errhandler e, MPI_File fh, int err)
{
    struct mpcr_errhandler *u = mpcr_obj_get(MPCR_KIND_ERRHANDLER, (uint32_t)e);
    if (!u) return 0;
    /* made by MPI_File_create_errhandler: a file's handler (one object kind, as in MPICH) */
    ((MPI_File_errhandler_function *)(void (*)(void))u->fn)(&fh, &err);
    return 1;
}

int mpcr_errhandler_call_session(MPI_Errhandler e, MPI_Session session, int err)
{
    struct mpcr_errhandler *u = mpcr_obj_get(MPCR_KIND_ERRHANDLER, (uint32_t)e);
    if (!u) return 0;
    /* made by MPI_Session_create_errhandler (the same object kind) */
    ((MPI_Session_errhandler_function *)(void (*)(void))u->fn)(&session, &err);
    return 1;
}

int mpcr_impl_Session_create_errhandler(MPI_Session_errhandler_function *fn,
                                        MPI_Errhandler *errhandler)
{
    return mpcr_impl_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))fn,
                                            errhandler);
}

int mpcr_impl_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return mpcr_impl_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void (*)(void))fn,
                                            errhandler);
}

int mpcr_impl_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    if (!fn || !errhandler) return MPI_ERR_ARG;
    struct mpcr_errhandler *u = mpcr_obj_new(MPCR_KIND_ERRHANDLER, sizeof *u, NULL);
    if (!u) return MPI_ERR_NO_MEM;
    u->fn = fn;
    *errhandler = (MPI_Errhandler)mpcr_obj_handle(u);
    return MPI_SUCCESS;
}

int mpcr_impl_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return mpcr_impl_Comm_create_errhandler(fn, errhandler);
}

int mpcr_impl_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !mpcr_errhandler_valid(*errhandler)) return MPI_ERR_ARG;
    *errhandler = MPI_ERRHANDLER_NULL; /* the object stays: see the top of this file */
    return MPI_SUCCESS;
}

int mpcr_impl_Errhandler_set(struct mpcr_comm *c, MPI_Errhandler errhandler)
{
    return mpcr_impl_Comm_set_errhandler(c, errhandler);
}

int mpcr_impl_Errhandler_get(struct mpcr_comm *c, MPI_Errhandler *errhandler)
{
    return mpcr_impl_Comm_get_errhandler(c, errhandler);
}

/* Invokes the communicator's handler with the program's code; returns
 * MPI_SUCCESS once it has run (MPI 4.0 section 9.3.6), or ends the job
 * (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT). */
int mpcr_impl_Comm_call_errhandler(struct mpcr_comm *c, int errorcode)
{
    MPI_Errhandler e;
    mpcr_impl_Comm_get_errhandler(c, &e);
    if (e == MPI_ERRORS_RETURN) return MPI_SUCCESS;
    mpcr_error(c, errorcode, "MPI_Comm_call_errhandler");
    return MPI_SUCCESS;
}
