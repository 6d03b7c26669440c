/* The program's Fortran functions that MPI calls (the `custom` lines of
 * fortran_exports.txt): generalized requests, reduction ops and error
 * handlers, each called through a C function that gives it Fortran's
 * arguments. docs/abi-openmpi.md, "Fortran". */
#include "ompi/fortran.h"
#include "ompi/ompi_front.h"

#include <stdint.h>
#include <stdlib.h>

/* Generalized requests: the Fortran functions and the address of the
 * program's extra state (the callbacks get the program's variable by
 * reference, as in Open MPI and MPICH: what they change, the program sees)
 * in a record, called through C functions; Open MPI's Fortran status is its
 * C status. */
struct fortran_grequest {
    void (*query)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
    void (*free)(MPI_Aint *, MPI_Fint *);
    void (*cancel)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
    MPI_Aint *extra;
};

static int grequest_query(void *extra, MPI_Status *status)
{
    struct fortran_grequest *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(g->extra, (MPI_Fint *)status, &ierr);
    return ierr;
}

static int grequest_free(void *extra)
{
    struct fortran_grequest *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int grequest_cancel(void *extra, int complete)
{
    struct fortran_grequest *g = extra;
    MPI_Fint c = complete != 0, ierr = MPI_SUCCESS; /* LOGICAL: 1 or 0 */
    g->cancel(g->extra, &c, &ierr);
    return ierr;
}

void ompi_grequest_start_f(void *query, void *free_fn, void *cancel, MPI_Aint *extra,
                           MPI_Fint *request, MPI_Fint *ierr)
{
    struct fortran_grequest *g = malloc(sizeof *g);
    if (!g) mpcr_f_unsupported("memory for a Fortran generalized request", "");
    *g = (struct fortran_grequest){query, free_fn, cancel, extra};
    MPI_Request r;
    RETURN(PMPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, g, &r));
    if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
    else free(g);
}
ENTRY(GREQUEST_START, grequest_start)

/* ---- user functions without state: one of SLOTS trampolines each ---- */

#define SLOTS 32
#define REPEAT32(X)                                                                                \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)   \
    X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)

/* The slot of function f in table (the same function keeps its slot). */
static int slot(void **table, void *f, const char *what)
{
    for (int i = 0; i < SLOTS; i++)
        if (table[i] == f || !table[i]) {
            table[i] = f;
            return i;
        }
    mpcr_f_unsupported(what, "");
}

/* SUBROUTINE USER_FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE) */
typedef void fortran_op(void *, void *, MPI_Fint *, MPI_Fint *);
static void *ops[SLOTS];
#define OP_SLOT(i)                                                                                 \
    static void op_##i(void *in, void *inout, int *len, MPI_Datatype *type)                        \
    {                                                                                              \
        MPI_Fint t = PMPI_Type_c2f(*type);                                                         \
        ((fortran_op *)ops[i])(in, inout, len, &t);                                                \
    }
REPEAT32(OP_SLOT)
#define OP_ENTRY(i) op_##i,
static MPI_User_function *const op_slots[SLOTS] = {REPEAT32(OP_ENTRY)};

void ompi_op_create_f(void *function, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    int i = slot(ops, function, "more than 32 Fortran functions for MPI_OP_CREATE");
    MPI_Op c;
    RETURN(PMPI_Op_create(op_slots[i], *commute, &c));
    if (*ierr == MPI_SUCCESS) *op = PMPI_Op_c2f(c);
}
ENTRY(OP_CREATE, op_create)

/* SUBROUTINE HANDLER(OBJ, ERROR_CODE): communicators' (and MPI-1's),
 * windows' and files' each take slots of their own */
typedef void fortran_handler(MPI_Fint *, MPI_Fint *);
#define COMM_SLOT(i)                                                                               \
    static void comm_##i(MPI_Comm *c, int *code, ...) { comm_call(i, c, code); }
#define WIN_SLOT(i)                                                                                \
    static void win_##i(MPI_Win *w, int *code, ...) { win_call(i, w, code); }
#define FILE_SLOT(i)                                                                               \
    static void file_##i(MPI_File *f, int *code, ...) { file_call(i, f, code); }
#define COMM_ENTRY(i) comm_##i,
#define WIN_ENTRY(i) win_##i,
#define FILE_ENTRY(i) file_##i,
static void *comm_handlers[SLOTS], *win_handlers[SLOTS], *file_handlers[SLOTS];
#define CALL(kind, ctype, Kind)                                                                    \
    static void kind##_call(int i, ctype *obj, int *code)                                          \
    {                                                                                              \
        MPI_Fint f = PMPI_##Kind##_c2f(*obj);                                                      \
        ((fortran_handler *)kind##_handlers[i])(&f, code);                                         \
    }
CALL(comm, MPI_Comm, Comm)
CALL(win, MPI_Win, Win)
CALL(file, MPI_File, File)
REPEAT32(COMM_SLOT)
REPEAT32(WIN_SLOT)
REPEAT32(FILE_SLOT)
static MPI_Comm_errhandler_function *const comm_slots[SLOTS] = {REPEAT32(COMM_ENTRY)};
static MPI_Win_errhandler_function *const win_slots[SLOTS] = {REPEAT32(WIN_ENTRY)};
static MPI_File_errhandler_function *const file_slots[SLOTS] = {REPEAT32(FILE_ENTRY)};

#define CREATE_ERRHANDLER(Kind, kind, cname)                                                 \
    void ompi_##cname##_f(void *function, MPI_Fint *errhandler, MPI_Fint *ierr)                    \
    {                                                                                              \
        int i = slot(kind##_handlers, function, "more than 32 Fortran error handlers");            \
        MPI_Errhandler c;                                                                          \
        RETURN(PMPI_##Kind##_create_errhandler(kind##_slots[i], &c));                              \
        if (*ierr == MPI_SUCCESS) *errhandler = PMPI_Errhandler_c2f(c);                            \
    }
CREATE_ERRHANDLER(Comm, comm, comm_create_errhandler)
ENTRY(COMM_CREATE_ERRHANDLER, comm_create_errhandler)
CREATE_ERRHANDLER(Comm, comm, errhandler_create)
ENTRY(ERRHANDLER_CREATE, errhandler_create)
CREATE_ERRHANDLER(Win, win, win_create_errhandler)
ENTRY(WIN_CREATE_ERRHANDLER, win_create_errhandler)
CREATE_ERRHANDLER(File, file, file_create_errhandler)
ENTRY(FILE_CREATE_ERRHANDLER, file_create_errhandler)
