/* The WIN call (channel.h, struct mpcr_win_call; docs/one-sided.md): the
 * program's one-sided operations, made by the real MPI on the proxy's one
 * dynamic window (resources/windows.c), each flushed to its target before
 * the call is answered, so that nothing one-sided is in flight while the
 * program is outside a call: a checkpoint has nothing of it to drain.
 *
 * The program is not trusted: the call's struct is copied, its data must
 * lie in the staging area (or a shared buffer), its target be a world rank,
 * its op and types be ones this proxy knows. */
#include "proxy.h"
#include "real_types.h"
#include "serve_win.h"
#include "shared.h"
#include "windows.h"
#include "windows_attached.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A lock word (docs/one-sided.md): the count of shared holders, plus this
 * while an exclusive holder has it. */
#define LOCK_EXCLUSIVE ((int64_t)1 << 32)

/* This MPI's predefined op for mpcr's ABI value (MPICH's handles), or
 * MPI_OP_NULL. */
static MPI_Op real_op(uint32_t abi)
{
    switch (abi) {
    case 0x58000001u: return MPI_MAX;
    case 0x58000002u: return MPI_MIN;
    case 0x58000003u: return MPI_SUM;
    case 0x58000004u: return MPI_PROD;
    case 0x58000005u: return MPI_LAND;
    case 0x58000006u: return MPI_BAND;
    case 0x58000007u: return MPI_LOR;
    case 0x58000008u: return MPI_BOR;
    case 0x58000009u: return MPI_LXOR;
    case 0x5800000au: return MPI_BXOR;
    case 0x5800000bu: return MPI_MINLOC;
    case 0x5800000cu: return MPI_MAXLOC;
    case 0x5800000du: return MPI_REPLACE;
    case 0x5800000eu: return MPI_NO_OP;
    default: return MPI_OP_NULL;
    }
}

/* The real datatypes are built with the large-count constructors where the
 * MPI has them (real_types.c), whose types MPICH 4.0.2's int
 * MPI_Type_get_envelope refuses: they are read with the _c forms there. */
#if MPI_VERSION >= 4
typedef MPI_Count env_count;
#define ENVELOPE(t, ni, na, nc, nt, comb) MPI_Type_get_envelope_c(t, ni, na, nc, nt, comb)
#define CONTENTS(t, ni, na, nc, nt, i, a, c, ty) MPI_Type_get_contents_c(t, ni, na, nc, nt, i, a, c, ty)
#else
typedef int env_count;
#define ENVELOPE(t, ni, na, nc, nt, comb) ((void)(nc), MPI_Type_get_envelope(t, ni, na, nt, comb))
#define CONTENTS(t, ni, na, nc, nt, i, a, c, ty) ((void)(nc), (void)(c), MPI_Type_get_contents(t, ni, na, nt, i, a, ty))
#endif

/* Whether t is a derived type (whose handles get_contents returns anew). */
static int derived(MPI_Datatype t)
{
    env_count ni, na, nc = 0, nt;
    int combiner;
    return !ENVELOPE(t, &ni, &na, &nc, &nt, &combiner) && combiner != MPI_COMBINER_NAMED;
}

/* The predefined type t is made of (an accumulate's target type is made
 * of one, MPI 4.0 12.3.4): the origin's bytes are elements of it. */
static MPI_Datatype basic_of(MPI_Datatype t)
{
    int owned = 0;
    for (;;) {
        env_count ni, na, nc = 0, nt;
        int combiner;
        if (ENVELOPE(t, &ni, &na, &nc, &nt, &combiner)) return MPI_DATATYPE_NULL;
        if (combiner == MPI_COMBINER_NAMED) return t;
        int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
        MPI_Aint *addrs = malloc(((size_t)na + 1) * sizeof *addrs);
        MPI_Count *counts = malloc(((size_t)nc + 1) * sizeof *counts);
        MPI_Datatype *types = malloc(((size_t)nt + 1) * sizeof *types), next = MPI_DATATYPE_NULL;
        if (ints && addrs && counts && types && nt > 0 &&
            !CONTENTS(t, ni, na, nc, nt, ints, addrs, counts, types)) {
            next = types[0];
            for (env_count i = 1; i < nt; i++)
                if (derived(types[i])) MPI_Type_free(&types[i]);
        }
        free(ints), free(addrs), free(counts), free(types);
        if (owned) MPI_Type_free(&t);
        if (next == MPI_DATATYPE_NULL) return next;
        t = next, owned = derived(next);
    }
}

