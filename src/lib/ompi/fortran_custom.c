/* The Fortran entry points written by hand (the `custom` lines of
 * fortran_exports.txt): those whose Fortran binding is not the C one by
 * reference — MPI_INIT without argc/argv, attribute values that are
 * integers, the MPI-1 functions taking addresses as INTEGER, user functions
 * (reduction ops, error handlers, attribute copy and delete functions)
 * called with Fortran's arguments. docs/abi-openmpi.md, "Fortran". */
#include "ompi/fortran.h"
#include "ompi/ompi_front.h"

#include <stdint.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define ENTRY(NAME, name) MPCR_F_NAMES(ompi_##name##_f, mpi_##name, MPI_##NAME, pmpi_##name, PMPI_##NAME)
#define RETURN(e) (*ierr = (e))

void ompi_init_f(MPI_Fint *ierr) { RETURN(PMPI_Init(NULL, NULL)); }
ENTRY(INIT, init)

void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    RETURN(PMPI_Init_thread(NULL, NULL, *required, provided));
}
ENTRY(INIT_THREAD, init_thread)

/* Fortran's buffer argument is the buffer itself, not where to write its address */
void ompi_buffer_detach_f(void *buffer, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)buffer;
    void *address;
    RETURN(PMPI_Buffer_detach(&address, size));
}
ENTRY(BUFFER_DETACH, buffer_detach)

void ompi_pcontrol_f(MPI_Fint *level) { PMPI_Pcontrol(*level); }
ENTRY(PCONTROL, pcontrol)

void ompi_f_sync_reg_f(void *buf) { (void)buf; } /* a barrier for the compiler only */
ENTRY(F_SYNC_REG, f_sync_reg)

MPI_Aint ompi_aint_add_f(MPI_Aint *base, MPI_Aint *disp) { return *base + *disp; }
ENTRY(AINT_ADD, aint_add)
MPI_Aint ompi_aint_diff_f(MPI_Aint *addr1, MPI_Aint *addr2) { return *addr1 - *addr2; }
ENTRY(AINT_DIFF, aint_diff)

/* ---- attributes: the MPICH library's, set and read with their Fortran
 * kind (src/lib/env/fortran_attr.c, the entry points MPICH's own Fortran
 * library calls): a C reader of a Fortran value gets a pointer to it, a
 * Fortran reader of a C value the address (MPI 4.0 section 19.3.7) ---- */

enum attr_kind { ATTR_AINT = 1, ATTR_INT = 3 }; /* MPICH's MPIR_Attr_type */
int MPII_Comm_set_attr(int comm, int keyval, void *value, int kind);
int MPII_Comm_get_attr(int comm, int keyval, void *value, int *flag, int reader);
int MPII_Type_set_attr(int type, int keyval, void *value, int kind);
int MPII_Type_get_attr(int type, int keyval, void *value, int *flag, int reader);
int MPII_Win_set_attr(int win, int keyval, void *value, int kind);
int MPII_Win_get_attr(int win, int keyval, void *value, int *flag, int reader);

#define MPICH(Kind, f) mpcr_ompi_handle(PMPI_##Kind##_f2c(f))
#define KEYVAL_IN(k) mpcr_ompi_value_in(MPCR_OMPI_keyval, k)
#define ERR_OUT(e) ((e) ? mpcr_ompi_value_out(MPCR_OMPI_errclass, e) : MPI_SUCCESS)

/* The predefined attributes (MPI_TAG_UB..., MPI_WIN_BASE...): the keyvals
 * whose numbers differ between the ABIs. Fortran reads their values: C's
 * point at an int (at an MPI_Aint for MPI_WIN_SIZE; MPI_WIN_BASE's is the
 * address itself). */
static int predefined(MPI_Fint keyval)
{
    return KEYVAL_IN(keyval) != keyval;
}

static MPI_Aint predefined_value(MPI_Fint keyval, void *v)
{
    if (keyval == MPI_WIN_BASE) return (MPI_Aint)(intptr_t)v;
    if (keyval == MPI_WIN_SIZE) return *(MPI_Aint *)v;
    return *(int *)v;
}

