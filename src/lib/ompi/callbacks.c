/* The program's callbacks, called with Open MPI-ABI arguments
 * (docs/abi-openmpi.md, "Callbacks"). The MPICH-ABI library calls what it
 * was given with MPICH's arguments; what it is given here is a trampoline
 * that translates them and calls the program's function.
 * - Attribute copy and delete functions receive an extra_state: the
 *   trampoline's is a record holding the program's functions and state.
 * - User ops and error handlers receive no state: each gets one of a fixed
 *   set of trampolines, slot i calling the i-th registered function (a
 *   function registered again reuses its slot). The slots are the program's
 *   memory, so they survive a checkpoint like the ops that use them. */
#include <mpi.h>

#include "ompi/ompi_front.h"
#include "ompi_mpich.h"

#include <stdlib.h>

/* MPI-1 callbacks and functions (MPI_Copy_function...) are in the ABI still */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define P(h) mpcr_ompi_pointer(h)
#define ERR_OUT(e) mpcr_ompi_value_out(MPCR_OMPI_errclass, e)
#define ERR_IN(e) mpcr_ompi_value_in(MPCR_OMPI_errclass, e)

/* The trampolines of a kind, one per slot (EACH_SLOT(X) -> X(0) X(1) ... X(31)). */
#define SLOTS 32
#define EACH_SLOT(X)                                                                               \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)    \
    X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)

/* The slot of fn in fns (registered if new), or -1 when all are taken. */
static int slot_of(void **fns, void *fn)
{
    for (int i = 0; i < SLOTS; i++)
        if (fns[i] == fn) return i;
    for (int i = 0; i < SLOTS; i++)
        if (!fns[i]) return fns[i] = fn, i;
    return -1;
}

/* ---- user ops: MPICH calls f(in, inout, len, &mpich_type) ---- */

static void *op_fns[SLOTS];
#define OP_TRAMPOLINE(i)                                                                           \
    static void op_##i(void *in, void *inout, int *len, int *type)                                 \
    {                                                                                              \
        MPI_Datatype t = P(*type);                                                                 \
        ((MPI_User_function *)op_fns[i])(in, inout, len, &t);                                      \
    }
EACH_SLOT(OP_TRAMPOLINE)
#define OP_NAME(i) op_##i,
static void (*const op_trampolines[SLOTS])(void *, void *, int *, int *) = {
    EACH_SLOT(OP_NAME)};

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    int slot = slot_of(op_fns, (void *)user_fn);
    if (slot < 0) mpcr_ompi_unsupported("MPI_Op_create with more than 32 functions");
    int m = 0;
    int err = mpcr_mpich_PMPI_Op_create((void *)op_trampolines[slot], commute, op ? &m : NULL);
    if (!err) *op = P(m);
    return ERR_OUT(err);
}
extern __typeof__(PMPI_Op_create) MPI_Op_create __attribute__((weak, alias("PMPI_Op_create")));

/* Makes an error handler of fn with the first free slot of fns (its
 * trampolines), by MPICH's create (what: the function, for the message). */
