/* Handles between the standard ABI and MPICH's (docs/abi-standard.md).
 *
 * A handle of the MPI 5.0 ABI is a pointer. A predefined one is a small
 * value the standard fixes (MPI_COMM_WORLD is 0x101), looked up in a table;
 * any other is the MPICH handle itself, zero-extended: MPICH's handles are
 * never below 0x04000000 (a kind in bits 29-26), so the two never meet, the
 * same MPICH handle always gives the same pointer, and nothing is kept. */
#include "abi/abi_front.h"
#include "ompi/ompi_front.h"

int mpcr_ompi_handle(const void *h)
{
    uintptr_t p = (uintptr_t)h;
    return p < MPCR_ABI_PREDEFINED_LIMIT ? mpcr_abi_mpich[p] : (int)(uint32_t)p;
}

void *mpcr_ompi_user_pointer(int h)
{
    return (void *)(uintptr_t)(uint32_t)h;
}
