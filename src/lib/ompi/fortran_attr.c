/* Attributes and keyvals from Fortran (the `custom` lines of
 * fortran_exports.txt): Fortran's attribute values are integers, C's
 * pointers, and a keyval made from Fortran calls Fortran copy and delete
 * functions. docs/abi-openmpi.md, "Fortran". */
#include "ompi/fortran.h"
#include "ompi/ompi_front.h"

#include <stdint.h>
#include <stdlib.h>

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