#define ATTRIBUTES(Kind, value_t, attr_kind, set, get)                                 \
    void ompi_##set##_f(MPI_Fint *obj, MPI_Fint *keyval, value_t *value, MPI_Fint *ierr)           \
    {                                                                                              \
        RETURN(ERR_OUT(MPII_##Kind##_set_attr(MPICH(Kind, *obj), KEYVAL_IN(*keyval),               \
                                              (void *)(intptr_t)*value, attr_kind)));              \
    }                                                                                              \
    void ompi_##get##_f(MPI_Fint *obj, MPI_Fint *keyval, value_t *value, MPI_Fint *flag,           \
                        MPI_Fint *ierr)                                                            \
    {                                                                                              \
        void *v = NULL;                                                                            \
        if (predefined(*keyval)) { /* C's answer, in Open MPI's numbers (MPI_HOST is a rank) */   \
            RETURN(PMPI_##Kind##_get_attr(PMPI_##Kind##_f2c(*obj), *keyval, &v, flag));           \
            if (*ierr == MPI_SUCCESS && *flag) *value = (value_t)predefined_value(*keyval, v);     \
            return;                                                                                \
        }                                                                                          \
        RETURN(ERR_OUT(MPII_##Kind##_get_attr(MPICH(Kind, *obj), KEYVAL_IN(*keyval), &v, flag,     \
                                              attr_kind)));                                        \
        if (*ierr == MPI_SUCCESS && *flag) *value = (value_t)(intptr_t)v;                          \
    }
ATTRIBUTES(Comm, MPI_Aint, ATTR_AINT, comm_set_attr, comm_get_attr)
ENTRY(COMM_SET_ATTR, comm_set_attr)
ENTRY(COMM_GET_ATTR, comm_get_attr)
ATTRIBUTES(Type, MPI_Aint, ATTR_AINT, type_set_attr, type_get_attr)
ENTRY(TYPE_SET_ATTR, type_set_attr)
ENTRY(TYPE_GET_ATTR, type_get_attr)
ATTRIBUTES(Win, MPI_Aint, ATTR_AINT, win_set_attr, win_get_attr)
ENTRY(WIN_SET_ATTR, win_set_attr)
ENTRY(WIN_GET_ATTR, win_get_attr)
/* MPI-1's, with INTEGER values */
ATTRIBUTES(Comm, MPI_Fint, ATTR_INT, attr_put, attr_get)
ENTRY(ATTR_PUT, attr_put)
ENTRY(ATTR_GET, attr_get)

/* A keyval made from Fortran is the MPICH library's, with language proxies
 * (MPII_Keyval_set_proxy) that call its Fortran copy and delete functions
 * with Open MPI's Fortran handles and keyvals, by reference; MPI-1's
 * (MPI_KEYVAL_CREATE) with INTEGER values and extra state, the others with
 * INTEGER(KIND=MPI_ADDRESS_KIND). Open MPI's predefined ones
 * (MPI_COMM_DUP_FN..., fortran_objects.c) are Fortran functions too. */
typedef int copy_proxy(void *fn, int handle, int keyval, void *extra, int kind, void *value,
                       void **copy, int *flag);
typedef int delete_proxy(void *fn, int handle, int keyval, int kind, void *value, void *extra);
void MPII_Keyval_set_proxy(int keyval, copy_proxy *copy, delete_proxy *del);

#define FORTRAN_HANDLE(h) mpcr_ompi_c2f(mpcr_ompi_pointer(h))
#define KEYVAL_OUT(k) mpcr_ompi_value_out(MPCR_OMPI_keyval, k)
#define PROXIES(name, value_t)                                                                     \
    static int name##_copy(void *fn, int handle, int keyval, void *extra, int kind, void *value,   \
                           void **copy, int *flag)                                                 \
    {                                                                                              \
        (void)kind;                                                                                \
        MPI_Fint h = FORTRAN_HANDLE(handle), k = KEYVAL_OUT(keyval), f = 0, ierr = MPI_SUCCESS;    \
        value_t e = (value_t)(intptr_t)extra, in = (value_t)(intptr_t)value, out = 0;              \
        ((void (*)(MPI_Fint *, MPI_Fint *, value_t *, value_t *, value_t *, MPI_Fint *,            \
                   MPI_Fint *))fn)(&h, &k, &e, &in, &out, &f, &ierr);                              \
        *copy = (void *)(intptr_t)out;                                                             \
        *flag = f != 0;                                                                            \
        return ierr;                                                                               \
    }                                                                                              \
    static int name##_delete(void *fn, int handle, int keyval, int kind, void *value, void *extra) \
    {                                                                                              \
        (void)kind;                                                                                \
        MPI_Fint h = FORTRAN_HANDLE(handle), k = KEYVAL_OUT(keyval), ierr = MPI_SUCCESS;           \
        value_t e = (value_t)(intptr_t)extra, v = (value_t)(intptr_t)value;                        \
        ((void (*)(MPI_Fint *, MPI_Fint *, value_t *, value_t *, MPI_Fint *))fn)(&h, &k, &v, &e,   \
                                                                                  &ierr);          \
        return ierr;                                                                               \
    }
