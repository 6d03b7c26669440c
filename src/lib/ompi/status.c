/* Statuses between the two ABIs. Open MPI 4.1's MPI_Status is MPI_SOURCE,
 * MPI_TAG, MPI_ERROR, _cancelled, then the byte count as a size_t
 * (_ucount); MPICH's holds the count in count_lo and the upper bits of
 * count_hi_and_cancelled, whose bit 0 is the cancelled flag. The source and
 * the error are values of the groups `rank` and `errclass`. Converting in
 * before a call and out after it keeps what the call does not write. */
#include <mpi.h>

#include "ompi/ompi_front.h"

#include <stdlib.h>

#ifndef MPCR_FRONT_ABI
_Static_assert(sizeof(MPI_Status) == 24, "Open MPI 4.1's MPI_Status");

static void count_in(const MPI_Status *s, struct mpich_status *m)
{
    unsigned long long count = s->_ucount;
    m->count_lo = (int)(unsigned)count;
    m->count_hi_and_cancelled = (int)((count >> 32) << 1) | (s->_cancelled ? 1 : 0);
}

static void count_out(const struct mpich_status *m, MPI_Status *s)
{
    s->_ucount = (size_t)(unsigned)m->count_lo |
                 (size_t)((unsigned)m->count_hi_and_cancelled >> 1) << 32;
    s->_cancelled = m->count_hi_and_cancelled & 1;
}
#define TAG_IN(t) (t) /* MPI_ANY_TAG is -1 in both */
#define TAG_OUT(t) (t)
#else
/* The standard ABI's MPI_Status: MPI_SOURCE, MPI_TAG, MPI_ERROR and five
 * ints of the implementation's, where mpcr keeps MPICH's two as they are;
 * its MPI_ANY_TAG (a receive from MPI_PROC_NULL's tag) differs. */
_Static_assert(sizeof(MPI_Status) == 32, "the MPI 5.0 ABI's MPI_Status");

static void count_in(const MPI_Status *s, struct mpich_status *m)
{
    m->count_lo = s->MPI_internal[0];
    m->count_hi_and_cancelled = s->MPI_internal[1];
}

static void count_out(const struct mpich_status *m, MPI_Status *s)
{
    s->MPI_internal[0] = m->count_lo;
    s->MPI_internal[1] = m->count_hi_and_cancelled;
}
#define TAG_IN(t) mpcr_ompi_value_in(MPCR_OMPI_tag, t)
#define TAG_OUT(t) mpcr_ompi_value_out(MPCR_OMPI_tag, t)
#endif

void mpcr_ompi_status_in(const void *front, struct mpich_status *m)
{
    const MPI_Status *s = front;
    count_in(s, m);
    m->MPI_SOURCE = mpcr_ompi_value_in(MPCR_OMPI_rank, s->MPI_SOURCE);
    m->MPI_TAG = TAG_IN(s->MPI_TAG);
    m->MPI_ERROR = mpcr_ompi_value_in(MPCR_OMPI_errclass, s->MPI_ERROR);
}

void mpcr_ompi_status_out(const struct mpich_status *m, void *front)
{
    MPI_Status *s = front;
    count_out(m, s);
    s->MPI_SOURCE = mpcr_ompi_value_out(MPCR_OMPI_rank, m->MPI_SOURCE);
    s->MPI_TAG = TAG_OUT(m->MPI_TAG);
    s->MPI_ERROR = mpcr_ompi_value_out(MPCR_OMPI_errclass, m->MPI_ERROR);
}

struct mpich_status *mpcr_ompi_statuses_in(struct mpich_status *stack, void *ompi, int n)
{
    if (!ompi) return MPICH_STATUS_IGNORE; /* Open MPI's MPI_STATUSES_IGNORE is NULL */
    if (n <= 0) return stack;
    struct mpich_status *m = n <= MPCR_OMPI_ARRAY ? stack : malloc(sizeof *m * (size_t)n);
    if (!m) mpcr_ompi_unsupported("an array of statuses (out of memory)");
    for (int i = 0; i < n; i++) mpcr_ompi_status_in((MPI_Status *)ompi + i, m + i);
    return m;
}

void mpcr_ompi_statuses_out(struct mpich_status *stack, struct mpich_status *m, void *ompi, int n)
{
    if (!ompi) return;
    for (int i = 0; i < n; i++) mpcr_ompi_status_out(m + i, (MPI_Status *)ompi + i);
    if (m != stack) free(m);
}
