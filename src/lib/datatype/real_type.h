/* Real datatypes in the proxy, the library's side (real_type.c;
 * docs/datatypes.md, "Real datatypes in the proxy"): a datatype's
 * definition (its constructors down to predefined types) sent to the proxy,
 * which builds the real MPI's equivalent and keeps it under the handle. */
#ifndef MPCR_REAL_TYPE_H
#define MPCR_REAL_TYPE_H

#include "dtype.h"

/* The id by which the proxy knows datatype h (channel.h: a predefined
 * type's handle, or a derived type's handle once the proxy has its
 * definition), the definition sent first if this proxy does not have it
 * yet (the first use, or the first after a restart). MPI_SUCCESS, or the
 * error class of the proxy's refusal (its message reported). A call that
 * uses the id must treat the proxy's MPCR_TYPE_UNKNOWN (a restart between
 * the two) by calling mpcr_real_type_redefine and asking again. */
int mpcr_real_type_id(MPI_Datatype h, uint32_t *id);
int mpcr_real_type_redefine(MPI_Datatype h);
/* t's definition as TYPE_DEFINE carries it (channel.h), malloc'ed into
 * *out, *bytes long; for a caller that keeps it with something of its own
 * (a file's view: src/lib/io). MPI_ERR_TYPE for a part without a name. */
int mpcr_real_type_def(const struct mpcr_type *t, char **out, uint64_t *bytes);
/* d's handle is being destroyed: the proxy frees its real type (datatype.c). */
void mpcr_real_type_forget(struct mpcr_dtype *d);

/* MPCR_CHECK_REAL_TYPES=1: at every MPI_Type_commit, the proxy packs 1, 2
 * and 3 elements of the type through its real datatype and the library
 * compares with its own pack (and the bounds); a difference ends the job,
 * naming the type. A summary goes to stderr at exit. */
int mpcr_real_type_checking(void);
int mpcr_real_type_check(MPI_Datatype h);

#endif
