/* Loads an MPI library while it runs, as Python loads mpi4py's: dlopen
 * (argv[1], libmpi.so.40 by default) with RTLD_GLOBAL, then its MPI_Init
 * through dlsym. Built with MPICH_FIRST (by mpicc.mpich), it first starts
 * mpcr's MPI and loads the other one after. Under mpcr the job must end
 * when the library is loaded, before "after" is printed. */
#include <dlfcn.h>
#include <stdio.h>
#ifdef MPICH_FIRST
#include <mpi.h>
#endif

int main(int argc, char **argv)
{
#ifdef MPICH_FIRST
    MPI_Init(&argc, &argv);
#endif
    printf("before\n");
    fflush(stdout);
    void *mpi = dlopen(argc > 1 ? argv[1] : "libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
    if (!mpi) {
        printf("cannot load: %s\n", dlerror());
        return 2;
    }
    int (*init)(int *, char ***) = (int (*)(int *, char ***))dlsym(mpi, "MPI_Init");
    if (init) init(&argc, &argv);
    printf("after\n");
    return 0;
}