/* One attempt at the lock word at disp of target: whether it was taken.
 * Exclusive: compare-and-swap 0 to LOCK_EXCLUSIVE; shared: add 1, taken if
 * no exclusive holder was there, else the add undone. Where the target is
 * this rank an exclusive attempt adds too (taken if the word was 0, else
 * undone): Open MPI 4.1's osc/rdma crashes on a compare-and-swap to the
 * rank itself (natively too: vader's emulated atomics). The library asks
 * again later (with a pause of its own: two adding contenders could
 * otherwise undo each other in step). */
static int lock_try(MPI_Win w, int target, MPI_Aint disp, int exclusive, int64_t *taken)
{
    int64_t old = 0;
    int rc;
    if (exclusive && target != proxy.rank) {
        int64_t x = LOCK_EXCLUSIVE, zero = 0;
        rc = MPI_Compare_and_swap(&x, &zero, &old, MPI_INT64_T, target, disp, w);
        if (!rc) rc = MPI_Win_flush(target, w);
        *taken = !rc && old == 0;
        return rc;
    }
    int64_t add = exclusive ? LOCK_EXCLUSIVE : 1, back = -add;
    rc = MPI_Fetch_and_op(&add, &old, MPI_INT64_T, target, disp, MPI_SUM, w);
    if (!rc) rc = MPI_Win_flush(target, w);
    *taken = !rc && (exclusive ? old == 0 : old < LOCK_EXCLUSIVE);
    if (!rc && !*taken) {
        rc = MPI_Accumulate(&back, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, MPI_SUM, w);
        if (!rc) rc = MPI_Win_flush(target, w);
    }
    return rc;
}

static int unlock(MPI_Win w, int target, MPI_Aint disp, int exclusive)
{
    int64_t back = exclusive ? -LOCK_EXCLUSIVE : -1;
    int rc = MPI_Accumulate(&back, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, MPI_SUM, w);
    return rc ? rc : MPI_Win_flush(target, w);
}

/* Whether [off, off + n) is the program's: staged or shared. */
static int staged(uint64_t off, uint64_t n)
{
    return in_staging(off, n) || in_shared(off, n);
}

/* The accumulating operations: op and the elements of the basic type the
 * target type is made of (the origin's and result's bytes are some). */
static int acc_args(const struct mpcr_win_call *wc, MPI_Datatype tt, MPI_Op *op,
                    MPI_Datatype *basic, int *size)
{
    *op = real_op(wc->rop);
    *basic = basic_of(tt);
    if (*op == MPI_OP_NULL) return MPI_ERR_OP;
    if (*basic == MPI_DATATYPE_NULL || MPI_Type_size(*basic, size) || *size <= 0 ||
        wc->bytes % (unsigned)*size || wc->aux_bytes % (unsigned)*size)
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* The pair types with a hole (MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT,
 * MPI_LONG_DOUBLE_INT: an int after the first member's padding, or padding
 * at the end): the library's bytes are their elements packed (the first
 * member, then the int), the real MPI reads and writes them at its extent.
 * Whether predefined type e of `size` bytes is one; its extent. */
static int holey(MPI_Datatype e, int size, MPI_Aint *extent)
{
    MPI_Aint lb;
    return !MPI_Type_get_extent(e, &lb, extent) && *extent != size;
}

/* count elements of such a type between their packed bytes and their
 * layout (to_layout: packed -> laid, else back). */
static void pairs_copy(char *packed, char *laid, int count, int size, MPI_Aint extent,
                       int to_layout)
{
    int first = size - (int)sizeof(int), second = (first + 3) / 4 * 4; /* the int's place */
    for (int i = 0; i < count; i++) {
        char *p = packed + (size_t)i * (size_t)size, *l = laid + (size_t)i * (size_t)extent;
        if (to_layout)
            memcpy(l, p, (size_t)first), memcpy(l + second, p + first, sizeof(int));
        else
            memcpy(p, l, (size_t)first), memcpy(p + first, l + second, sizeof(int));
    }
}

/* The data of an accumulating operation on elements of type e, `size`
 * bytes each: in and out as they are, or, for a pair type with a hole,
 * copies at its extent, gathered back (the results) and freed by
 * gather_back. An MPI error class. */
