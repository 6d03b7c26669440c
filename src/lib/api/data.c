/* Data symbols that MPICH's mpi.h makes programs refer to. Their values are
 * only ever compared by address (sentinels), never dereferenced by users. */
#include <mpi.h>

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY point to marks of their own. As in
 * MPICH, MPIR_C_MPI_UNWEIGHTED and MPIR_C_MPI_WEIGHTS_EMPTY are pointer
 * variables holding the same two values: libmpichfort's `use mpi_f08`
 * routines pass their contents to MPI_Dist_graph_create(_adjacent) for the
 * module's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. libmpichfort defines both
 * variables too, and its definitions come first in the program's symbol
 * scope, so they must be set by a store through the dynamic symbol (which
 * reaches the definition in use, whichever it is) rather than by a static
 * initialiser of ours; MPICH's library stores them at start-up as well. */
static int unweighted_mark, weights_empty_mark;
int *const MPI_UNWEIGHTED = &unweighted_mark;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_mark;
int *MPIR_C_MPI_UNWEIGHTED;
int *MPIR_C_MPI_WEIGHTS_EMPTY;

/* Runs when the library is loaded, after every relocation of the program's
 * libraries and before libmpichfort's initialisers or any MPI call. */
__attribute__((constructor)) static void set_weight_sentinels(void)
{
    MPIR_C_MPI_UNWEIGHTED = MPI_UNWEIGHTED;
    MPIR_C_MPI_WEIGHTS_EMPTY = MPI_WEIGHTS_EMPTY;
}

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

/* What marks this library as mpcr's stand-in, whatever its file is called
 * or wherever it lies: the check before a job starts and the guard of every
 * rank pass over an object that defines it (common/mpi_abi.h). Its value
 * names the ABI it speaks. */
const char mpcr_passive_abi[] = "mpich";
