/* Environmental queries answered by the library itself: no proxy round
 * trip. Wtime is the monotonic clock, which is what MPICH uses too. */
#include "api/api.h"
#include "runtime/runtime.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

double PMPI_Wtime(void)
{
    return mpcr_now_s();
}
MPCR_ALIAS(Wtime);

double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPCR_ALIAS(Wtick);

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    MPCR_REQUIRE_INIT("MPI_Get_processor_name");
    *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", mpcr.processor_name);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Get_processor_name);

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Get_version);

int PMPI_Get_library_version(char *version, int *resultlen)
{
    *resultlen =
        snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "mpcr %s (MPICH ABI)%s%s", MPCR_VERSION,
                 mpcr.proxy_version[0] ? "; proxy: " : "", mpcr.proxy_version);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Get_library_version);

/* Profiling control: mpcr has no profiling levels to switch; MPI lets the
 * call do nothing (MPI 4.0 section 15.2.4). */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Pcontrol);

/* MPICH's GPU queries. mpcr's library moves every buffer through host memory
 * (its own packing, the channel's staging and shared buffers), so no kind of
 * GPU memory may be passed as a buffer: each answer is no,
 * as MPICH 4.0.2 built without GPU support answers. */
int mpcr_impl_MPIX_GPU_query_support(int gpu_type, int *is_supported)
{
    (void)gpu_type;
    *is_supported = 0;
    return MPI_SUCCESS;
}

int PMPIX_Query_cuda_support(void)
{
    return 0;
}
MPCR_ALIAS_X(Query_cuda_support);

int PMPIX_Query_hip_support(void)
{
    return 0;
}
MPCR_ALIAS_X(Query_hip_support);

int PMPIX_Query_ze_support(void)
{
    return 0;
}
MPCR_ALIAS_X(Query_ze_support);