struct laid_out {
    char *in, *out;       /* what the real MPI gets */
    char *packed_out;     /* where the results go back, packed */
    int out_count, size;
    MPI_Aint extent;
};
static int lay_out(MPI_Datatype e, int size, void *in, int n, void *out, int on,
                   struct laid_out *l)
{
    MPI_Aint extent;
    *l = (struct laid_out){in, out, NULL, 0, size, 0}; /* extent 0: as they are */
    if (!holey(e, size, &extent)) return MPI_SUCCESS;
    l->extent = extent;
    l->in = in ? malloc((size_t)(n / size) * (size_t)l->extent) : NULL;
    l->out = out ? malloc((size_t)(on / size) * (size_t)l->extent) : NULL;
    if ((in && !l->in) || (out && !l->out)) {
        free(l->in), free(l->out);
        return MPI_ERR_NO_MEM;
    }
    if (in) pairs_copy(in, l->in, n / size, size, l->extent, 1);
    if (out) l->packed_out = out, l->out_count = on / size;
    return MPI_SUCCESS;
}
static void gather_back(struct laid_out *l, int rc)
{
    if (!l->extent) return;
    if (!rc && l->packed_out) pairs_copy(l->packed_out, l->out, l->out_count, l->size, l->extent, 0);
    free(l->in), free(l->out);
}

#ifdef OPEN_MPI
/* Open MPI 4.1.4's osc/rdma and the pair types with a hole, on created and
 * dynamic windows (natively too; every window of this proxy is an
 * attachment of a dynamic one; its allocated windows on one node take
 * another path), as tried with two-rank programs (docs/one-sided.md):
 *   - its fast path for a predefined target type moves count * size bytes,
 *     not count * extent: elements after the first come out shifted;
 *   - its path for a derived target type splits the elements into the
 *     runs of bytes their members make and counts whole elements in each:
 *     right for MPI_LONG_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT (padding
 *     at the end only: one run), nothing done for MPI_SHORT_INT (the int
 *     after padding: two runs shorter than an element);
 *   - a type of MPI_BYTE blocks at the members' places, resized to the
 *     pair's extent (`members`), is right, results too, for MPI_REPLACE and
 *     MPI_NO_OP, which only move the members; the whole operation stays
 *     under the target's accumulate lock, as atomic as a pair's.
 * So MPI_REPLACE and MPI_NO_OP on a predefined pair go as its members'
 * bytes; other operations without results go as a derived type
 * (contiguous(1, pair): `single`) where the pair has one run; the rest
 * (MPI_MAXLOC/MPI_MINLOC with results or on MPI_SHORT_INT, and derived
 * target types with results or of MPI_SHORT_INT) are refused, and the
 * library names them (MPI_ERR_UNSUPPORTED_OPERATION). */
struct pair_types {
    MPI_Datatype pair, bytes, single;
};
static const struct pair_types *pair_types(MPI_Datatype pair, int size, MPI_Aint extent)
{
    static struct pair_types made[4];
    int i = 0;
    for (; i < 4 && made[i].pair; i++) /* Open MPI's handles are pointers */
        if (made[i].pair == pair) return &made[i];
    if (i == 4) return NULL;
    int first = size - (int)sizeof(int), lengths[2] = {first, (int)sizeof(int)};
    int at[2] = {0, (first + 3) / 4 * 4}; /* as pairs_copy */
    MPI_Datatype fields, bytes, single;
    if (MPI_Type_indexed(2, lengths, at, MPI_BYTE, &fields)) return NULL;
    int rc = MPI_Type_create_resized(fields, 0, extent, &bytes);
    MPI_Type_free(&fields);
    if (rc || MPI_Type_commit(&bytes)) return NULL;
    if (MPI_Type_contiguous(1, pair, &single) || MPI_Type_commit(&single)) return NULL;
    made[i] = (struct pair_types){pair, bytes, single};
    return &made[i];
}

/* Whether the pair's members make one run of bytes (padding at the end only). */
static int one_run(const struct laid_out *l)
{
    int first = l->size - (int)sizeof(int);
    return (first + 3) / 4 * 4 == first;
}

/* Whether tcount elements of derived type tt are tcount * size / bsize
 * elements of its basic type side by side from its start: no hole, no
 * gap between elements, nothing before the start. */
