/* The one-sided operations (MPI 4.0 12.3, 12.4; docs/one-sided.md,
 * "Operations complete at their call"): the origin's data packed with its
 * own datatype into the staging area, the target's datatype the proxy's
 * real one (sent by definition where it is derived: docs/datatypes.md),
 * made by the target's world rank at the offset of its window's memory in
 * its proxy's reservation. The proxy flushes every operation to its target
 * before it answers, so that none is in flight at a checkpoint; the
 * request-based forms return a request completed already, as MPI-IO's
 * non-blocking accesses do. */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/real_type.h"
#include "env/errors.h"
#include "pt2pt/request.h"
#include "win.h"

/* What an operation names at its target. */
struct target {
    int rank;
    MPI_Aint disp;
    MPI_Count count;
    MPI_Datatype type;
};

/* Whether the data of t lies in the target's window: checked for a
 * created window whose pages are addressed directly, where the proxy's
 * real window (attached memory) would not stop it at the window's end. */
static int inside(const struct mpcr_win *w, const struct target *t, const struct mpcr_type *tt)
{
    const struct mpcr_win_peer *p = &w->peers[t->rank];
    __int128 at = (__int128)t->disp * p->disp_unit, last = (__int128)(t->count - 1) * tt->extent;
    __int128 lo = at + tt->true_lb + (last < 0 ? last : 0);
    __int128 hi = at + tt->true_ub + (last > 0 ? last : 0);
    return lo >= 0 && hi <= (__int128)p->size;
}

/* One operation of kind op with data io at target t (rop: the op of the
 * accumulating ones). */