PROXIES(aint, MPI_Aint)
PROXIES(fint, MPI_Fint)

int mpcr_mpich_PMPI_Comm_create_keyval(void *, void *, int *, void *);
int mpcr_mpich_PMPI_Type_create_keyval(void *, void *, int *, void *);
int mpcr_mpich_PMPI_Win_create_keyval(void *, void *, int *, void *);
int mpcr_mpich_PMPI_Keyval_create(void *, void *, int *, void *);

#define CREATE_KEYVAL(Name, NAME, name, value_t, proxies)                                          \
    void ompi_##name##_f(void *copy, void *delete, MPI_Fint *keyval, value_t *extra,               \
                         MPI_Fint *ierr)                                                           \
    {                                                                                              \
        int k;                                                                                     \
        RETURN(ERR_OUT(mpcr_mpich_P##Name(copy, delete, &k, (void *)(intptr_t)*extra)));           \
        if (*ierr != MPI_SUCCESS) return;                                                          \
        MPII_Keyval_set_proxy(k, proxies##_copy, proxies##_delete);                                \
        *keyval = KEYVAL_OUT(k);                                                                   \
    }                                                                                              \
    ENTRY(NAME, name)
CREATE_KEYVAL(MPI_Comm_create_keyval, COMM_CREATE_KEYVAL, comm_create_keyval, MPI_Aint, aint)
CREATE_KEYVAL(MPI_Type_create_keyval, TYPE_CREATE_KEYVAL, type_create_keyval, MPI_Aint, aint)
CREATE_KEYVAL(MPI_Win_create_keyval, WIN_CREATE_KEYVAL, win_create_keyval, MPI_Aint, aint)
CREATE_KEYVAL(MPI_Keyval_create, KEYVAL_CREATE, keyval_create, MPI_Fint, fint)

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

/* ---- MPI-1's addresses as INTEGER ---- */

/* An address or extent cut to an INTEGER, as Open MPI's Fortran library
 * does (MPI-2 made the MPI_Aint versions because they do not fit): only
 * differences of addresses mean something then. */
static int cut(MPI_Aint a, MPI_Fint *out)
{
    *out = (MPI_Fint)a;
    return MPI_SUCCESS;
}

void ompi_address_f(void *location, MPI_Fint *address, MPI_Fint *ierr)
{
    MPI_Aint a;
    RETURN(PMPI_Get_address(mpcr_f_buf(location), &a));
    if (*ierr == MPI_SUCCESS) RETURN(cut(a, address));
}
ENTRY(ADDRESS, address)

#define EXTENT(KIND, kind, call)                                                             \
    void ompi_##kind##_f(MPI_Fint *type, MPI_Fint *out, MPI_Fint *ierr)                            \
    {                                                                                              \
        MPI_Aint a;                                                                                \
        RETURN(call);                                                                              \
        if (*ierr == MPI_SUCCESS) RETURN(cut(a, out));                                            \
    }                                                                                              \
    ENTRY(KIND, kind)
EXTENT(TYPE_EXTENT, type_extent, PMPI_Type_extent(PMPI_Type_f2c(*type), &a))
EXTENT(TYPE_LB, type_lb, PMPI_Type_lb(PMPI_Type_f2c(*type), &a))
EXTENT(TYPE_UB, type_ub, PMPI_Type_ub(PMPI_Type_f2c(*type), &a))

void ompi_type_hvector_f(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                         MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t;
    RETURN(PMPI_Type_create_hvector(*count, *blocklength, *stride, PMPI_Type_f2c(*oldtype), &t));
    if (*ierr == MPI_SUCCESS) *newtype = PMPI_Type_c2f(t);
}
ENTRY(TYPE_HVECTOR, type_hvector)

static MPI_Aint *addresses(const MPI_Fint *f, int n)
{
    MPI_Aint *a = mpcr_f_array(f, n, sizeof *a);
    for (int i = 0; i < n; i++) a[i] = f[i];
    return a;
}

void ompi_type_hindexed_f(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                          MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint *d = addresses(displacements, *count);
    MPI_Datatype t;
    RETURN(PMPI_Type_create_hindexed(*count, blocklengths, d, PMPI_Type_f2c(*oldtype), &t));
    if (*ierr == MPI_SUCCESS) *newtype = PMPI_Type_c2f(t);
    free(d);
}
ENTRY(TYPE_HINDEXED, type_hindexed)

void ompi_type_struct_f(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                        MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint *d = addresses(displacements, *count);
    MPI_Datatype *c = mpcr_f_array(types, *count, sizeof *c), t;
    for (int i = 0; i < *count; i++) c[i] = PMPI_Type_f2c(types[i]);
    RETURN(PMPI_Type_create_struct(*count, blocklengths, d, c, &t));
    if (*ierr == MPI_SUCCESS) *newtype = PMPI_Type_c2f(t);
    free(d);
    free(c);
}
ENTRY(TYPE_STRUCT, type_struct)

void ompi_type_get_contents_f(MPI_Fint *type, MPI_Fint *max_integers, MPI_Fint *max_addresses,
                              MPI_Fint *max_datatypes, MPI_Fint *integers, MPI_Aint *addresses,
                              MPI_Fint *datatypes, MPI_Fint *ierr)
{
    MPI_Datatype *c = mpcr_f_array(datatypes, *max_datatypes, sizeof *c);
    RETURN(PMPI_Type_get_contents(PMPI_Type_f2c(*type), *max_integers, *max_addresses,
                                  *max_datatypes, integers, addresses, c));
    for (int i = 0; *ierr == MPI_SUCCESS && i < *max_datatypes; i++)
        datatypes[i] = PMPI_Type_c2f(c[i]);
    free(c);
}
ENTRY(TYPE_GET_CONTENTS, type_get_contents)

/* ---- MPI_SIZEOF: the `use mpi` module's specific procedures, one per
 * type and rank (mpi_sizeof_int32_r2_...): the size of one element ---- */

static void sizeof_element(MPI_Fint bytes, MPI_Fint *size, MPI_Fint *ierr)
{
    *size = bytes;
    *ierr = MPI_SUCCESS;
}
#define SIZEOF(type, bytes)                                                                        \
    static void sizeof_##type(void *x, MPI_Fint *size, MPI_Fint *ierr)                             \
    {                                                                                              \
        (void)x;                                                                                   \
        sizeof_element(bytes, size, ierr);                                                         \
    }                                                                                              \
    SIZEOF_NAMES(sizeof_##type, mpi_sizeof_##type) SIZEOF_NAMES(sizeof_##type, pmpi_sizeof_##type)
#define SIZEOF_NAMES(impl, name)                                                                   \
    MPCR_F_ALIAS(impl, name##_scalar_) MPCR_F_ALIAS(impl, name##_r1_) MPCR_F_ALIAS(impl, name##_r2_) \
    MPCR_F_ALIAS(impl, name##_r3_) MPCR_F_ALIAS(impl, name##_r4_) MPCR_F_ALIAS(impl, name##_r5_)  \
    MPCR_F_ALIAS(impl, name##_r6_) MPCR_F_ALIAS(impl, name##_r7_) MPCR_F_ALIAS(impl, name##_r8_)  \
    MPCR_F_ALIAS(impl, name##_r9_) MPCR_F_ALIAS(impl, name##_r10_) MPCR_F_ALIAS(impl, name##_r11_) \
    MPCR_F_ALIAS(impl, name##_r12_) MPCR_F_ALIAS(impl, name##_r13_) MPCR_F_ALIAS(impl, name##_r14_) \
    MPCR_F_ALIAS(impl, name##_r15_)
SIZEOF(int8, 1)
SIZEOF(int16, 2)
SIZEOF(int32, 4)
SIZEOF(int64, 8)
SIZEOF(real32, 4)
SIZEOF(real64, 8)
SIZEOF(real128, 16)
SIZEOF(complex32, 8) /* COMPLEX of REAL32 */
SIZEOF(complex64, 16)
SIZEOF(complex128, 32)
SIZEOF(logical, 4) /* default LOGICAL */
/* CHARACTER: the length, which gfortran passes after the arguments */
static void sizeof_character(void *x, MPI_Fint *size, MPI_Fint *ierr, size_t len)
{
    (void)x;
    sizeof_element((MPI_Fint)len, size, ierr);
}
SIZEOF_NAMES(sizeof_character, mpi_sizeof_character)
SIZEOF_NAMES(sizeof_character, pmpi_sizeof_character)
