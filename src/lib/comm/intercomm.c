/* Inter-communicators (MPI 4.0 section 7.6): MPI_Intercomm_create,
 * MPI_Intercomm_merge, MPI_Comm_remote_size, MPI_Comm_remote_group, and what
 * MPI_Comm_dup, MPI_Comm_split(_type) and MPI_Comm_compare do with one.
 *
 * The proxy knows no inter-communicator: behind one is an ordinary
 * communicator over both groups, the span (the group whose leader has the
 * lower world rank first, so both sides agree on it), which the record
 * re-creates at a restart from its members as it does every communicator.
 * The inter-communicator itself, its local group (struct mpcr_comm's
 * members, rank, size) and its remote group (struct mpcr_inter, comm.h),
 * lives in the program's memory, so in its image: after a restart the
 * handle means what it meant (docs/communicators.md). Point-to-point
 * translates ranks between the remote group and the span (comm.h:
 * mpcr_comm_peer_out/in); the collectives (coll_inter.c) also use a hidden
 * intra-communicator over the local group. */
#include "api_gen.h"
#include "comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "pt2pt/p2p.h"
#include "runtime/runtime.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

void mpcr_inter_destroy(struct mpcr_inter *x)
{
    free(x->remote);
    free(x->to_span);
    free(x->from_span);
    if (x->local) mpcr_comm_release(x->local);
    free(x);
}

static int has(const int32_t *set, int n, int32_t w)
{
    for (int i = 0; i < n; i++)
        if (set[i] == w) return 1;
    return 0;
}

static struct mpcr_inter *inter_alloc(int span)
{
    struct mpcr_inter *x = calloc(1, sizeof *x);
    size_t bytes = ((size_t)span + 1) * sizeof(int32_t);
    if (!x) return NULL;
    x->span_size = span;
    x->remote = malloc(bytes), x->to_span = malloc(bytes), x->from_span = malloc(bytes);
    if (x->remote && x->to_span && x->from_span) return x;
    mpcr_inter_destroy(x);
    return NULL;
}

/* Makes n, just made over a span (its members, rank and size the span's),
 * an inter-communicator whose local group is the span's members among
 * local[0..nlocal) (world ranks), in the span's order; with a remote group,
 * also its hidden local communicator (a split of the span, one color per
 * group: collective over the span). *lonely is set when the span holds no
 * remote member: n is then of no use (MPI_Comm_split's MPI_COMM_NULL). */
static int make_inter(struct mpcr_comm *n, const int32_t *local, int nlocal, int *lonely)
{
    int span = n->size, me = n->rank, nl = 0, nr = 0;
    struct mpcr_inter *x = inter_alloc(span);
    int32_t *mine = malloc(((size_t)span + 1) * sizeof *mine);
    if (!x || !mine) {
        if (x) mpcr_inter_destroy(x);
        free(mine);
        return MPI_ERR_NO_MEM;
    }
    for (int u = 0; u < span; u++) {
        int32_t w = n->members[u];
        if (has(local, nlocal, w)) {
            if (u == me) n->rank = nl;
            x->from_span[u] = -1, mine[nl++] = w;
        } else {
            x->from_span[u] = nr, x->to_span[nr] = u, x->remote[nr++] = w;
        }
    }
    x->remote_size = nr, x->low = span > 0 && x->from_span[0] < 0; /* span >= 1: gcc -O3 cannot tell */
    free(n->members);
    n->members = mine, n->size = nl, n->inter = x;
    *lonely = nr == 0;
    if (!nr) return MPI_SUCCESS; /* nobody in the span makes a local communicator */
    return mpcr_comm_split_span(n, x->low ? 0 : 1, n->rank, &x->local);
}

/* Makes the inter-communicator between the local group `mine` (nl world
 * ranks) and `theirs` (nr): its span (the low group first) with the
 * checkpoint-safe COMM_CREATE_GROUP over MPI_COMM_WORLD and tag, then
 * what makes it an inter-communicator. */
