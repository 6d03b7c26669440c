/* Attribute caching (attr.c, MPI 4.0 section 7.7), for the objects that
 * carry attributes (communicators, datatypes, windows) and for
 * fortran_attr.c: keyvals with their callbacks, attributes set and read. */
#ifndef MPCR_ATTR_H
#define MPCR_ATTR_H

#include <mpi.h>
#include <stdint.h>

struct mpcr_comm;

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
/* Makes keyval's callbacks run through the proxies (an invalid keyval: nothing). */
void mpcr_keyval_set_proxy(int keyval, mpcr_attr_copy_proxy *copy, mpcr_attr_delete_proxy *del);
/* The attribute hooks of MPI_Comm_dup (copy callbacks; an MPI error class)
 * and of MPI_Comm_free (delete callbacks; an MPI error class). */
int mpcr_attr_comm_dup(struct mpcr_comm *from, struct mpcr_comm *to);
int mpcr_attr_comm_free(struct mpcr_comm *c);

#endif