static int operate(enum mpcr_win_op op, const struct mpcr_win_io *io, const struct target *t,
                   MPI_Op rop, struct mpcr_win *w)
{
    const struct mpcr_type *tt = mpcr_type_get(t->type);
    if (!tt || t->type == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;
    if (t->count < 0) return MPI_ERR_COUNT;
    if (t->rank == MPI_PROC_NULL) return MPI_SUCCESS;
    uint64_t at;
    int absolute;
    int err = mpcr_win_target(w, t->rank, t->disp, &at, &absolute);
    if (err) return err;
    if (!t->count || !tt->size) return MPI_SUCCESS;
    if (absolute && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && !inside(w, t, tt)) return MPI_ERR_RMA_RANGE;
    for (int again = 0;; again++) {
        uint32_t id;
        if ((err = mpcr_real_type_id(t->type, &id))) return err;
        struct mpcr_win_call wc = {.op = op, .win = mpcr_win_id(w), .target = w->members[t->rank],
                                   .ttype = id, .rop = (uint32_t)rop, .at = at,
                                   .tcount = (uint64_t)t->count,
                                   .absolute = absolute};
        err = mpcr_win_call(&wc, io);
        if (err == MPI_ERR_UNSUPPORTED_OPERATION) /* src/proxy/serve/serve_win.c, acc_types */
            mpcr_unsupported_feature(op != MPCR_WIN_GET_ACC || tt->combiner == MPCR_COMBINER_NAMED
                                         ? "MPI_MAXLOC or MPI_MINLOC on MPI_SHORT_INT or with results "
                                           "of a pair type with a hole (MPI_SHORT_INT, MPI_LONG_INT, "
                                           "MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT), or a derived target "
                                           "datatype of MPI_SHORT_INT, in one-sided accumulates under "
                                           "Open MPI's proxy (Open MPI 4.1's osc/rdma garbles them; "
                                           "MPICH's proxy, --mpi mpich, has them)"
                                         : "MPI_Get_accumulate into a derived target datatype with "
                                           "holes under Open MPI's proxy (Open MPI 4.1's osc/rdma "
                                           "answers garbage; MPICH's proxy, --mpi mpich, has it)");
        /* a restart between the definition and its use: defined again, asked again */
        if (!wc.unknown_type || again) return err;
        if ((err = mpcr_real_type_redefine(t->type))) return err;
    }
}

/* The two sides of a transfer carry as many bytes (MPI: the same type
 * signature). */
static int same_bytes(MPI_Count count, const struct mpcr_type *ot, const struct target *t)
{
    const struct mpcr_type *tt = mpcr_type_get(t->type);
    return tt && (uint64_t)count * (uint64_t)ot->size == (uint64_t)t->count * (uint64_t)tt->size;
}

/* Predefined ops only (MPI 4.0 12.3.4), MPI_REPLACE and MPI_NO_OP among them, which
 * the generated check of reductions (OP) refuses: MPICH's handles 0x58000001..0e. */
static int predefined_op(MPI_Op op)
{
    return ((uint32_t)op & 0xffffff00u) == 0x58000000u;
}

int mpcr_impl_Put(const void *origin_addr, MPI_Count origin_count,
                  const struct mpcr_type *origin_datatype, int target_rank, MPI_Aint target_disp,
                  MPI_Count target_count, MPI_Datatype target_datatype, struct mpcr_win *win)
{
    struct target t = {target_rank, target_disp, target_count, target_datatype};
    if (target_rank != MPI_PROC_NULL && !same_bytes(origin_count, origin_datatype, &t))
        return MPI_ERR_TYPE;
    struct mpcr_win_io io = {.in = origin_addr, .in_count = origin_count, .in_type = origin_datatype};
    return operate(MPCR_WIN_PUT, &io, &t, MPI_OP_NULL, win);
}

int mpcr_impl_Get(void *origin_addr, MPI_Count origin_count,
                  const struct mpcr_type *origin_datatype, int target_rank, MPI_Aint target_disp,
                  MPI_Count target_count, MPI_Datatype target_datatype, struct mpcr_win *win)
{
    struct target t = {target_rank, target_disp, target_count, target_datatype};
    if (target_rank != MPI_PROC_NULL && !same_bytes(origin_count, origin_datatype, &t))
        return MPI_ERR_TYPE;
    struct mpcr_win_io io = {.out = origin_addr, .out_count = origin_count,
                             .out_type = origin_datatype};
    return operate(MPCR_WIN_GET, &io, &t, MPI_OP_NULL, win);
}

int mpcr_impl_Accumulate(const void *origin_addr, MPI_Count origin_count,
                         const struct mpcr_type *origin_datatype, int target_rank,
                         MPI_Aint target_disp, MPI_Count target_count,
                         MPI_Datatype target_datatype, MPI_Op op, struct mpcr_win *win)
{
    if (!predefined_op(op)) return MPI_ERR_OP;
    struct target t = {target_rank, target_disp, target_count, target_datatype};
    if (target_rank != MPI_PROC_NULL && !same_bytes(origin_count, origin_datatype, &t))
        return MPI_ERR_TYPE;
    struct mpcr_win_io io = {.in = origin_addr, .in_count = origin_count, .in_type = origin_datatype};
    return operate(MPCR_WIN_ACC, &io, &t, op, win);
}

int mpcr_impl_Get_accumulate(const void *origin_addr, MPI_Count origin_count,
                             const struct mpcr_type *origin_datatype, void *result_addr,
                             MPI_Count result_count, const struct mpcr_type *result_datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                             MPI_Datatype target_datatype, MPI_Op op, struct mpcr_win *win)
{
    if (!predefined_op(op)) return MPI_ERR_OP;
    struct target t = {target_rank, target_disp, target_count, target_datatype};
    /* With MPI_NO_OP the origin's buffer, count and datatype are ignored (MPI 4.0
     * 12.3.5): MPI_DATATYPE_NULL and a count of 0 among them (the .api marks them
     * optional: checked here for the other ops). */
    int no_op = op == MPI_NO_OP;
    if (!no_op && origin_count < 0) return MPI_ERR_COUNT;
    if (!no_op && !origin_datatype) return MPI_ERR_TYPE;
    if (target_rank != MPI_PROC_NULL && ((!no_op && !same_bytes(origin_count, origin_datatype, &t)) ||
                                         !same_bytes(result_count, result_datatype, &t)))
        return MPI_ERR_TYPE;
    struct mpcr_win_io io = {.in = origin_addr, .in_count = no_op ? 0 : origin_count,
                             .in_type = no_op ? NULL : origin_datatype, .out = result_addr,
                             .out_count = result_count, .out_type = result_datatype};
    return operate(MPCR_WIN_GET_ACC, &io, &t, op, win);
}

/* Fetch_and_op and Compare_and_swap: one element of a predefined type. */
static int atomic(enum mpcr_win_op kind, const void *origin, const void *compare, void *result,
                  MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op,
                  struct mpcr_win *win)
{
    const struct mpcr_type *ty = mpcr_type_get(datatype);
    if (!ty || !mpcr_type_is_predefined(datatype)) return MPI_ERR_TYPE;
    if (kind == MPCR_WIN_FETCH_OP && !predefined_op(op)) return MPI_ERR_OP;
    struct target t = {target_rank, target_disp, 1, datatype};
    char in[2 * 64]; /* the origin's element, then the compared one (a predefined type's) */
    if (ty->size > 64) return MPI_ERR_TYPE;
    MPI_Count n = kind == MPCR_WIN_CAS ? 2 : op == MPI_NO_OP ? 0 : 1;
    if (n) mpcr_pack(in, origin, 1, ty);
    if (n == 2) mpcr_pack(in + ty->size, compare, 1, ty);
    /* the packed elements go as bytes */
    struct mpcr_win_io io = {.in = in, .in_count = n * ty->size, .in_type = mpcr_type_get(MPI_BYTE),
                             .out = result, .out_count = 1, .out_type = ty};
    return operate(kind, &io, &t, op, win);
}

int mpcr_impl_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Op op, struct mpcr_win *win)
{
    return atomic(MPCR_WIN_FETCH_OP, origin_addr, NULL, result_addr, datatype, target_rank,
                  target_disp, op, win);
}

