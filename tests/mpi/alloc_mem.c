/* MPI_Alloc_mem and MPI_Free_mem, compared with a native MPICH run (2
 * ranks): memory with and without an info object, used as send and
 * receive buffers, size 0, and the errors (a negative size, and memory the
 * system cannot give: MPI_ERR_NO_MEM), with MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "out.h"

static int rank, peer;

static void exchange(int *mem, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        mem[i] = rank * 1000 + i;
    MPI_Sendrecv_replace(mem, n, MPI_INT, peer, 1, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += mem[i];
    out("%s: %d ints from rank %d, sum %ld\n", what, n, mem[0] / 1000, sum);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    int *mem = NULL;
    int rc = MPI_Alloc_mem(1000 * sizeof(int), MPI_INFO_NULL, &mem);
    out("alloc_mem, no info: rc %d, aligned to 8 %d\n", rc, mem && (uintptr_t)mem % 8 == 0);
    exchange(mem, 1000, "alloc_mem, no info");
    MPI_Free_mem(mem);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096");
    rc = MPI_Alloc_mem(1 << 20, info, &mem);
    MPI_Info_free(&info);
    out("alloc_mem with info: rc %d\n", rc);
    exchange(mem, (1 << 20) / (int)sizeof(int), "alloc_mem with info");
    MPI_Free_mem(mem);

    void *none = NULL;
    rc = MPI_Alloc_mem(0, MPI_INFO_NULL, &none);
    out("alloc_mem of 0 bytes: rc %d\n", rc);
    out("free_mem of it: rc %d\n", MPI_Free_mem(none));

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void *p = &rc;
    /* MPICH 4.0.2 reports success here (and hands out a pointer it cannot
     * back); mpcr's posix_memalign fails. Either is allowed; a failure must
     * be MPI_ERR_NO_MEM with the pointer left alone. */
    rc = MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p);
    out("alloc_mem of 2^62 bytes: succeeds, or MPI_ERR_NO_MEM with the pointer unchanged: %d\n",
        rc == MPI_SUCCESS || (error_class_of(rc) == MPI_ERR_NO_MEM && p == &rc));
    rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &p);
    out("alloc_mem of -1 bytes: class %d (MPI_ERR_ARG %d)\n", error_class_of(rc), MPI_ERR_ARG);
    out_flush();
    MPI_Finalize();
    return 0;
}
