/* MPI_Bcast of large messages among many ranks (docs/collectives.md): the
 * message cut into one piece per rank, the pieces scattered down a binomial
 * tree, then gathered by every rank (recursive doubling where the ranks are
 * a power of two, else a ring). The binomial tree of coll_bcast makes its
 * deepest rank wait for log2(p) whole messages one after the other; here
 * every rank moves about 2n bytes, in 2 log2(p) rounds (log2(p) + p - 1 with
 * the ring), as MPICH and Open MPI broadcast long messages.
 *
 * The pieces are ranges of the message's packed bytes, so that every rank
 * cuts the same way whatever datatype it names (MPI only asks that the
 * type signatures match): a buffer that is one range of bytes is used in
 * place, any other is packed into a temporary first (the root) and
 * unpacked from it at the end (the others). */
#include "coll.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"

/* From this many ranks and bytes on (both the same on every rank). The
 * tree wins below: its log2(p) rounds against 2 log2(p) here, each a
 * proxied round trip (about 1 us with a core for every process, 4 us on 2
 * shared cores), and with fewer than 8 ranks its depth is at most 2. The
 * ring (p not a power of two) takes p - 1 rounds more than the tree, and
 * saves (log2(p) - 2) n bytes of transfer: it wants n of about p times
 * the bytes a round trip would move (16 KiB here). */
#define SPLIT_MIN_RANKS     8
#define SPLIT_MIN_BYTES     (64u << 10)
#define RING_BYTES_PER_RANK (16u << 10)

int coll_bcast_split_wanted(int size, uint64_t bytes)
{
    if (size < SPLIT_MIN_RANKS || bytes < SPLIT_MIN_BYTES) return 0;
    return !(size & (size - 1)) || bytes / (uint64_t)(size - 1) >= RING_BYTES_PER_RANK;
}

/* The message's pieces [from, to) of p, each of `piece` bytes (the last
 * ones shorter or empty), as a range of bytes of the n. */
struct pieces {
    char *base;
    uint64_t n, piece;
    int p, root;
    const struct mpcr_type *bytes;
};

static uint64_t start_of(const struct pieces *m, int i)
{
    uint64_t at = (uint64_t)i * m->piece;
    return at < m->n ? at : m->n;
}

static uint64_t length_of(const struct pieces *m, int from, int to)
{
    return start_of(m, to < m->p ? to : m->p) - start_of(m, from);
}

/* The real rank of relative rank vr (counted from the root). */
static int real(const struct pieces *m, int vr)
{
    return (vr + m->root) % m->p;
}

/* Whether relative rank vr holds pieces [from, to) since the scatter: its
 * subtree's, [vr, vr + its lowest set bit); the root all of them. */
static int holds(int vr, int from, int to)
{
    return vr == 0 || (from >= vr && to <= vr + (vr & -vr));
}

/* One round of the allgather: pieces [sfrom, sto) to relative rank `to`,
 * [rfrom, rto) from `from`. A range that is empty, or that the receiver
 * holds since the scatter, is neither sent nor received, on both sides
 * alike (the root's buffer is never written). */
static int exchange(const struct coll *k, int phase, const struct pieces *m, int vr, int to,
                    int sfrom, int sto, int from, int rfrom, int rto)
{
    uint64_t out = holds(to, sfrom, sto) ? 0 : length_of(m, sfrom, sto);
    uint64_t in = holds(vr, rfrom, rto) ? 0 : length_of(m, rfrom, rto);
    return coll_sendrecv(k, phase, out ? real(m, to) : MPI_PROC_NULL, m->base + start_of(m, sfrom),
                         (MPI_Count)out, m->bytes, in ? real(m, from) : MPI_PROC_NULL,
                         m->base + start_of(m, rfrom), (MPI_Count)in, m->bytes);
}

/* Binomial scatter: relative rank vr receives the pieces of its subtree
 * [vr, vr + lowest set bit) from its parent, then sends each child its
 * subtree's pieces, all children in one round. */
static int scatter(const struct coll *k, int phase, const struct pieces *m, int vr)
{
    int mask = 1, err;
    while (mask < m->p && !(vr & mask))
        mask <<= 1;
    uint64_t len = mask < m->p ? length_of(m, vr, vr + mask) : 0;
    if (len && (err = coll_sendrecv(k, phase, MPI_PROC_NULL, NULL, 0, m->bytes, real(m, vr - mask),
                                    m->base + start_of(m, vr), (MPI_Count)len, m->bytes)))
        return err;
    struct coll_round r;
    round_init(&r, k);
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        uint64_t len = child < m->p ? length_of(m, child, child + mask) : 0;
        if (len)
            round_send(&r, real(m, child), phase, m->base + start_of(m, child), (MPI_Count)len,
                       m->bytes);
    }
    return round_run(&r);
}

/* Every rank gets every piece: recursive doubling (p a power of two: in
 * round j each rank swaps the 2^j pieces it has with the rank that differs
 * in bit j), or a ring (in step s each rank passes on the piece it got in
 * step s - 1, its own first). */
static int allgather(const struct coll *k, int phase, const struct pieces *m, int vr)
{
    int p = m->p, err;
    if (!(p & (p - 1))) {
        for (int mask = 1; mask < p; mask <<= 1) {
            int partner = vr ^ mask, mine = vr & ~(mask - 1), theirs = partner & ~(mask - 1);
            if ((err = exchange(k, phase, m, vr, partner, mine, mine + mask, partner, theirs,
                                theirs + mask)))
                return err;
        }
        return MPI_SUCCESS;
    }
    int next = (vr + 1) % p, prev = (vr - 1 + p) % p;
    for (int s = 0; s < p - 1; s++) {
        int out = (vr - s + p) % p, in = (vr - s - 1 + p) % p;
        if ((err = exchange(k, phase, m, vr, next, out, out + 1, prev, in, in + 1))) return err;
    }
    return MPI_SUCCESS;
}

int coll_bcast_split(const struct coll *k, int phase, void *buf, MPI_Count count,
                     const struct mpcr_type *t, int root, uint64_t n)
{
    void *flat = (void *)mpcr_type_flat_data(buf, count, t);
    char *packed = flat;
    if (!flat) {
        if (n > SIZE_MAX - 128 || !(packed = coll_scratch_get((size_t)n))) return MPI_ERR_NO_MEM;
        if (k->rank == root) mpcr_pack(packed, buf, count, t);
    }
    struct pieces m = {.base = packed,
                       .n = n,
                       .piece = (n + (uint64_t)k->size - 1) / (uint64_t)k->size,
                       .p = k->size,
                       .root = root,
                       .bytes = mpcr_type_get(MPI_BYTE)};
    int vr = (k->rank - root + k->size) % k->size;
    int err = scatter(k, phase, &m, vr);
    if (!err) err = allgather(k, phase + 1, &m, vr); /* (another step: its own phase) */
    if (!flat) {
        if (!err && k->rank != root) mpcr_unpack(buf, packed, n, t);
        coll_scratch_put(packed);
    }
    return err;
}