static int span_create(const int32_t *mine, int nl, const int32_t *theirs, int nr, int low, int tag,
                       MPI_Errhandler eh, MPI_Comm *newintercomm)
{
    int32_t *span = malloc((size_t)(nl + nr) * sizeof *span);
    if (!span) return MPI_ERR_NO_MEM;
    memcpy(span + (low ? 0 : nr), mine, (size_t)nl * sizeof *span);
    memcpy(span + (low ? nl : 0), theirs, (size_t)nr * sizeof *span);
    struct mpcr_comm *n = NULL;
    int lonely, err = mpcr_comm_create_world(span, nl + nr, tag, eh, &n);
    free(span);
    if (!err) err = make_inter(n, mine, nl, &lonely);
    if (err && n) mpcr_comm_release(n);
    if (!err) *newintercomm = mpcr_comm_handle(n);
    return err;
}

/* What the leaders exchange and broadcast: the group's size, its leader's
 * world rank, the tag, then the members' world ranks. A leader that met an
 * error sends its negated class as the size. */
enum { HEAD_SIZE, HEAD_LEADER, HEAD_TAG, HEAD };

int mpcr_impl_Intercomm_create(struct mpcr_comm *lc, int local_leader, MPI_Comm peer_comm,
                               int remote_leader, int tag, MPI_Comm *newintercomm)
{
    if (lc->inter) return MPI_ERR_COMM;
    if (local_leader < 0 || local_leader >= lc->size) return MPI_ERR_RANK;
    const struct mpcr_type *ints = mpcr_type_get(MPI_INT);
    int cap = HEAD + mpcr.size, err = MPI_SUCCESS;
    int32_t *mine = calloc((size_t)cap, sizeof *mine),
            *theirs = calloc((size_t)cap, sizeof *theirs);
    if (!mine || !theirs) {
        free(mine);
        free(theirs);
        return MPI_ERR_NO_MEM;
    }
    mine[HEAD_SIZE] = lc->size, mine[HEAD_LEADER] = mpcr_comm_world_rank(lc, local_leader);
    mine[HEAD_TAG] = tag;
    for (int r = 0; r < lc->size; r++)
        mine[HEAD + r] = mpcr_comm_world_rank(lc, r);
    if (lc->rank == local_leader) { /* the leaders meet on peer_comm, with tag */
        struct mpcr_comm *pc = mpcr_comm_get(peer_comm);
        if (!pc)
            err = MPI_ERR_COMM;
        else if (remote_leader < 0 || remote_leader >= mpcr_comm_peers(pc))
            err = MPI_ERR_RANK;
        else if (tag < 0 || tag > mpcr.tag_ub)
            err = MPI_ERR_TAG;
        else
            err = mpcr_exchange(pc, remote_leader, tag, mine, cap, ints, remote_leader, tag, theirs,
                                cap, ints, MPI_STATUS_IGNORE);
        if (err) theirs[HEAD_SIZE] = -err;
    }
    int berr = mpcr_impl_Bcast(theirs, cap, ints, local_leader, lc);
    int nr = theirs[HEAD_SIZE], nl = lc->size;
    if (!berr && nr <= 0) berr = nr < 0 ? -nr : MPI_ERR_COMM;
    if (!berr && (nr > mpcr.size - nl || has(theirs + HEAD, nr, mpcr.rank))) berr = MPI_ERR_COMM;
    if (!berr)
        berr =
            span_create(mine + HEAD, nl, theirs + HEAD, nr, mine[HEAD_LEADER] < theirs[HEAD_LEADER],
                        theirs[HEAD_TAG], lc->errhandler, newintercomm);
    free(mine);
    free(theirs);
    return berr;
}

/* MPI 4.0 11.14.3: both groups are given, so no leader need tell its group
 * the other; the span is made with a tag from stringtag (every member gives
 * the same). */
