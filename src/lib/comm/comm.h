/* Communicators (comm.c, intercomm.c, comm_split_hw.c) and groups
 * (group.c): what the rest of the library knows of them. A communicator is
 * the program's: its rank, size, members, name, error handler and topology
 * live in the application's heap; the proxy knows it by its vid. */
#ifndef MPCR_COMM_H
#define MPCR_COMM_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/handle.h"

/* ---- communicators (comm.c) ---- */
struct mpcr_topo; /* its topology: topo.h */
struct mpcr_comm {
    struct mpcr_object h; /* user communicators; unused for WORLD and SELF */
    uint32_t vid;         /* the proxy's id of it */
    int rank, size;
    MPI_Errhandler errhandler;
    uint32_t coll_seq; /* collectives this rank started on it (coll/coll.h: their tags) */
    uint8_t hints;     /* the MPI 4 assertions set on it, a bit each (comm_info.c) */
    int32_t *members;       /* world rank of each rank, malloc'd; NULL: MPI_COMM_WORLD's */
    char *name;             /* MPI_Comm_set_name's (malloc'd), or NULL: the default */
    struct mpcr_topo *topo; /* its topology (topo.c), or NULL */
    struct mpcr_inter *inter; /* an inter-communicator's other side (intercomm.c), or NULL */
    struct mpcr_part_inits *part_inits; /* partitioned inits counted on it (pt2pt/partitioned.c) */
};
/* Frees what partitioned communication counted on c (pt2pt/partitioned.c). */
void mpcr_partitioned_comm_gone(struct mpcr_comm *c);
struct mpcr_comm *mpcr_comm_get(MPI_Comm comm); /* NULL when invalid */
/* The world rank of rank r of c (of its local group, for an inter-communicator). */
static inline int32_t mpcr_comm_world_rank(const struct mpcr_comm *c, int r)
{
    return c->members ? c->members[r] : r;
}

/* An inter-communicator (docs/communicators.md): at the proxy one
 * intra-communicator over both groups (the "span": the group whose leader
 * has the lower world rank first), named by the inter-communicator's vid;
 * here its local group (members, rank, size of struct mpcr_comm) and this.
 * Point-to-point translates the ranks the program names (the remote group's)
 * into ranks of the span, and the span's back into the remote group's. */
struct mpcr_inter {
    int remote_size;
    int32_t *remote;    /* world rank of each remote rank */
    int32_t *to_span;   /* rank in the span of each remote rank */
    int32_t *from_span; /* remote rank of each rank of the span; -1: a local one */
    int span_size;      /* the span's size, local and remote groups together */
    int low;            /* the local group comes first in the span (MPI_Intercomm_merge's tie) */
    struct mpcr_comm *local; /* a hidden intra-communicator over the local group (collectives);
                                NULL until mpcr_inter_ready makes it */
};
/* The ranks a point-to-point call on c may name: the remote group's size
 * for an inter-communicator. */
static inline int mpcr_comm_peers(const struct mpcr_comm *c)
{
    return c->inter ? c->inter->remote_size : c->size;
}
/* A rank the program names (>= 0) as the proxy's communicator knows it;
 * wildcards and MPI_PROC_NULL unchanged. */
static inline int mpcr_comm_peer_out(const struct mpcr_comm *c, int rank)
{
    return c && c->inter && rank >= 0 ? c->inter->to_span[rank] : rank;
}
/* A source the proxy reports (>= 0) as the program knows it. */
static inline int mpcr_comm_peer_in(const struct mpcr_comm *c, int source)
{
    return c && c->inter && source >= 0 && source < c->inter->span_size
               ? c->inter->from_span[source]
               : source;
}
/* The size of the proxy's communicator behind c (the span's for an
 * inter-communicator). */