static int solid(MPI_Datatype tt, int bsize)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    return !MPI_Type_get_extent(tt, &lb, &extent) && !MPI_Type_get_true_extent(tt, &true_lb, &true_extent) &&
           !MPI_Type_size(tt, &size) && lb == 0 && true_lb == 0 && extent == true_extent &&
           true_extent == size && size % bsize == 0;
}
#endif

/* The types an accumulating operation on elements of `basic` is made
 * with: basic itself at the origin and the result, tcount of tt at the
 * target. Under Open MPI: the pair types with a hole (l: laid out at
 * their extent) as above; and a derived target type of other basic types
 * goes as its basic type where it is that type side by side (`solid`):
 * Open MPI 4.1.4's osc/rdma answers an MPI_Get_accumulate into a derived
 * target type on a created or dynamic window with garbage (natively too:
 * MPICH's rma/atomic_rmw_gacc, contiguous(10, MPI_INT)); where it is not,
 * such a get-accumulate is refused (the library names it). An MPI error
 * class. */
static int acc_types(const struct laid_out *l, MPI_Op op, int results, MPI_Datatype *basic,
                     MPI_Datatype *tt, int *tcount)
{
#ifdef OPEN_MPI
    int predefined = *tt == *basic;
    if (!l->extent) {
        int bsize, tsize;
        if (predefined || MPI_Type_size(*basic, &bsize) || MPI_Type_size(*tt, &tsize)) return MPI_SUCCESS;
        if (solid(*tt, bsize) && (int64_t)*tcount * (tsize / bsize) <= INT_MAX) {
            *tcount *= tsize / bsize, *tt = *basic;
            return MPI_SUCCESS;
        }
        return results ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_SUCCESS;
    }
    const struct pair_types *p = pair_types(*basic, l->size, l->extent);
    if (!p) return MPI_ERR_INTERN;
    if (predefined && (op == MPI_REPLACE || op == MPI_NO_OP)) {
        *basic = *tt = p->bytes;
        return MPI_SUCCESS;
    }
    if (results || !one_run(l)) return MPI_ERR_UNSUPPORTED_OPERATION;
    if (predefined) *tt = p->single;
#else
    (void)l, (void)op, (void)results, (void)basic, (void)tt, (void)tcount;
#endif
    return MPI_SUCCESS;
}