int mpcr_impl_Intercomm_create_from_groups(struct mpcr_group *lg, int local_leader,
                                           struct mpcr_group *rg, int remote_leader,
                                           const char *stringtag, struct mpcr_info *info,
                                           MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    (void)info; /* hints: none changes mpcr */
    if (!stringtag) return MPI_ERR_ARG;
    if (local_leader < 0 || local_leader >= lg->size || remote_leader < 0 ||
        remote_leader >= rg->size)
        return MPI_ERR_RANK;
    if (mpcr_group_rank_of(lg, mpcr.rank) == MPI_UNDEFINED ||
        mpcr_group_rank_of(rg, mpcr.rank) != MPI_UNDEFINED)
        return MPI_ERR_GROUP;
    /* the same on every member, within the least MPI_TAG_UB */
    uint32_t tag = mpcr_hash32(MPCR_HASH32_INIT, stringtag, strlen(stringtag));
    return span_create(lg->ranks, lg->size, rg->ranks, rg->size,
                       lg->ranks[local_leader] < rg->ranks[remote_leader], (int)(tag % 32768),
                       errhandler, newintercomm);
}

/* MPI 4.0 11.14.2 (sessions): collective over the group's members only, so
 * a creation over the world communicator restricted to them (the proxy's
 * MPI_Comm_create_group), with a tag from stringtag's hash: every member
 * gives the same stringtag, so the same tag. The tag only keeps concurrent
 * creations over overlapping groups apart; two stringtags whose hashes meet
 * modulo 32768 used at the same moment by overlapping groups would be
 * confused (docs/sessions.md). The record re-creates the result at a
 * restart from its members like any communicator. */
int mpcr_impl_Comm_create_from_group(struct mpcr_group *g, const char *stringtag,
                                     struct mpcr_info *info, MPI_Errhandler errhandler,
                                     MPI_Comm *newcomm)
{
    (void)info; /* hints: none changes mpcr */
    if (!stringtag) return MPI_ERR_ARG;
    if (mpcr_group_rank_of(g, mpcr.rank) == MPI_UNDEFINED) return MPI_ERR_GROUP;
    uint32_t tag = mpcr_hash32(MPCR_HASH32_INIT, stringtag, strlen(stringtag));
    struct mpcr_comm *n;
    int err = mpcr_comm_create_world(g->ranks, g->size, (int)(tag % 32768), errhandler, &n);
    if (!err) *newcomm = mpcr_comm_handle(n);
    return err;
}

/* A split of the span keyed by `high`: the group with high false first,
 * and with both alike the low group (the span's order), as MPICH does. */
int mpcr_impl_Intercomm_merge(struct mpcr_comm *c, int high, MPI_Comm *newintracomm)
{
    if (!c->inter) return MPI_ERR_COMM;
    struct mpcr_comm *n;
    int err = mpcr_comm_split_span(c, 0, high ? 1 : 0, &n);
    if (!err) *newintracomm = mpcr_comm_handle(n);
    return err;
}

