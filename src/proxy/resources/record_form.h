/* The saved form of the communicator record (record.h), apart from MPI so
 * that it is unit-tested (tests/unit/record_test.c). Little-endian:
 *   u64 clock; u32 count, u32 0;
 *   count x { u32 id, u32 nmembers, u64 key, nmembers x i32 world rank,
 *             padded to 8 bytes }
 * A reader trusts nothing in it: every count is bounded by the bytes there
 * are, every rank by the job's size, and each communicator must have this
 * rank among its members and a key no later than the clock. */
#ifndef MPCR_PROXY_RECORD_FORM_H
#define MPCR_PROXY_RECORD_FORM_H

#include <stddef.h>
#include <stdint.h>

struct outcome {
    uint32_t id, nmembers;
    uint64_t key;
    int32_t *members; /* world ranks, in the order of their ranks in the communicator */
};

/* A malloc'd buffer of *len bytes; NULL when out of memory. */
void *record_encode(const struct outcome *o, uint32_t n, uint64_t clock, size_t *len);
/* The outcomes of a saved record, sorted by key (each members array and the
 * array malloc'd), for rank `rank` of a job of `size`. 0, or -1 with a
 * reason in err. */
int record_decode(const void *buf, size_t len, int rank, int size, struct outcome **out,
                  uint32_t *n, uint64_t *clk, char *err, size_t cap);

/* The communicators rank `rank` must take part in re-creating, sorted by
 * key: every one in `mine` (its own record, ids kept) and every one in
 * another rank's record that has `rank` among its members although `rank`
 * no longer holds it (id 0). MPI_Comm_free is local: at a cut, some
 * members may have freed a communicator the others still use, and a
 * creation needs all of its members. `theirs[r]` (`counts[r]` outcomes)
 * is rank r's record, `theirs[rank]` ignored. A communicator is the same
 * in two records when key and members are (two with a member in common
 * never share a key). *out's members arrays are copies. 0, or -1 when out
 * of memory. */
int record_merge(const struct outcome *mine, uint32_t nmine, const struct outcome *const *theirs,
                 const uint32_t *counts, int size, int rank, struct outcome **out, uint32_t *n);

#endif
