/* Generalized requests (MPI 4.0 section 13.2): the program's own
 * operations, completed by MPI_Grequest_complete, wholly in the program's
 * memory (nothing at the proxy), so a checkpoint saves them as they are.
 * query_fn fills the status when a Wait or Test completes one; free_fn runs
 * when the request is freed (by that Wait or Test, or by MPI_Request_free:
 * at once, complete or not, as MPICH does); a request freed before it is
 * complete lives on, unseen, until MPI_Grequest_complete.
 *
 * From Fortran (MPICH's libmpifort starts the request with the Fortran
 * subroutines as the three functions and the address of the program's
 * extra_state variable, then calls MPII_Grequest_set_lang_f77), the
 * callbacks take every argument by reference and return their error in a
 * last ierror argument; the status is a Fortran status, whose layout is
 * the C one in mpcr's ABI (status.c asserts it). */
#include "api_gen.h"
#include "comm/comm.h"
#include "p2p.h"
#include "request.h"

#include <stdlib.h>

struct mpcr_grequest {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int complete, freed;
    int fortran; /* the callbacks are Fortran subroutines (see above) */
};

/* The callbacks' Fortran forms: the C types with the return value moved
 * into a last argument, and the cancel flag a LOGICAL by reference. */
typedef void fortran_query_fn(void *extra_state, MPI_Fint *status, MPI_Fint *ierror);
typedef void fortran_free_fn(void *extra_state, MPI_Fint *ierror);
typedef void fortran_cancel_fn(void *extra_state, MPI_Fint *complete, MPI_Fint *ierror);

int mpcr_impl_Grequest_start(MPI_Grequest_query_function *query_fn,
                             MPI_Grequest_free_function *free_fn,
                             MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                             MPI_Request *request)
{
    struct mpcr_grequest *g = calloc(1, sizeof *g);
    if (!g) return MPI_ERR_NO_MEM;
    struct mpcr_request *q = mpcr_request_new(mpcr_comm_get(MPI_COMM_WORLD), request);
    if (!q) {
        free(g);
        return MPI_ERR_NO_MEM;
    }
    *g = (struct mpcr_grequest){query_fn, free_fn, cancel_fn, extra_state, 0, 0, 0};
    q->greq = g;
    q->kind = MPCR_REQ_GREQ;
    return MPI_SUCCESS;
}

/* The program's handle stays valid after MPI_Request_free until the
 * request is complete too (the object is looked up by it here). */
int mpcr_impl_Grequest_complete(MPI_Request request)
{
    struct mpcr_request *q = mpcr_request_get(request);
    if (!q || !q->greq || q->greq->complete) return MPI_ERR_REQUEST;
    q->greq->complete = 1;
    if (q->greq->freed) mpcr_request_free(&request, q);
    return MPI_SUCCESS;
}

int mpcr_grequest_set_fortran(MPI_Request request)
{
    struct mpcr_request *q = mpcr_request_get(request);
    if (!q || !q->greq) return MPI_ERR_REQUEST;
    q->greq->fortran = 1;
    return MPI_SUCCESS;
}

int mpcr_grequest_done(struct mpcr_request *q)
{
    return q->greq->complete;
}

int mpcr_grequest_finish(struct mpcr_request *q)
{
    mpcr_status_set(&q->status, MPI_UNDEFINED, MPI_UNDEFINED, 0);
    struct mpcr_grequest *g = q->greq;
    if (g->fortran) {
        MPI_Fint ierror = MPI_SUCCESS;
        ((fortran_query_fn *)(void (*)(void))g->query_fn)(g->extra_state, (MPI_Fint *)&q->status,
                                                          &ierror);
        q->rc = ierror;
    } else {
        q->rc = g->query_fn(g->extra_state, &q->status);
    }
    return q->rc;
}

int mpcr_grequest_free(MPI_Request *handle, struct mpcr_request *q)
{
    struct mpcr_grequest *g = q->greq;
    int err;
    if (g->fortran) {
        MPI_Fint ierror = MPI_SUCCESS;
        ((fortran_free_fn *)(void (*)(void))g->free_fn)(g->extra_state, &ierror);
        err = ierror;
    } else {
        err = g->free_fn(g->extra_state);
    }
    if (q->greq->complete) {
        mpcr_request_free(handle, q);
    } else { /* MPI_Grequest_complete still names it */
        q->greq->freed = 1;
        *handle = MPI_REQUEST_NULL;
    }
    return err;
}

int mpcr_grequest_cancel(struct mpcr_request *q)
{
    struct mpcr_grequest *g = q->greq;
    if (!g->fortran) return g->cancel_fn(g->extra_state, g->complete);
    MPI_Fint complete = g->complete, ierror = MPI_SUCCESS; /* gfortran's .TRUE. is 1 */
    ((fortran_cancel_fn *)(void (*)(void))g->cancel_fn)(g->extra_state, &complete, &ierror);
    return ierror;
}

void mpcr_grequest_destroy(struct mpcr_request *q)
{
    free(q->greq);
    q->greq = NULL;
}