static int create_errhandler(void **fns, void *const *trampolines,
                             int (*create)(void *, int *), void *fn, MPI_Errhandler *errhandler,
                             const char *what)
{
    int slot = slot_of(fns, fn);
    if (slot < 0) mpcr_ompi_unsupported(what);
    int m = 0;
    int err = create(trampolines[slot], errhandler ? &m : NULL);
    if (!err) *errhandler = P(m);
    return ERR_OUT(err);
}
#define CREATE_ERRHANDLER(Kind, fns, trampolines)                                                  \
    int PMPI_##Kind##_create_errhandler(MPI_##Kind##_errhandler_function *fn,                      \
                                        MPI_Errhandler *errhandler)                                \
    {                                                                                              \
        return create_errhandler(fns, trampolines, mpcr_mpich_PMPI_##Kind##_create_errhandler,     \
                                 (void *)fn, errhandler,                                           \
                                 "MPI_" #Kind "_create_errhandler with more than 32 functions");   \
    }                                                                                              \
    extern __typeof__(PMPI_##Kind##_create_errhandler) MPI_##Kind##_create_errhandler              \
        __attribute__((weak, alias("PMPI_" #Kind "_create_errhandler")));

/* ---- communicators' and windows' error handlers: MPICH calls
 * f(&mpich_handle, &mpich_code); MPICH makes both of one kind, and so
 * they share the slots ---- */

typedef void handler_function(void *, int *, ...); /* MPI_Comm_errhandler_function... */
static void *eh_fns[SLOTS];
#define EH_TRAMPOLINE(i)                                                                           \
    static void eh_##i(int *handle, int *code, ...)                                                \
    {                                                                                              \
        void *h = P(*handle);                                                                      \
        int e = ERR_OUT(*code);                                                                    \
        ((handler_function *)eh_fns[i])(&h, &e);                                                   \
    }
EACH_SLOT(EH_TRAMPOLINE)
#define EH_NAME(i) (void *)eh_##i,
static void *const eh_trampolines[SLOTS] = {EACH_SLOT(EH_NAME)};

CREATE_ERRHANDLER(Comm, eh_fns, eh_trampolines)
CREATE_ERRHANDLER(Win, eh_fns, eh_trampolines)
#ifdef MPCR_FRONT_ABI /* sessions: MPI 4.0's, in the standard ABI, not in Open MPI 4.1's */
CREATE_ERRHANDLER(Session, eh_fns, eh_trampolines)
#endif

#ifndef MPCR_FRONT_ABI /* MPI-1's, not in the standard's ABI */
/* MPI-1's name of the same (MPI_Handler_function is MPI_Comm_errhandler_function) */
int PMPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}
extern __typeof__(PMPI_Errhandler_create) MPI_Errhandler_create
    __attribute__((weak, alias("PMPI_Errhandler_create")));
#endif

/* ---- files' error handlers: MPICH calls f(&mpich_file, &mpich_code), its
 * MPI_File of pointer size ---- */

static void *feh_fns[SLOTS];
#define FEH_TRAMPOLINE(i)                                                                          \
    static void feh_##i(void **file, int *code, ...)                                               \
    {                                                                                              \
        MPI_File f = P((int)(uintptr_t)*file);                                                     \
        int e = ERR_OUT(*code);                                                                    \
        ((MPI_File_errhandler_function *)feh_fns[i])(&f, &e);                                      \
    }
EACH_SLOT(FEH_TRAMPOLINE)
#define FEH_NAME(i) (void *)feh_##i,
static void *const feh_trampolines[SLOTS] = {EACH_SLOT(FEH_NAME)};

CREATE_ERRHANDLER(File, feh_fns, feh_trampolines)

/* ---- attribute callbacks of communicators, datatypes and windows: the
 * record is MPICH's extra_state. The three kinds' functions differ only in
 * the type of their object, a pointer in Open MPI's ABI: one record and one
 * pair of trampolines serve them all. ---- */

typedef int copy_function(void *object, int keyval, void *extra, void *in, void *out, int *flag);
typedef int delete_function(void *object, int keyval, void *value, void *extra);

struct keyval {
    copy_function *copy;
    delete_function *del;
    void *extra_state;
};

static int keyval_out(int k)
{
    return mpcr_ompi_value_out(MPCR_OMPI_keyval, k);
}

static int copy_trampoline(int object, int keyval, void *extra, void *in, void *out, int *flag)
{
    const struct keyval *k = extra;
    if (!k->copy) return *flag = 0, 0;
    return ERR_IN(k->copy(P(object), keyval_out(keyval), k->extra_state, in, out, flag));
}

static int delete_trampoline(int object, int keyval, void *value, void *extra)
{
    const struct keyval *k = extra;
    if (!k->del) return 0;
    return ERR_IN(k->del(P(object), keyval_out(keyval), value, k->extra_state));
}

/* What a predefined dup function does (MPI_COMM_DUP_FN...) */
static int dup_copy(void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

#ifdef MPCR_FRONT_ABI
/* The standard ABI's MPI_COMM_DUP_FN (and its kin) is the value 1: this. */
static int abi_dup_fn(void *o, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)o, (void)keyval, (void)extra;
    return dup_copy(in, out, flag);
}
#endif

/* A keyval by MPICH's create, with the program's functions in a record kept
 * while the program runs (MPICH may call them until the last attribute of
 * the keyval is deleted). */
static int create_keyval(int (*create)(void *, void *, int *, void *), void *copy, void *del,
                         int *keyval, void *extra_state)
{
    struct keyval *k = malloc(sizeof *k);
    if (!k) return MPI_ERR_NO_MEM;
#ifdef MPCR_FRONT_ABI
    if (copy == (void *)1) copy = (void *)abi_dup_fn; /* 0 (the null functions) is MPICH's too */
#endif
    *k = (struct keyval){(copy_function *)copy, (delete_function *)del, extra_state};
    int err = create((void *)copy_trampoline, (void *)delete_trampoline, keyval, k);
    if (err) free(k);
    else *keyval = keyval_out(*keyval);
    return ERR_OUT(err);
}

#define CREATE_KEYVAL(Name, copy_type, delete_type)                                                \
    int P##Name(copy_type *copy, delete_type *del, int *keyval, void *extra_state)                 \
    {                                                                                              \
        return create_keyval(mpcr_mpich_P##Name, (void *)copy, (void *)del, keyval, extra_state);  \
    }                                                                                              \
    extern __typeof__(P##Name) Name __attribute__((weak, alias("P" #Name)));
CREATE_KEYVAL(MPI_Comm_create_keyval, MPI_Comm_copy_attr_function, MPI_Comm_delete_attr_function)
/* MPI-1's keyvals: MPI_Copy_function's arguments are MPI_Comm_copy_attr_function's */
CREATE_KEYVAL(MPI_Keyval_create, MPI_Copy_function, MPI_Delete_function)
CREATE_KEYVAL(MPI_Type_create_keyval, MPI_Type_copy_attr_function, MPI_Type_delete_attr_function)
CREATE_KEYVAL(MPI_Win_create_keyval, MPI_Win_copy_attr_function, MPI_Win_delete_attr_function)

/* ---- generalized requests: the record is MPICH's extra_state; the query
 * function fills an Open MPI status, translated to MPICH's ---- */

struct grequest {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra_state;
};

static int grequest_query(void *extra, struct mpich_status *s)
{
    const struct grequest *g = extra;
    MPI_Status o;
    mpcr_ompi_status_out(s, &o); /* what the function leaves alone is kept */
    int err = g->query(g->extra_state, &o);
    mpcr_ompi_status_in(&o, s);
    return ERR_IN(err);
}

static int grequest_free(void *extra)
{
    struct grequest *g = extra;
    int err = g->free(g->extra_state);
    free(g);
    return ERR_IN(err);
}

static int grequest_cancel(void *extra, int complete)
{
    const struct grequest *g = extra;
    return ERR_IN(g->cancel(g->extra_state, complete));
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel, void *extra_state,
                        MPI_Request *request)
{
    struct grequest *g = malloc(sizeof *g);
    if (!g) return MPI_ERR_NO_MEM;
    *g = (struct grequest){query, free_fn, cancel, extra_state};
    int m = 0;
    int err = mpcr_mpich_PMPI_Grequest_start((void *)grequest_query, (void *)grequest_free,
                                             (void *)grequest_cancel, g, request ? &m : NULL);
    if (err) free(g);
    else *request = P(m);
    return ERR_OUT(err);
}
extern __typeof__(PMPI_Grequest_start) MPI_Grequest_start
    __attribute__((weak, alias("PMPI_Grequest_start")));

#ifndef MPCR_FRONT_ABI
/* ---- the predefined attribute callbacks (mpi.h's MPI_COMM_DUP_FN...): Open MPI's
 * are functions of its library; the standard ABI's are the values 0 and 1
 * (create_keyval) ---- */


static int null_copy(void *in, void *out, int *flag)
{
    (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

#define COPY_FN(name, object, how)                                                                 \
    int name(object o, int keyval, void *extra, void *in, void *out, int *flag)                    \
    {                                                                                              \
        (void)o, (void)keyval, (void)extra;                                                        \
        return how(in, out, flag);                                                                 \
    }
#define DELETE_FN(name, object)                                                                    \
    int name(object o, int keyval, void *value, void *extra)                                       \
    {                                                                                              \
        (void)o, (void)keyval, (void)value, (void)extra;                                           \
        return MPI_SUCCESS;                                                                        \
    }
/* Each object kind's null copy, dup and null delete functions. */
#define PREDEFINED_CALLBACKS(null_copy_fn, dup_fn, null_delete_fn, object)                          \
    COPY_FN(null_copy_fn, object, null_copy)                                                       \
    COPY_FN(dup_fn, object, dup_copy)                                                              \
    DELETE_FN(null_delete_fn, object)
PREDEFINED_CALLBACKS(OMPI_C_MPI_COMM_NULL_COPY_FN, OMPI_C_MPI_COMM_DUP_FN,
                     OMPI_C_MPI_COMM_NULL_DELETE_FN, MPI_Comm)
PREDEFINED_CALLBACKS(OMPI_C_MPI_NULL_COPY_FN, OMPI_C_MPI_DUP_FN, OMPI_C_MPI_NULL_DELETE_FN, MPI_Comm)
PREDEFINED_CALLBACKS(OMPI_C_MPI_TYPE_NULL_COPY_FN, OMPI_C_MPI_TYPE_DUP_FN,
                     OMPI_C_MPI_TYPE_NULL_DELETE_FN, MPI_Datatype)
PREDEFINED_CALLBACKS(OMPI_C_MPI_WIN_NULL_COPY_FN, OMPI_C_MPI_WIN_DUP_FN,
                     OMPI_C_MPI_WIN_NULL_DELETE_FN, MPI_Win)
#endif
