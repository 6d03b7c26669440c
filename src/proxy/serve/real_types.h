/* Real datatypes in the proxy (docs/datatypes.md, "Real datatypes in the
 * proxy"): the real MPI's datatype equivalent to one of the library's,
 * built from the definition the library sends (TYPE_DEFINE), kept under
 * the library's handle until TYPE_FORGET, and looked up by the calls that
 * hand the real MPI a datatype (TYPE_PACK today; one-sided targets,
 * accumulates and file views next). Nothing here survives the proxy: after
 * a restart the library defines its types again in the new proxy, on
 * demand, so nothing goes into the state file. */
#ifndef MPCR_PROXY_REAL_TYPES_H
#define MPCR_PROXY_REAL_TYPES_H

#include "proxy.h"

/* This MPI's datatype for a type id of the channel (channel.h: a
 * predefined type's MPICH handle, or a handle TYPE_DEFINE defined), or
 * MPI_DATATYPE_NULL when it names none here. */
MPI_Datatype real_type(uint32_t id);

/* Builds a committed real datatype from a definition (struct mpcr_type_def,
 * `bytes` long, already copied out of the program's reach) that is not put
 * in the cache: the caller releases *out with real_type_release (a file's
 * view keeps its definitions and builds them again in a new proxy). With
 * the int constructors only (MPICH 4.0.2's ROMIO refuses a view made with
 * _c ones); a predefined type is itself. A real error code; msg says why. */
int real_type_build(const char *def, uint64_t bytes, MPI_Datatype *out, char *msg, size_t cap);
/* Frees what real_type_build made (nothing for a predefined type). */
void real_type_release(MPI_Datatype *t);

/* The channel's handlers (serve.c dispatches to them). */
void op_type_define(const struct mpcr_call *c, struct mpcr_reply *r);
void op_type_forget(const struct mpcr_call *c, struct mpcr_reply *r);
void op_type_pack(const struct mpcr_call *c, struct mpcr_reply *r);

#endif