int mpcr_impl_Comm_remote_size(struct mpcr_comm *c, int *size)
{
    if (!c->inter) return MPI_ERR_COMM;
    if (!size) return MPI_ERR_ARG;
    *size = c->inter->remote_size;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_remote_group(struct mpcr_comm *c, MPI_Group *group)
{
    if (!c->inter) return MPI_ERR_COMM;
    return mpcr_group_make(c->inter->remote, c->inter->remote_size, group);
}

int mpcr_inter_dup(const struct mpcr_comm *c, struct mpcr_comm *n)
{
    const struct mpcr_inter *from = c->inter;
    struct mpcr_inter *x = inter_alloc(from->span_size);
    if (!x) return MPI_ERR_NO_MEM;
    x->remote_size = from->remote_size, x->low = from->low;
    memcpy(x->remote, from->remote, (size_t)from->remote_size * sizeof(int32_t));
    memcpy(x->to_span, from->to_span, (size_t)from->remote_size * sizeof(int32_t));
    memcpy(x->from_span, from->from_span, (size_t)from->span_size * sizeof(int32_t));
    n->inter = x; /* its hidden local communicator: made at its first collective */
    return MPI_SUCCESS;
}

int mpcr_inter_ready(struct mpcr_comm *c)
{
    struct mpcr_inter *x = c->inter;
    if (x->local || !x->remote_size) return MPI_SUCCESS;
    return mpcr_comm_split_span(c, x->low ? 0 : 1, c->rank, &x->local);
}

/* n, a split of c's span (NULL where this rank's color was MPI_UNDEFINED),
 * made an inter-communicator: this rank's group's part of it meets the
 * other group's part; NULL where the other group has no rank in it. */
static int inter_of_split(struct mpcr_comm *c, struct mpcr_comm *n, struct mpcr_comm **out)
{
    int lonely = 0, err = n ? make_inter(n, c->members, c->size, &lonely) : MPI_SUCCESS;
    if (n && (err || lonely)) {
        mpcr_comm_release(n);
        n = NULL;
    }
    *out = n;
    return err;
}

/* Each group splits by color; a color's local part meets the remote part
 * of the same color (MPI 4.0 7.4.2). Ranks in each part follow the key,
 * then the rank in c: the span's split orders so, and keeps each group's
 * ranks in their order. A part with no remote partner gets MPI_COMM_NULL. */
int mpcr_inter_split(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out)
{
    *out = NULL;
    if (color < 0 && color != MPI_UNDEFINED) return MPI_ERR_ARG;
    struct mpcr_comm *n;
    int err = mpcr_comm_split_span(c, color, key, &n);
    return err ? err : inter_of_split(c, n, out);
}

/* The same with the host as color (comm.c: mpcr_impl_Comm_split_type). */
int mpcr_inter_split_type(struct mpcr_comm *c, int split_type, int key, struct mpcr_comm **out)
{
    *out = NULL;
    struct mpcr_comm *n;
    int err = mpcr_comm_split_type_span(c, split_type, key, &n);
    return err ? err : inter_of_split(c, n, out);
}

/* MPI_Comm_create: each group gives a subgroup of itself; the members of
 * both meet in a new inter-communicator, in their subgroup's order (a split
 * keyed by the rank in it). MPI_COMM_NULL outside them, and where the other
 * group gave an empty one. */
int mpcr_inter_create(struct mpcr_comm *c, struct mpcr_group *g, MPI_Comm *newcomm)
{
    for (int i = 0; i < g->size; i++)
        if (!has(c->members, c->size, g->ranks[i])) return MPI_ERR_GROUP;
    int me = mpcr_group_rank_of(g, mpcr.rank);
    struct mpcr_comm *n;
    int err = mpcr_inter_split(c, me == MPI_UNDEFINED ? MPI_UNDEFINED : 0, me, &n);
    if (!err) *newcomm = n ? mpcr_comm_handle(n) : MPI_COMM_NULL;
    return err;
}

/* MPI_IDENT for the same order, MPI_SIMILAR for the same members, else MPI_UNEQUAL. */
static int compare_lists(const int32_t *a, int na, const int32_t *b, int nb)
{
    if (na != nb) return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < na; i++) {
        if (a[i] != b[i]) same_order = 0;
        if (!has(b, nb, a[i])) return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

int mpcr_inter_compare(const struct mpcr_comm *a, const struct mpcr_comm *b)
{
    if (!a->inter || !b->inter) return MPI_UNEQUAL;
    int l = compare_lists(a->members, a->size, b->members, b->size);
    int r = compare_lists(a->inter->remote, a->inter->remote_size, b->inter->remote,
                          b->inter->remote_size);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL) return MPI_UNEQUAL;
    return l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}
