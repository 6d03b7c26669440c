/* The standard ABI's entry points written by hand (those the description of
 * the API lacks), the mark of mpcr's stand-in and the end of an unsupported
 * function. The rest of the hand-written ones are the Open MPI front end's
 * (src/lib/ompi: custom.c, callbacks.c), compiled for this ABI. */
#include <mpi.h>

#include "ompi/ompi_front.h"
#include "ompi_mpich.h"

#include <stdio.h>

#define ALIAS(name) extern __typeof__(name) P##name __attribute__((weak, alias(#name)))

/* What the check before a job and the guard of every rank recognise as
 * mpcr's stand-in (src/common/mpi_abi.h); its value names the ABI. */
const char mpcr_passive_abi[] = "standard";

_Noreturn void mpcr_mpich_unsupported_in(const char *name, const char *where);
_Noreturn void mpcr_ompi_unsupported(const char *name)
{
    mpcr_mpich_unsupported_in(name, " for programs built for the MPI 5.0 ABI");
}

/* May be called before MPI_Init. */
int MPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}
ALIAS(MPI_Abi_get_version);

/* A new info object with the sizes of this ABI's integer types. */
int MPI_Abi_get_info(MPI_Info *info)
{
    int m = 0, err = mpcr_mpich_PMPI_Info_create(&m);
    static const struct {
        const char *key;
        size_t size;
    } sizes[] = {{"mpi_aint_size", sizeof(MPI_Aint)},
                 {"mpi_count_size", sizeof(MPI_Count)},
                 {"mpi_offset_size", sizeof(MPI_Offset)}};
    for (size_t i = 0; !err && i < sizeof sizes / sizeof sizes[0]; i++) {
        char value[24];
        snprintf(value, sizeof value, "%zu", sizes[i].size);
        err = mpcr_mpich_PMPI_Info_set(m, sizes[i].key, value);
    }
    if (err) return mpcr_ompi_value_out(MPCR_OMPI_errclass, err);
    *info = mpcr_ompi_pointer_of(MPCR_OMPI_KIND_INFO, m);
    return MPI_SUCCESS;
}
ALIAS(MPI_Abi_get_info);

/* A handle as an int and back: a predefined one is its value, any other the
 * MPICH handle (abi_handles.c), so that fromint(toint(h)) is h. */
#define TOINT(Kind, Type)                                                                          \
    int MPI_##Kind##_toint(Type h) { return (int)(uintptr_t)h; }                                   \
    Type MPI_##Kind##_fromint(int i) { return (Type)(uintptr_t)(uint32_t)i; }                      \
    ALIAS(MPI_##Kind##_toint);                                                                     \
    ALIAS(MPI_##Kind##_fromint);
TOINT(Comm, MPI_Comm)
TOINT(Errhandler, MPI_Errhandler)
TOINT(File, MPI_File)
TOINT(Group, MPI_Group)
TOINT(Info, MPI_Info)
TOINT(Message, MPI_Message)
TOINT(Op, MPI_Op)
TOINT(Request, MPI_Request)
TOINT(Session, MPI_Session)
TOINT(Type, MPI_Datatype)
TOINT(Win, MPI_Win)

/* MPI 4.1's accessors of a status's public fields (kept in this ABI's
 * numbers: the status is the program's). */
#define STATUS_FIELD(field, FIELD)                                                                 \
    int MPI_Status_get_##field(MPI_Status *status, int *field)                                     \
    {                                                                                              \
        *field = status->MPI_##FIELD;                                                              \
        return MPI_SUCCESS;                                                                        \
    }                                                                                              \
    int MPI_Status_set_##field(MPI_Status *status, int field)                                      \
    {                                                                                              \
        status->MPI_##FIELD = field;                                                               \
        return MPI_SUCCESS;                                                                        \
    }                                                                                              \
    ALIAS(MPI_Status_get_##field);                                                                 \
    ALIAS(MPI_Status_set_##field);
STATUS_FIELD(source, SOURCE)
STATUS_FIELD(tag, TAG)
STATUS_FIELD(error, ERROR)
