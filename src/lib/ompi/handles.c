/* Handles between the two ABIs (docs/abi-openmpi.md, "Handles").
 *
 * An Open MPI handle is a pointer. A predefined one is the address of an
 * object this library exports (ompi_objects.c), which holds the MPICH
 * handle it stands for. Every other one is base + the MPICH handle, where
 * base is the start of 4 GiB of address space this library reserves and
 * never maps: the pointer equals no object's, the same MPICH handle always
 * gives the same pointer, a freed one stays refused as MPICH's own handle
 * system refuses it, and no table is needed. The reservation is part of the
 * program's memory, so a checkpoint keeps it (and base) where it was. */
#include "ompi/ompi_front.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SPAN ((uintptr_t)1 << 32)

static uintptr_t base;

__attribute__((constructor)) static void reserve(void)
{
    void *p = mmap(NULL, SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) mpcr_ompi_unsupported("4 GiB of address space for handles");
    base = (uintptr_t)p;
}

int mpcr_ompi_handle(const void *h)
{
    uintptr_t p = (uintptr_t)h;
    if (p - base < SPAN) return (int)(uint32_t)(p - base);
    if (!h) return 0; /* no MPICH handle is 0: refused as invalid there */
    return *(const int *)h;
}

void *mpcr_ompi_user_pointer(int h)
{
    return (void *)(base + (uint32_t)h);
}

int mpcr_ompi_c2f(const void *h)
{
    uintptr_t p = (uintptr_t)h;
    if (p - base < SPAN) return (int)(uint32_t)(p - base);
    if (!h) return -1;
    return ((const int *)h)[1]; /* a predefined object's second int (ompi_objects.c) */
}

void *mpcr_ompi_f2c(enum mpcr_ompi_kind kind, int f)
{
    /* Fortran's predefined handles are small numbers; MPICH's handles are
     * not (bits 31-30 01, 10 or 11, or 00 with a kind in bits 29-26) */
    const struct mpcr_ompi_fortran *k = &mpcr_ompi_fortran[kind];
    if ((unsigned)f < (unsigned)k->n && k->objects[f]) return k->objects[f];
    return mpcr_ompi_pointer_of(kind, f);
}
