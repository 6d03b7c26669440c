/* Reduction operations: the predefined ones (op.c) and those the program
 * defines (op_user.c, MPI_Op_create): the function
 * lives in the program, so reductions run in the library (DESIGN section
 * 5), and the op object in the program's heap, so it is in every image and
 * its function pointer is still right after a restart. */
#ifndef MPCR_OP_H
#define MPCR_OP_H

#include <mpi.h>

#include "runtime/handle.h"

struct mpcr_user_op {
    struct mpcr_object h;
    MPI_User_function *fn;     /* MPI_Op_create's */
    MPI_User_function_c *fn_c; /* or MPI_Op_create_c's */
    int commute;
};

/* The program's op named by handle, or NULL (predefined, freed, garbage). */
const struct mpcr_user_op *mpcr_user_op_get(MPI_Op op);
/* inout = in op inout, by the program's function: 0 (its return value is
 * not an error class MPI defines). */
int mpcr_user_op_apply(const struct mpcr_user_op *u, MPI_Datatype type, const void *in, void *inout,
                       MPI_Count count);
/* One of the predefined ops a reduction accepts (op.c). */
int mpcr_op_predefined(MPI_Op op);
/* A predefined op or the program's: an argument check of the generated entry points. */
int mpcr_op_valid(MPI_Op op);

#endif
