/* What the generated entry points (api_gen.c, from the .api files by
 * gen_api.py) and the hand-written implementations agree on: the objects
 * the prologue looks up (declared in their folders' headers), the arrays of
 * counts it hands over, and the macros of `custom` entry points. The
 * generated api_gen.h, which declares every mpcr_impl_NAME, includes it. */
#ifndef MPCR_API_H
#define MPCR_API_H

#include <mpi.h>

#include "env/errors.h"
#include "runtime/runtime.h"

/* What the prologue hands an implementation for the kinds COMM, TYPE,
 * GROUP, INFO, WIN, FILE, SESSION (comm/comm.h, datatype/dtype.h, env/info.h,
 * rma/win.h, io/file.h, session/session.h). */
struct mpcr_comm;
struct mpcr_type;
struct mpcr_group;
struct mpcr_info;
struct mpcr_win;
struct mpcr_file;
struct mpcr_session;

/* An array of counts or displacements of an MPI function whose int form
 * takes int[] and whose _c form takes MPI_Count[] or MPI_Aint[] (both 64-bit). */
struct mpcr_counts {
    const void *p;
    int large;
};
static inline MPI_Count mpcr_count_at(struct mpcr_counts c, MPI_Count i)
{
    return c.large ? ((const MPI_Count *)c.p)[i] : ((const int *)c.p)[i];
}

/* Every MPI function except a few must be called between Init and Finalize. */
#define MPCR_REQUIRE_INIT(fn)                                                                      \
    do {                                                                                           \
        if (__builtin_expect(!mpcr.initialized || mpcr.finalized, 0))                              \
            mpcr_fatal("%s called %s", fn,                                                         \
                       mpcr.finalized ? "after MPI_Finalize" : "before MPI_Init");                 \
    } while (0)

/* Defines MPI_name as a weak alias of PMPI_name, as MPICH does, so that
 * profiling tools can interpose MPI_ and still reach PMPI_. The generated
 * entry points have theirs; `custom` functions (src/lib/api) use this.
 * mpcr_mpich_PMPI_name is the name the Open MPI front end calls it by
 * (src/lib/ompi: its own PMPI_name shadows this one; docs/abi-openmpi.md). */
#define MPCR_ALIAS(name)                                                                           \
    extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)));         \
    extern __typeof__(PMPI_##name) mpcr_mpich_PMPI_##name __attribute__((alias("PMPI_" #name)))
/* The same for an MPIX_ function (MPICH's extensions). */
#define MPCR_ALIAS_X(name)                                                                         \
    extern __typeof__(PMPIX_##name) MPIX_##name __attribute__((weak, alias("PMPIX_" #name)));      \
    extern __typeof__(PMPIX_##name) mpcr_mpich_PMPIX_##name __attribute__((alias("PMPIX_" #name)))

#endif
