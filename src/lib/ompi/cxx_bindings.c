/* What Open MPI's C++ bindings library needs of libmpi.so.40 to load.
 *
 * Debian's C++ MPI libraries (Trilinos, SuperLU_dist, CombBLAS: all that
 * PETSc loads) link Open MPI's libmpi_cxx.so.40, the MPI C++ bindings MPI 3.0
 * removed, even when the program calls C only. That library reaches into Open
 * MPI's internals: data it binds when it is loaded, functions only when a
 * C++ binding calls them (lazily). So that such programs load on mpcr's
 * libmpi.so.40, the data is here, sized as Open MPI 4.1.4's and unused, and
 * the functions end the job naming what the program used. No mpi.h: nothing
 * here is MPI's C interface. docs/abi-openmpi.md, "C++". */
#include <stdbool.h>

_Noreturn void mpcr_ompi_unsupported(const char *name);

/* MPI::ERRORS_THROW_EXCEPTIONS: an error handler object as the predefined
 * ones (ompi_objects.c), whose MPICH handle is 0: none, refused if used. */
struct {
    int mpich, fortran;
    char rest[1024 - 8];
} ompi_mpi_errors_throw_exceptions __attribute__((aligned(32))) = {0, -1, {0}};
int ompi_errcode_intern_lastused;
char ompi_errcodes_intern[120] __attribute__((aligned(8)));
char ompi_registered_datareps[64] __attribute__((aligned(8)));
int opal_class_init_epoch = 1;
char opal_list_item_t_class[64] __attribute__((aligned(8)));
bool opal_uses_threads;

#define CXX_ONLY(name, what)                                                                       \
    void name(void);                                                                               \
    void name(void)                                                                                \
    {                                                                                              \
        mpcr_ompi_unsupported(what " (the MPI C++ bindings, libmpi_cxx.so.40)");                   \
    }
CXX_ONLY(ompi_errhandler_create, "MPI::Comm::Create_errhandler")
CXX_ONLY(ompi_errhandler_invoke, "MPI::Comm::Call_errhandler")
CXX_ONLY(ompi_op_set_cxx_callback, "MPI::Op::Init")
CXX_ONLY(ompi_attr_create_keyval, "MPI::Comm::Create_keyval")
CXX_ONLY(opal_class_initialize, "an object of Open MPI's C++ bindings")