static inline int mpcr_comm_proxy_size(const struct mpcr_comm *c)
{
    return c->inter ? c->inter->span_size : c->size;
}
/* Creation helpers of comm.c that intercomm.c builds on. */
int mpcr_comm_create_world(const int32_t *world_ranks, int n, int tag, MPI_Errhandler eh,
                           struct mpcr_comm **out);
void mpcr_comm_release(struct mpcr_comm *c); /* a hidden or failed communicator: gone */
/* MPI_Comm_split_type's hardware types (comm_split_hw.c). */
int mpcr_comm_split_hw(struct mpcr_comm *c, int split_type, int key, MPI_Info info,
                       MPI_Comm *newcomm);
int mpcr_comm_split_neighborhood(struct mpcr_comm *c, int key, MPI_Info info, MPI_Comm *newcomm);
/* MPI_Comm_idup (comm.c): newcomm at once, made at the proxy by the request. */
int mpcr_comm_idup(struct mpcr_comm *c, MPI_Comm *newcomm, MPI_Request *request);
/* COMM_SPLIT of the proxy's communicator behind c (an inter-communicator's span). */
int mpcr_comm_split_span(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out);
/* COMM_SPLIT_TYPE of it: the span's ranks on this rank's host. */
int mpcr_comm_split_type_span(struct mpcr_comm *c, int split_type, int key,
                              struct mpcr_comm **out);
/* intercomm.c: what comm.c's dup, split, compare, free do for an inter-communicator.
 * MPI_Comm_idup's duplicate gets its hidden local communicator at its first
 * collective (mpcr_inter_ready), which every rank of both groups calls, so
 * the duplicate needs no blocking creation (MPI_Comm_dup makes it at once). */
int mpcr_inter_dup(const struct mpcr_comm *c, struct mpcr_comm *n);
/* Before a collective on inter-communicator c: its hidden local communicator
 * made if it is not yet (a split of the span, collective over both groups). */
int mpcr_inter_ready(struct mpcr_comm *c);
int mpcr_inter_split(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out);
int mpcr_inter_split_type(struct mpcr_comm *c, int split_type, int key, struct mpcr_comm **out);
struct mpcr_group;
int mpcr_inter_create(struct mpcr_comm *c, struct mpcr_group *g, MPI_Comm *newcomm);
int mpcr_inter_compare(const struct mpcr_comm *a, const struct mpcr_comm *b);
void mpcr_inter_destroy(struct mpcr_inter *x);

/* ---- groups (group.c): ranks of MPI_COMM_WORLD, in the group's order ---- */
struct mpcr_group {
    struct mpcr_object h; /* user groups; unused for MPI_GROUP_EMPTY */
    int size;
    int32_t ranks[]; /* world ranks */
};
struct mpcr_group *mpcr_group_get(MPI_Group group); /* NULL when invalid */
/* A new group of n world ranks (copied) and its handle; MPI_GROUP_EMPTY when n is 0. */
int mpcr_group_make(const int32_t *ranks, int n, MPI_Group *handle);
/* Rank of world rank w in the group, or MPI_UNDEFINED. */
int mpcr_group_rank_of(const struct mpcr_group *g, int32_t w);

/* ---- more of comm.c ---- */
/* A request on the communicator keeps it alive after MPI_Comm_free. */
void mpcr_comm_ref(struct mpcr_comm *c);
void mpcr_comm_unref(struct mpcr_comm *c);
/* A new communicator of the ranks of c with color >= 0, ordered by key then
 * rank (MPI_Comm_split); *out NULL where this rank's color is MPI_UNDEFINED. */
int mpcr_comm_split(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out);
/* A duplicate of c (its topology not copied), as MPI_Comm_dup makes it. */
int mpcr_comm_dup(struct mpcr_comm *c, struct mpcr_comm **out);
/* The program's handle of a new communicator. */
MPI_Comm mpcr_comm_handle(struct mpcr_comm *c);
/* The handle of a communicator object, MPI_COMM_WORLD and SELF included. */
MPI_Comm mpcr_comm_handle_of(struct mpcr_comm *c);

#endif