int mpcr_impl_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                               void *result_addr, MPI_Datatype datatype, int target_rank,
                               MPI_Aint target_disp, struct mpcr_win *win)
{
    return atomic(MPCR_WIN_CAS, origin_addr, compare_addr, result_addr, datatype, target_rank,
                  target_disp, MPI_OP_NULL, win);
}

/* ---- request-based: complete at their start ---- */

static int completed(int err, struct mpcr_win *w, MPI_Request *request)
{
    if (err) return err;
    struct mpcr_request *q = mpcr_request_new(w->comm, request);
    if (!q) return MPI_ERR_NO_MEM;
    q->kind = MPCR_REQ_RECV; /* its status is the program's whole (mpcr_request_status_out) */
    q->token = 0, q->rc = MPI_SUCCESS;
    q->status = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG};
    return MPI_SUCCESS;
}

int mpcr_impl_Rput(const void *origin_addr, MPI_Count origin_count,
                   const struct mpcr_type *origin_datatype, int target_rank, MPI_Aint target_disp,
                   MPI_Count target_count, MPI_Datatype target_datatype, struct mpcr_win *win,
                   MPI_Request *request)
{
    return completed(mpcr_impl_Put(origin_addr, origin_count, origin_datatype, target_rank,
                                   target_disp, target_count, target_datatype, win),
                     win, request);
}

int mpcr_impl_Rget(void *origin_addr, MPI_Count origin_count,
                   const struct mpcr_type *origin_datatype, int target_rank, MPI_Aint target_disp,
                   MPI_Count target_count, MPI_Datatype target_datatype, struct mpcr_win *win,
                   MPI_Request *request)
{
    return completed(mpcr_impl_Get(origin_addr, origin_count, origin_datatype, target_rank,
                                   target_disp, target_count, target_datatype, win),
                     win, request);
}

int mpcr_impl_Raccumulate(const void *origin_addr, MPI_Count origin_count,
                          const struct mpcr_type *origin_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, struct mpcr_win *win,
                          MPI_Request *request)
{
    return completed(mpcr_impl_Accumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                          target_disp, target_count, target_datatype, op, win),
                     win, request);
}

int mpcr_impl_Rget_accumulate(const void *origin_addr, MPI_Count origin_count,
                              const struct mpcr_type *origin_datatype, void *result_addr,
                              MPI_Count result_count, const struct mpcr_type *result_datatype,
                              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                              MPI_Datatype target_datatype, MPI_Op op, struct mpcr_win *win,
                              MPI_Request *request)
{
    return completed(mpcr_impl_Get_accumulate(origin_addr, origin_count, origin_datatype,
                                              result_addr, result_count, result_datatype,
                                              target_rank, target_disp, target_count,
                                              target_datatype, op, win),
                     win, request);
}
