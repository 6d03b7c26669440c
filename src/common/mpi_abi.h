/* What mpcr says of an MPI library it cannot stand in for, written once for
 * the check before a job starts (src/cli/abi_check.c) and for the guard in
 * every rank (src/guard): how such a library is recognised, the words for
 * its ABI, and what the user should do (docs/abi-check.md). */
#ifndef MPCR_COMMON_MPI_ABI_H
#define MPCR_COMMON_MPI_ABI_H

/* Defined by mpcr's passive libraries only: an object that defines it is
 * mpcr's stand-in, whatever its name or place. */
#define MPCR_PASSIVE_MARK "mpcr_passive_abi"

/* An MPI implementation defines the profiling entry points; a profiling
 * tool or a wrapper in the program defines MPI_Init and calls PMPI_Init,
 * which must then come from mpcr. NULL-terminated. */
extern const char *const mpcr_mpi_impl_symbols[];
/* The entry points a program calls to start MPI. NULL-terminated. */
extern const char *const mpcr_mpi_init_symbols[];

/* The ABI that a library's soname or file name says it has, in words for a
 * message ("Open MPI's ABI"); "an MPI library" for a name mpcr does not
 * know. Async-signal-safe. */
const char *mpcr_mpi_abi_words(const char *name);

/* The next step, the end of every such message. */
#define MPCR_ABI_ADVICE                                                                            \
    "mpcr stands in for MPICH's ABI (libmpich.so.12: MPICH, Intel MPI, MVAPICH), Open MPI "        \
    "4.1's (libmpi.so.40) and the MPI 5.0 standard ABI (libmpi_abi.so.1), with its own "          \
    "libraries, which it puts first on the library path; build the program with mpicc.mpich, "     \
    "mpicc.openmpi or mpcr's mpicc_abi against the shared library (their default), without an "   \
    "RPATH to the real one, and run it again (docs/abi-check.md)"

#endif
