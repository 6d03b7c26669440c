/* Stubs for every function of MPICH's C API that mpcr does not implement
 * yet (the NOT_SUPPORTED lines of api.def). A program may link against and
 * load with all of them; calling one ends the job with a clear message,
 * never with a wrong answer or a hang.
 *
 * This file must not include <mpi.h>: the stubs take no arguments (they
 * never return, so the caller's arguments do not matter) and would
 * contradict the real prototypes. */
#include <stdio.h>
#include <unistd.h>

/* Provided by errors.c through this narrow declaration (no mpi.h here). */
_Noreturn void mpcr_unsupported(const char *name);

#define SUPPORTED_STUB(name)
#define NOT_SUPPORTED_STUB(name)                                                                   \
    void name(void)                                                                                \
    {                                                                                              \
        mpcr_unsupported(#name);                                                                   \
    }                                                                                              \
    void P##name(void)                                                                             \
    {                                                                                              \
        mpcr_unsupported(#name);                                                                   \
    }
#define MPCR_FN(name, status) status##_STUB(name)
#include "api.def"
