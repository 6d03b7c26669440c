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

/* MPICH's handles: bits 31-30 are 00 for null handles, 01 for predefined
 * ones (docs/api-generator.md); kind -1: the first object of any kind */
static void *pointer(int kind, int h)
{
    if ((uint32_t)h >> 30 < 2)
        for (int i = 0; i < mpcr_ompi_npredefined; i++) {
            const struct mpcr_ompi_predefined *p = &mpcr_ompi_predefined[i];
            if (p->exists && p->mpich == h && (kind < 0 || (int)p->kind == kind)) return p->object;
        }
    return (void *)(base + (uint32_t)h);
}

void *mpcr_ompi_pointer(int h)
{
    return pointer(-1, h);
}

void *mpcr_ompi_pointer_of(enum mpcr_ompi_kind kind, int h)
{
    return pointer((int)kind, h);
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

int *mpcr_ompi_handles_in(int *stack, void *const *h, int n, int read)
{
    if (!h) return NULL;
    if (n <= 0) return stack; /* not the program's array: _free would free it */
    int *m = n <= MPCR_OMPI_ARRAY ? stack : malloc(sizeof(int) * (size_t)n);
    if (!m) mpcr_ompi_unsupported("an array of handles (out of memory)");
    for (int i = 0; i < n; i++) m[i] = read ? mpcr_ompi_handle(h[i]) : 0;
    return m;
}

void mpcr_ompi_handles_out(int *stack, void **h, int *m, int n)
{
    if (!h || n <= 0) return;
    for (int i = 0; i < n; i++) h[i] = mpcr_ompi_pointer(m[i]);
    mpcr_ompi_array_free(stack, m);
}

void mpcr_ompi_array_free(int *stack, int *m)
{
    if (m && m != stack) free(m);
}

static int translate(const struct mpcr_ompi_group *from, const struct mpcr_ompi_group *to,
                     int g, int v)
{
    for (int i = 0; i < from[g].n; i++)
        if (from[g].values[i] == v) return to[g].values[i];
    return v;
}

int mpcr_ompi_value_in(enum mpcr_ompi_group_id g, int v)
{
    return translate(mpcr_ompi_ompi_groups, mpcr_ompi_mpich_groups, g, v);
}

int mpcr_ompi_value_out(enum mpcr_ompi_group_id g, int v)
{
    return translate(mpcr_ompi_mpich_groups, mpcr_ompi_ompi_groups, g, v);
}

int mpcr_ompi_flags_in(enum mpcr_ompi_group_id g, int bits)
{
    const struct mpcr_ompi_group *from = &mpcr_ompi_ompi_groups[g], *to = &mpcr_ompi_mpich_groups[g];
    int out = 0;
    for (int i = 0; i < from->n; i++)
        if (bits & from->values[i]) {
            bits &= ~from->values[i];
            out |= to->values[i];
        }
    return out | bits;
}

void *mpcr_ompi_buf(const void *b)
{
    return b == (const void *)1 ? MPICH_IN_PLACE : (void *)b; /* Open MPI's MPI_IN_PLACE */
}
