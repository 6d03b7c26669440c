/* Sessions (MPI 4.0 section 11.3), in the world model the proxy already
 * has: a session is an object of the library (its error handler and thread
 * level), its process sets are the world's and the process's own, and a
 * group made from one is a group of world ranks like any other. Nothing of
 * a session is in the proxy, so a session and everything made from it are
 * in the program's image and mean the same after a restart, under MPICH's
 * proxy or Open MPI's (which has no sessions). Why this design, and what
 * differs from MPICH 4.0.2: docs/sessions.md. */
#include "session.h"
#include "api/api.h"
#include "api_gen.h"
#include "comm/comm.h"
#include "env/info.h"
#include "runtime/runtime.h"
#include "runtime/threads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mpcr_session *mpcr_session_get(MPI_Session session)
{
    return mpcr_obj_get(MPCR_KIND_SESSION, (uint32_t)session);
}

/* Applies handler eh, of session handle `session`, to err. */
static int raise_on(MPI_Errhandler eh, MPI_Session session, int err, const char *fn)
{
    if (err == MPI_SUCCESS || eh == MPI_ERRORS_RETURN) return err;
    if (mpcr_errhandler_call_session(eh, session, err)) return err;
    mpcr_error_fatal(err, fn, "session");
}

int mpcr_session_error(struct mpcr_session *s, int err, const char *fn)
{
    if (!s) return mpcr_error_world(err, fn);
    return raise_on(s->errhandler, (MPI_Session)mpcr_obj_handle(s), err, fn);
}

/* ---- opening and closing ---- */

/* MPICH 4.0.2 gives every session MPI_THREAD_MULTIPLE, whatever its info
 * asks; so does mpcr (the library serialises calls: docs/threads.md). */
#define SESSION_THREAD_LEVEL MPI_THREAD_MULTIPLE

static int session_open(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    MPCR_SERIALIZED_CALL();
    /* No session yet: an error goes to the handler the call was given
     * (MPI 4.0 11.3.1), or to MPI_COMM_WORLD's when that is not valid. */
    if (!mpcr_errhandler_valid(errhandler)) return mpcr_error_world(MPI_ERR_ARG, fn);
    int err = !session                          ? MPI_ERR_ARG
              : !mpcr_info_valid_or_null(info) ? MPI_ERR_INFO
                                                : mpcr_start(SESSION_THREAD_LEVEL);
    struct mpcr_session *s = NULL;
    if (!err && !(s = mpcr_obj_new(MPCR_KIND_SESSION, sizeof *s, NULL))) err = MPI_ERR_NO_MEM;
    if (err) return raise_on(errhandler, MPI_SESSION_NULL, err, fn);
    s->errhandler = errhandler;
    s->thread_level = SESSION_THREAD_LEVEL;
    mpcr.sessions++;
    *session = (MPI_Session)mpcr_obj_handle(s);
    return MPI_SUCCESS;
}

/* Threads may open their first sessions at the same moment, before the
 * library's lock is in force (it is taken from MPI_THREAD_MULTIPLE on,
 * which the first session sets): they start the library one at a time. */
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&opening);
    int err = session_open(info, errhandler, session);
    pthread_mutex_unlock(&opening);
    return err;
}
MPCR_ALIAS(Session_init);

/* The session's objects (groups, communicators) stay as they are: the
 * program frees them (MPI 4.0 11.3.1). The library ends its connection to
 * the proxy with the last session once the world model is over too; a
 * program that never called MPI_Init ends it when it exits (runtime/init.c). */
int mpcr_impl_Session_finalize(MPI_Session *session, struct mpcr_session *s)
{
    mpcr.sessions--;
    int err = mpcr.sessions == 0 && mpcr.world == MPCR_WORLD_ENDED ? mpcr_stop() : MPI_SUCCESS;
    err = mpcr_session_error(s, err, "MPI_Session_finalize"); /* ownerrors: s is gone after */
    mpcr_obj_drop_handle(s);
    *session = MPI_SESSION_NULL;
    return err;
}