/* Every operation that moves data, to or from the target. */
static int transfer(MPI_Win w, MPI_Aint disp, struct mpcr_win_call *wc)
{
    if (!staged(wc->data, wc->bytes) || !staged(wc->aux, wc->aux_bytes)) return MPI_ERR_BUFFER;
    /* large counts: later (the int forms; Open MPI 4.1 has no _c one-sided calls) */
    if (wc->bytes > INT_MAX || wc->aux_bytes > INT_MAX || wc->tcount > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype tt = real_type(wc->ttype), basic;
    if (tt == MPI_DATATYPE_NULL) {
        wc->unknown_type = 1;
        return MPI_ERR_TYPE;
    }
    void *in = wc->bytes ? staging(wc->data) : NULL, *out = wc->aux_bytes ? staging(wc->aux) : NULL;
    int n = (int)wc->bytes, on = (int)wc->aux_bytes, tn = (int)wc->tcount, t = wc->target, rc, size;
    MPI_Op op;
    struct laid_out l = {0};
    switch (wc->op) {
    case MPCR_WIN_PUT: rc = MPI_Put(in, n, MPI_BYTE, t, disp, tn, tt, w); break;
    case MPCR_WIN_GET: rc = MPI_Get(out, on, MPI_BYTE, t, disp, tn, tt, w); break;
    case MPCR_WIN_ACC:
        if (!(rc = acc_args(wc, tt, &op, &basic, &size)) &&
            !(rc = lay_out(basic, size, in, n, NULL, 0, &l)) && !(rc = acc_types(&l, op, 0, &basic, &tt, &tn)))
            rc = MPI_Accumulate(l.in, n / size, basic, t, disp, tn, tt, op, w);
        break;
    case MPCR_WIN_GET_ACC:
        if (!(rc = acc_args(wc, tt, &op, &basic, &size)) &&
            !(rc = lay_out(basic, size, in, n, out, on, &l)) && !(rc = acc_types(&l, op, 1, &basic, &tt, &tn)))
            rc = MPI_Get_accumulate(l.in, n / size, basic, l.out, on / size, basic, t, disp, tn,
                                    tt, op, w);
        break;
    case MPCR_WIN_FETCH_OP:
    case MPCR_WIN_CAS: {
        /* one element of a predefined type: the origin's (none for MPI_NO_OP), and for a
           compare-and-swap the compared one after it */
        int cas = wc->op == MPCR_WIN_CAS;
        op = cas ? MPI_OP_NULL : real_op(wc->rop);
        if (!cas && op == MPI_OP_NULL) {
            rc = MPI_ERR_OP;
            break;
        }
        int elements = cas ? 2 : op == MPI_NO_OP ? 0 : 1;
        if (MPI_Type_size(tt, &size) || size <= 0 || on != size || n != elements * size) {
            rc = MPI_ERR_TYPE;
            break;
        }
        if ((rc = lay_out(tt, size, in, n, out, on, &l))) break;
        MPI_Aint at = l.extent ? l.extent : size; /* the compared element's place */
        MPI_Datatype as = tt, pair = tt;
        if (cas)
            rc = MPI_Compare_and_swap(l.in, l.in + at, l.out, tt, t, disp, w);
        else if ((rc = acc_types(&l, op, 1, &as, &tt, &(int){1})))
            break;
        else if (tt != pair) /* the members' bytes: a fetch-and-op takes no derived type */
            rc = MPI_Get_accumulate(l.in, l.in ? 1 : 0, tt, l.out, 1, tt, t, disp, 1, tt, op, w);
        else
            rc = MPI_Fetch_and_op(l.in ? l.in : l.out, l.out, tt, t, disp, op, w);
        break;
    }
    default: rc = MPI_ERR_ARG;
    }
    if (!rc) rc = MPI_Win_flush(t, w); /* the results are there after it */
    gather_back(&l, rc);
    return rc;
}

static int serve_win(struct mpcr_win_call *wc)
{
    switch (wc->op) {
    case MPCR_WIN_MEMORY: return windows_memory(wc->win, wc->bytes, &wc->fd, &wc->offset);
    case MPCR_WIN_RELEASE: return windows_release(wc->win, wc->at);
    case MPCR_WIN_MEMORY_OF:
        return windows_memory_of(wc->win, wc->target, wc->flag, wc->bytes, &wc->offset);
    case MPCR_WIN_ATTACH: return attached_memory(wc->at, wc->bytes, &wc->fd);
    case MPCR_WIN_DETACH: return attached_release(wc->at);
    default: break;
    }
    MPI_Win w = windows_real();
    if (w == MPI_WIN_NULL) return MPI_ERR_UNSUPPORTED_OPERATION;
    if (wc->target < 0 || wc->target >= proxy.size) return MPI_ERR_RANK;
    if (!wc->absolute && wc->at > MPCR_WIN_RESERVE) return MPI_ERR_DISP;
    /* a dynamic window's displacement is the target's address, the same in
     * its proxy (windows_attached.c); its lock words are in the reservation */
    MPI_Aint disp = (wc->absolute ? 0 : windows_base(wc->target)) + (MPI_Aint)wc->at;
    switch (wc->op) {
    case MPCR_WIN_LOCK: return lock_try(w, wc->target, disp, wc->flag != 0, &wc->result);
    case MPCR_WIN_UNLOCK: return unlock(w, wc->target, disp, wc->flag != 0);
    default: return transfer(w, disp, wc);
    }
}

void op_win(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct mpcr_win_call wc;
    if (c->bytes < sizeof wc) {
        r->rc = error_class(MPI_ERR_ARG);
        return;
    }
    memcpy(&wc, staging(c->offset), sizeof wc); /* checked as MPCR_ARG_DATA */
    wc.result = 0, wc.offset = 0, wc.fd = -1, wc.unknown_type = 0;
    int rc = wc.op < MPCR_WIN_OPS ? serve_win(&wc) : MPI_ERR_ARG;
    r->rc = error_class(rc);
    struct mpcr_win_call *out = staging(c->offset); /* the program's copy: the results back */
    out->result = wc.result, out->offset = wc.offset, out->fd = wc.fd;
    out->unknown_type = wc.unknown_type;
}
