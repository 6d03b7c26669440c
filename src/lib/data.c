/* Data symbols that MPICH's mpi.h makes programs refer to. Their values are
 * only ever compared by address (sentinels), never dereferenced by users. */
#include "lib.h"

int MPIR_C_MPI_UNWEIGHTED;
int MPIR_C_MPI_WEIGHTS_EMPTY;
int *const MPI_UNWEIGHTED = &MPIR_C_MPI_UNWEIGHTED;
int *const MPI_WEIGHTS_EMPTY = &MPIR_C_MPI_WEIGHTS_EMPTY;

static MPI_Fint status_ignore_f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
static MPI_Fint statuses_ignore_f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
MPI_Fint *MPI_F_STATUS_IGNORE = status_ignore_f;
MPI_Fint *MPI_F_STATUSES_IGNORE = statuses_ignore_f;

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

static char pvar_all_handles;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES =
    (struct MPIR_T_pvar_handle_s *)&pvar_all_handles;
