/* MPI_Status in MPICH's layout: the byte count split over count_lo and
 * count_hi_and_cancelled (whose lowest bit is the cancelled flag).
 * MPI_ERROR is left alone: single-completion calls must not set it (MPI 4.0
 * section 3.2.5); calls completing several requests set it themselves. */
#include "lib.h"

void mpcr_status_set(MPI_Status *st, int source, int tag, uint64_t bytes)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->count_lo = (int)(uint32_t)bytes;
    st->count_hi_and_cancelled = (int)(uint32_t)((bytes >> 32) << 1);
}
