/* What only the Open MPI front end has of its hand-written entry points:
 * the mark of mpcr's stand-in, the end of an unsupported function, the
 * Fortran handle and status conversions, mpi-ext.h's CUDA query. */
#include <mpi.h>

#include "ompi/ompi_front.h"

#include <string.h>

#define ALIAS(name) extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)))

/* What the check before a job and the guard of every rank recognise as
 * mpcr's stand-in (src/common/mpi_abi.h); its value names the ABI. */
const char mpcr_passive_abi[] = "openmpi";

_Noreturn void mpcr_mpich_unsupported_in(const char *name, const char *where);
_Noreturn void mpcr_ompi_unsupported(const char *name)
{
    mpcr_mpich_unsupported_in(name, " for Open MPI-built programs");
}

/* An MPI_Fint is the handle's value in Open MPI's mpif.h for a predefined
 * handle, the MPICH handle for any other (handles.c). */
#define C2F(Kind, type, KIND)                                                                      \
    MPI_Fint PMPI_##Kind##_c2f(type h) { return mpcr_ompi_c2f(h); }                                \
    type PMPI_##Kind##_f2c(MPI_Fint f) { return mpcr_ompi_f2c(MPCR_OMPI_KIND_##KIND, f); }         \
    ALIAS(MPI_##Kind##_c2f);                                                                       \
    ALIAS(MPI_##Kind##_f2c);
C2F(Comm, MPI_Comm, COMM)
C2F(Group, MPI_Group, GROUP)
C2F(Type, MPI_Datatype, DATATYPE)
C2F(Errhandler, MPI_Errhandler, ERRHANDLER)
C2F(Info, MPI_Info, INFO)
C2F(Message, MPI_Message, MESSAGE)
C2F(Op, MPI_Op, OP)
C2F(Request, MPI_Request, REQUEST)
C2F(Win, MPI_Win, WIN)
C2F(File, MPI_File, FILE)

/* Open MPI's Fortran status is its C status, int by int (MPI_STATUS_SIZE 6). */
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!c_status || c_status == MPI_STATUS_IGNORE || !f_status) return MPI_ERR_ARG;
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}
ALIAS(MPI_Status_c2f);

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!f_status || !c_status || f_status == MPI_F_STATUS_IGNORE) return MPI_ERR_ARG;
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
ALIAS(MPI_Status_f2c);

/* mpi-ext.h's CUDA query: mpcr moves no device memory (Open MPI's answer
 * where it was built without CUDA) */
int PMPIX_Query_cuda_support(void) { return 0; }
extern __typeof__(PMPIX_Query_cuda_support) MPIX_Query_cuda_support
    __attribute__((weak, alias("PMPIX_Query_cuda_support")));
