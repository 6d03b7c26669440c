/* MPI_Op_create(_c), MPI_Op_free, MPI_Op_commutative (op.h). */
#include "api_gen.h"
#include "coll.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "op.h"
#include "runtime/handle.h"

#include <limits.h>

const struct mpcr_user_op *mpcr_user_op_get(MPI_Op op)
{
    return mpcr_obj_get(MPCR_KIND_OP, (uint32_t)op);
}

int mpcr_user_op_apply(const struct mpcr_user_op *u, MPI_Datatype type, const void *in, void *inout,
                       MPI_Count count)
{
    if (!in || count == 0) return MPI_SUCCESS; /* a check only: any type will do */
    if (u->fn_c) {
        u->fn_c((void *)in, inout, &count, &type);
        return MPI_SUCCESS;
    }
    /* The int form's function takes an int count: pieces of at most INT_MAX. */
    const struct mpcr_type *t = mpcr_type_get(type);
    for (MPI_Count done = 0; done < count;) {
        int len = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        u->fn((char *)in + done * t->extent, (char *)inout + done * t->extent, &len, &type);
        done += len;
    }
    return MPI_SUCCESS;
}

static int create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op)
{
    if ((!fn && !fn_c) || !op) return MPI_ERR_ARG;
    struct mpcr_user_op *u = mpcr_obj_new(MPCR_KIND_OP, sizeof *u, NULL);
    if (!u) return MPI_ERR_NO_MEM;
    u->fn = fn, u->fn_c = fn_c, u->commute = commute != 0;
    *op = (MPI_Op)mpcr_obj_handle(u);
    return MPI_SUCCESS;
}

int mpcr_impl_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return create(user_fn, NULL, commute, op);
}

int mpcr_impl_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return create(NULL, user_fn, commute, op);
}

/* A predefined op cannot be freed (MPI 4.0 section 6.9.5). */
int mpcr_impl_Op_free(MPI_Op *op)
{
    if (!op) return MPI_ERR_ARG;
    struct mpcr_user_op *u = (struct mpcr_user_op *)mpcr_user_op_get(*op);
    if (!u) return MPI_ERR_OP;
    mpcr_obj_drop_handle(u);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Op_commutative(MPI_Op op, int *commute)
{
    if (!commute) return MPI_ERR_ARG;
    const struct mpcr_user_op *u = mpcr_user_op_get(op);
    *commute = u ? u->commute : 1;
    return MPI_SUCCESS;
}

int mpcr_op_commutes(MPI_Op op)
{
    const struct mpcr_user_op *u = mpcr_user_op_get(op);
    return u ? u->commute : 1;
}