/* ---- process sets ---- */

/* The process sets every session has (MPI 4.0 11.3.2), in MPICH's order;
 * names are compared without regard to case, as MPICH does. */
static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF"};
enum { PSET_WORLD, PSET_SELF, NPSETS };

static int pset_find(const char *name)
{
    for (int i = 0; name && i < NPSETS; i++)
        if (!strcasecmp(name, pset_names[i])) return i;
    return -1;
}

static int pset_size(int pset)
{
    return pset == PSET_WORLD ? mpcr.size : 1;
}

int mpcr_impl_Session_get_num_psets(struct mpcr_session *s, struct mpcr_info *info_o,
                                    int *npset_names)
{
    (void)s, (void)info_o; /* no hint narrows the list */
    if (!npset_names) return MPI_ERR_ARG;
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

/* pset_len 0 asks for the length (with the terminating NUL); otherwise up
 * to pset_len - 1 characters and a NUL are written, and pset_len stays. */
int mpcr_impl_Session_get_nth_pset(struct mpcr_session *s, struct mpcr_info *info_o, int n,
                                   int *pset_len, char *pset_name)
{
    (void)s, (void)info_o;
    if (!pset_len || n < 0 || n >= NPSETS || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return MPI_ERR_ARG;
    int need = (int)strlen(pset_names[n]) + 1;
    if (*pset_len == 0)
        *pset_len = need;
    else
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    return MPI_SUCCESS;
}

/* A new info object holding one key. */
static int info_with(const char *key, const char *value, MPI_Info *out)
{
    int err = mpcr_impl_Info_create(out);
    if (!err) err = mpcr_impl_Info_set(mpcr_info_get(*out), key, value);
    return err;
}

int mpcr_impl_Session_get_pset_info(struct mpcr_session *s, const char *pset_name, MPI_Info *info)
{
    (void)s;
    int pset = pset_find(pset_name);
    if (pset < 0) return MPI_ERR_ARG;
    char size[16];
    snprintf(size, sizeof size, "%d", pset_size(pset));
    return info_with("mpi_size", size, info);
}

int mpcr_impl_Group_from_session_pset(struct mpcr_session *s, const char *pset_name,
                                      MPI_Group *newgroup)
{
    (void)s;
    int pset = pset_find(pset_name);
    if (pset < 0) return MPI_ERR_ARG; /* MPI 4.0 11.3.2: an unknown name */
    int n = pset_size(pset);
    int32_t *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks) return MPI_ERR_NO_MEM;
    for (int r = 0; r < n; r++)
        ranks[r] = pset == PSET_WORLD ? r : mpcr.rank;
    int err = mpcr_group_make(ranks, n, newgroup);
    free(ranks);
    return err;
}

/* ---- info and error handlers ---- */

int mpcr_impl_Session_get_info(struct mpcr_session *s, MPI_Info *info_used)
{
    static const char *const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    return info_with("thread_level", levels[s->thread_level], info_used);
}

int mpcr_impl_Session_set_errhandler(struct mpcr_session *s, MPI_Errhandler errhandler)
{
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

int mpcr_impl_Session_get_errhandler(struct mpcr_session *s, MPI_Errhandler *errhandler)
{
    if (!errhandler) return MPI_ERR_ARG;
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

/* Invokes the session's handler with the program's code; MPI_SUCCESS once
 * it has run (MPI 4.0 9.3.6), or the job ends (MPI_ERRORS_ARE_FATAL). */
int mpcr_impl_Session_call_errhandler(struct mpcr_session *s, int errorcode)
{
    if (s->errhandler != MPI_ERRORS_RETURN)
        mpcr_session_error(s, errorcode, "MPI_Session_call_errhandler");
    return MPI_SUCCESS;
}
