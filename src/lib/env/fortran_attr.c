/* The MPICH-internal entry points that MPICH's own Fortran library,
 * libmpichfort.so.12, calls besides the MPI functions (docs/fortran.md):
 * attributes set and read with their Fortran kind (MPI_ATTR_PUT's INTEGER,
 * MPI_COMM_SET_ATTR's INTEGER(KIND=MPI_ADDRESS_KIND)), the language
 * proxies of keyvals created from Fortran, and generalized requests'
 * Fortran callbacks. Names and arguments are MPICH 4.0.2's; the kinds are
 * MPICH's MPIR_Attr_type values (enum mpcr_attr_kind in attr.h). The
 * attributes themselves are attr.c's, so C and Fortran share them (MPI 4.0
 * section 19.3.7). */
#include "api/api.h"
#include "attr.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "errors.h"
#include "pt2pt/p2p.h"
#include "runtime/threads.h"

/* Exported under MPICH's names (exports.map lets MPII_* through). */
int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag,
                       enum mpcr_attr_kind reader);
int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, enum mpcr_attr_kind kind);
int MPII_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag,
                       enum mpcr_attr_kind reader);
int MPII_Type_set_attr(MPI_Datatype type, int keyval, void *value, enum mpcr_attr_kind kind);
int MPII_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag, enum mpcr_attr_kind reader);
int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, enum mpcr_attr_kind kind);
void MPII_Keyval_set_proxy(int keyval, mpcr_attr_copy_proxy *copy, mpcr_attr_delete_proxy *del);
void MPII_Grequest_set_lang_f77(MPI_Request request);

/* Errors go through the object's error handler as in the C functions,
 * named by the Fortran call that made them. */
int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag,
                       enum mpcr_attr_kind reader)
{
    static const char fn[] = "MPI_COMM_GET_ATTR";
    MPCR_REQUIRE_INIT(fn);
    MPCR_SERIALIZED_CALL();
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error(NULL, MPI_ERR_COMM, fn);
    int err = mpcr_attr_comm_get(c, keyval, value, flag, reader);
    return err ? mpcr_error(c, err, fn) : MPI_SUCCESS;
}

int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, enum mpcr_attr_kind kind)
{
    static const char fn[] = "MPI_COMM_SET_ATTR";
    MPCR_REQUIRE_INIT(fn);
    MPCR_SERIALIZED_CALL();
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error(NULL, MPI_ERR_COMM, fn);
    int err = mpcr_attr_set(MPCR_ATTR_COMM, (uint32_t)mpcr_comm_handle_of(c), keyval, value, kind);
    return err ? mpcr_error(c, err, fn) : MPI_SUCCESS;
}

int MPII_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag,
                       enum mpcr_attr_kind reader)
{
    static const char fn[] = "MPI_TYPE_GET_ATTR";
    MPCR_REQUIRE_INIT(fn);
    MPCR_SERIALIZED_CALL();
    if (!mpcr_type_get(type)) return mpcr_error(NULL, MPI_ERR_TYPE, fn);
    int err = mpcr_attr_get(MPCR_ATTR_TYPE, (uint32_t)type, keyval, value, flag, reader);
    return err ? mpcr_error(NULL, err, fn) : MPI_SUCCESS;
}

int MPII_Type_set_attr(MPI_Datatype type, int keyval, void *value, enum mpcr_attr_kind kind)
{
    static const char fn[] = "MPI_TYPE_SET_ATTR";
    MPCR_REQUIRE_INIT(fn);
    MPCR_SERIALIZED_CALL();
    if (!mpcr_type_get(type)) return mpcr_error(NULL, MPI_ERR_TYPE, fn);
    int err = mpcr_attr_set(MPCR_ATTR_TYPE, (uint32_t)type, keyval, value, kind);
    return err ? mpcr_error(NULL, err, fn) : MPI_SUCCESS;
}

/* Windows do not exist yet (their C functions are stubs too). */
int MPII_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag, enum mpcr_attr_kind reader)
{
    (void)win, (void)keyval, (void)value, (void)flag, (void)reader;
    mpcr_unsupported_feature("MPI_WIN_GET_ATTR from Fortran (windows)");
}

int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, enum mpcr_attr_kind kind)
{
    (void)win, (void)keyval, (void)value, (void)kind;
    mpcr_unsupported_feature("MPI_WIN_SET_ATTR from Fortran (windows)");
}

/* libmpichfort creates a Fortran keyval with the C function, then hands
 * over the proxies that call the Fortran callbacks by reference. */
void MPII_Keyval_set_proxy(int keyval, mpcr_attr_copy_proxy *copy, mpcr_attr_delete_proxy *del)
{
    MPCR_SERIALIZED_CALL();
    mpcr_keyval_set_proxy(keyval, copy, del);
}

/* libmpichfort started a generalized request with Fortran callbacks
 * (grequest.c calls them with Fortran's conventions). */
void MPII_Grequest_set_lang_f77(MPI_Request request)
{
    MPCR_SERIALIZED_CALL();
    if (mpcr_grequest_set_fortran(request) != MPI_SUCCESS)
        mpcr_fatal("MPII_Grequest_set_lang_f77: %#x is not a generalized request", (unsigned)request);
}
