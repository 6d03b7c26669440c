/* Sessions (MPI 4.0 section 11.3; session.c, docs/sessions.md): what the
 * generated entry points and the rest of the library need of them. A
 * session is a library object only: the proxy never hears of one. */
#ifndef MPCR_SESSION_H
#define MPCR_SESSION_H

#include <mpi.h>

#include "runtime/handle.h"

struct mpcr_session {
    struct mpcr_object h;
    MPI_Errhandler errhandler; /* raised on by every call on the session */
    int thread_level;          /* what MPI_Session_get_info answers */
};

/* NULL unless an open session (MPI_SESSION_NULL and finalized ones are not). */
struct mpcr_session *mpcr_session_get(MPI_Session session);
/* Applies s's error handler to error class err of function fn: returns err
 * (MPI_ERRORS_RETURN, a user handler) or ends the job. s NULL (no valid
 * session): MPI_COMM_WORLD's handler. */
int mpcr_session_error(struct mpcr_session *s, int err, const char *fn);

#endif
