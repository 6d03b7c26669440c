/* The entry points of the Open MPI front end written by hand: the strings
 * whose longest lengths differ (MPICH may write more than Open MPI's
 * MPI_MAX_OBJECT_NAME, _ERROR_STRING, _INFO_KEY, _LIBRARY_VERSION_STRING let
 * the program reserve: copied through a buffer of MPICH's size, cut to Open
 * MPI's), the Fortran handle conversions (an MPI_Fint is the MPICH handle),
 * the unsupported function's end, and the mark of mpcr's stand-in. */
#include <mpi.h>

#include "ompi/ompi_front.h"
#include "ompi_mpich.h"

#include <string.h>

#define ALIAS(name) extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)))
#define ERR_OUT(e) mpcr_ompi_value_out(MPCR_OMPI_errclass, e)

/* What the check before a job and the guard of every rank recognise as
 * mpcr's stand-in (src/common/mpi_abi.h); its value names the ABI. */
const char mpcr_passive_abi[] = "openmpi";

/* Open MPI's Fortran status sentinels (mpi.h declares them). */
static MPI_Fint status_ignore_f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
static MPI_Fint statuses_ignore_f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
MPI_Fint *MPI_F_STATUS_IGNORE = status_ignore_f;
MPI_Fint *MPI_F_STATUSES_IGNORE = statuses_ignore_f;

/* the longest answers of MPICH's ABI: MPI_MAX_LIBRARY_VERSION_STRING */
#define MPICH_LONGEST 8192

/* Copies what MPICH wrote into buf to out, cut to cap - 1 characters. */
static int cut(const char *buf, char *out, int *len, int cap, int err)
{
    if (err) return ERR_OUT(err);
    size_t n = strnlen(buf, (size_t)cap - 1); /* cut on purpose */
    memcpy(out, buf, n);
    out[n] = '\0';
    *len = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Get_library_version(buf, &len);
    return cut(buf, version, resultlen, MPI_MAX_LIBRARY_VERSION_STRING, err);
}
ALIAS(MPI_Get_library_version);

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Error_string(
                 mpcr_ompi_value_in(MPCR_OMPI_errclass, errorcode), buf, &len);
    return cut(buf, string, resultlen, MPI_MAX_ERROR_STRING, err);
}
ALIAS(MPI_Error_string);

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Comm_get_name(mpcr_ompi_handle(comm), buf, &len);
    return cut(buf, comm_name, resultlen, MPI_MAX_OBJECT_NAME, err);
}
ALIAS(MPI_Comm_get_name);

int PMPI_Type_get_name(MPI_Datatype type, char *type_name, int *resultlen)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Type_get_name(mpcr_ompi_handle(type), buf, &len);
    return cut(buf, type_name, resultlen, MPI_MAX_OBJECT_NAME, err);
}
ALIAS(MPI_Type_get_name);

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Info_get_nthkey(mpcr_ompi_handle(info), n, buf);
    return cut(buf, key, &len, MPI_MAX_INFO_KEY, err);
}
ALIAS(MPI_Info_get_nthkey);

/* An MPI_Fint is the MPICH handle (MPICH's own Fortran handles are). */
#define C2F(Kind, type)                                                                            \
    MPI_Fint PMPI_##Kind##_c2f(type h) { return mpcr_ompi_handle(h); }                             \
    type PMPI_##Kind##_f2c(MPI_Fint f) { return mpcr_ompi_pointer(f); }                            \
    ALIAS(MPI_##Kind##_c2f);                                                                       \
    ALIAS(MPI_##Kind##_f2c);
C2F(Comm, MPI_Comm)
C2F(Group, MPI_Group)
C2F(Type, MPI_Datatype)

_Noreturn void mpcr_mpich_unsupported_in(const char *name, const char *where);
_Noreturn void mpcr_ompi_unsupported(const char *name)
{
    mpcr_mpich_unsupported_in(name, " for Open MPI-built programs");
}
