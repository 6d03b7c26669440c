/* What the front ends of other ABIs share of their translation
 * (docs/abi-openmpi.md): the way back from MPICH's handles through the table
 * of predefined ones (the front end's user_pointer for the others), arrays
 * of handles, the value groups of values.txt, MPI_IN_PLACE. */
#include "ompi/ompi_front.h"

#include <stdlib.h>

/* MPICH's handles: bits 31-30 are 00 for null handles, 01 for predefined
 * ones (docs/api-generator.md); kind -1: the first object of any kind */
static void *pointer(int kind, int h)
{
    if ((uint32_t)h >> 30 < 2)
        for (int i = 0; i < mpcr_ompi_npredefined; i++) {
            const struct mpcr_ompi_predefined *p = &mpcr_ompi_predefined[i];
            if (p->exists && p->mpich == h && (kind < 0 || (int)p->kind == kind)) return p->object;
        }
    return mpcr_ompi_user_pointer(h);
}

void *mpcr_ompi_pointer(int h)
{
    return pointer(-1, h);
}

void *mpcr_ompi_pointer_of(enum mpcr_ompi_kind kind, int h)
{
    return pointer((int)kind, h);
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

/* Bits, each a value of a group, from one side's numbers to the other's. */
static int flags(const struct mpcr_ompi_group *from, const struct mpcr_ompi_group *to, int bits)
{
    int out = 0;
    for (int i = 0; i < from->n; i++)
        if (bits & from->values[i]) {
            bits &= ~from->values[i];
            out |= to->values[i];
        }
    return out | bits;
}

int mpcr_ompi_flags_in(enum mpcr_ompi_group_id g, int bits)
{
    return flags(&mpcr_ompi_ompi_groups[g], &mpcr_ompi_mpich_groups[g], bits);
}

int mpcr_ompi_flags_out(enum mpcr_ompi_group_id g, int bits)
{
    return flags(&mpcr_ompi_mpich_groups[g], &mpcr_ompi_ompi_groups[g], bits);
}

void *mpcr_ompi_buf(const void *b)
{
    return b == (const void *)1 ? MPICH_IN_PLACE : (void *)b; /* Open MPI's MPI_IN_PLACE */
}
