/* Datatype handles, info objects, keyvals with attributes, user error
 * handlers: the library-side objects of MPI 4.0 chapters 5, 7.7, 9 and 10.
 * Each is an object of the handle system (handle.h) in the application's
 * heap, so it is in every image and keeps its handle value across a
 * restart; none has a counterpart in the proxy. */
#ifndef MPCR_DTYPE_H
#define MPCR_DTYPE_H

#include "lib.h"

#include <errno.h>

/* ---- derived datatypes (datatype.c) ---- */

/* A derived datatype's handle object: the type map it names (one
 * reference) and the program's name for it. */
struct mpcr_dtype {
    struct mpcr_object h;
    struct mpcr_type *t;
    char name[MPI_MAX_OBJECT_NAME];
    pid_t real_proxy; /* the proxy that has its real datatype (real_type.c), or 0 */
};
/* Gives t (its creator's reference is taken over) a new handle in *out; on
 * failure t is released and MPI_ERR_NO_MEM returned. */
int mpcr_dtype_new(struct mpcr_type *t, MPI_Datatype *out);
/* The derived datatype a handle names, or NULL (predefined, freed, garbage). */
struct mpcr_dtype *mpcr_dtype_get(MPI_Datatype h);
/* The predefined handle whose type map t is, or MPI_DATATYPE_NULL. */
MPI_Datatype mpcr_type_predefined_handle(const struct mpcr_type *t);
/* The name slot of a predefined type (MPI_Type_set_name may change it), or NULL. */
char *mpcr_type_builtin_name(MPI_Datatype h);
/* The swap unit of a basic predefined type (1, 2, 4, 8, 16: a complex's
 * part) and in *ext32 its size in external32 (MPI_LONG: 4); 0 for the pair
 * types and markers. */
int mpcr_type_builtin_unit(MPI_Datatype h, int *ext32);

/* Converts a typemap errno to an MPI error class. */
static inline int mpcr_type_errclass(int neg_errno)
{
    return neg_errno == -EINVAL   ? MPI_ERR_ARG
           : neg_errno == -ENOMEM ? MPI_ERR_NO_MEM
                                  : MPI_ERR_OTHER;
}

/* ---- attributes (attr.c) ---- */

/* The objects attributes attach to: communicator, datatype, window. */
enum mpcr_attr_on { MPCR_ATTR_COMM, MPCR_ATTR_TYPE, MPCR_ATTR_WIN };
/* Copies the attributes of object `from` to `to` as MPI's dup does (each
 * keyval's copy callback decides), `from_handle` being what the callbacks
 * are given. An MPI error class (a callback's failure) or MPI_SUCCESS. */
int mpcr_attr_copy_all(enum mpcr_attr_on on, uint32_t from, uint32_t to);
/* Deletes every attribute of an object being freed, running the delete
 * callbacks (last set first); the first callback's failure is returned. */
int mpcr_attr_delete_all(enum mpcr_attr_on on, uint32_t handle);

/* How an attribute's value was given, with MPICH's values of
 * MPIR_Attr_type (libmpichfort.so.12 passes them): a C pointer, a Fortran
 * address-sized integer (MPI_COMM_SET_ATTR), a Fortran INTEGER
 * (MPI_ATTR_PUT). As a reader's kind: the language reading it. */
enum mpcr_attr_kind { MPCR_ATTR_PTR = 0, MPCR_ATTR_AINT = 1, MPCR_ATTR_INT = 3 };
/* MPICH's language proxies (MPII_Attr_copy_proxy / MPII_Attr_delete_proxy):
 * they call a keyval's callbacks `fn` with another language's conventions. */
typedef int mpcr_attr_copy_proxy(MPI_Comm_copy_attr_function *fn, int handle, int keyval,
                                 void *extra_state, enum mpcr_attr_kind kind, void *value,
                                 void **copy, int *flag);
typedef int mpcr_attr_delete_proxy(MPI_Comm_delete_attr_function *fn, int handle, int keyval,
                                   enum mpcr_attr_kind kind, void *value, void *extra_state);
/* Sets, reads an attribute of the object with handle `object`, the value
 * being given / read as `kind` (an MPI error class or MPI_SUCCESS). */
int mpcr_attr_set(enum mpcr_attr_on on, uint32_t object, int keyval, void *value,
                  enum mpcr_attr_kind kind);
int mpcr_attr_get(enum mpcr_attr_on on, uint32_t object, int keyval, void *value, int *flag,
                  enum mpcr_attr_kind reader);
/* mpcr_attr_get for communicators, the predefined attributes included. */
int mpcr_attr_comm_get(struct mpcr_comm *c, int keyval, void *value, int *flag,
                       enum mpcr_attr_kind reader);
/* A window's predefined attributes (win.c: MPI_WIN_BASE...; MPI_ERR_KEYVAL
 * for another keyval). */
struct mpcr_win;
int mpcr_win_predefined(struct mpcr_win *w, int keyval, void *value, int *flag);
/* Makes keyval's callbacks run through the proxies (an invalid keyval: nothing). */
void mpcr_keyval_set_proxy(int keyval, mpcr_attr_copy_proxy *copy, mpcr_attr_delete_proxy *del);

/* The handle of a communicator object, MPI_COMM_WORLD and SELF included. */
MPI_Comm mpcr_comm_handle_of(struct mpcr_comm *c);

/* ---- error handlers (errhandler.c) and codes (errors.c) ---- */
/* Calls e's function with comm and err when e is a user handler (1), else 0. */
int mpcr_errhandler_call(MPI_Errhandler e, MPI_Comm comm, int err);
/* The largest error code in use (MPI_LASTUSEDCODE). */
int mpcr_last_used_code(void);

#endif
