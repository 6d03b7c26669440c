/* The chapters of the Open MPI front end beyond tour.c, built with
 * mpicc.openmpi: each part prints what it found, from rank 0, in an order
 * that does not depend on timing, so that `mpcr run -n 2` can be compared
 * with `mpirun.openmpi -n 2` (tests/ompiabi/ompiabi.sh). The parts:
 * communicators (split_type, range groups, create_group, idup, info,
 * intercommunicators), topologies (cart, graph, dist_graph with
 * MPI_UNWEIGHTED, neighbourhood collectives, alltoallw on them),
 * collectives (alltoallw, ireduce_scatter, Open MPI's MPIX_ persistent
 * ones, a matched receive's MPI_MESSAGE_NULL), datatypes (subarray and darray
 * with Open MPI's order and distribution values, their envelopes,
 * hindexed_block, MPI-1 constructors, external32, match_size, f90 types,
 * type attributes), MPI-1 keyvals, user error classes and codes,
 * generalized requests, MPI-IO (views, collective and shared writes, a
 * file's error handler, Fortran handles and statuses), one-sided (windows
 * of the three flavors and their attributes, Open MPI's lock types and
 * assert bits, MPI_PROC_NULL targets, request-based operations, window
 * keyvals with callbacks, error handlers, names, Fortran handles). */
#include <mpi.h>
#ifdef OPEN_MPI
#include <mpi-ext.h> /* Open MPI's MPIX_Allreduce_init... */
#define PERSISTENT(name) MPIX_##name
#else /* MPI 4.0's, as built for MPICH or the standard ABI (tests/stdabi.cmake) */
#define PERSISTENT(name) MPI_##name
#endif
#ifdef MPI_ABI_VERSION /* MPI 3.0 removed these MPI-1 functions: the MPI 5.0 ABI has their successors */
#define MPI_Type_hvector MPI_Type_create_hvector
#define MPI_Type_struct MPI_Type_create_struct
#define MPI_Errhandler_get MPI_Comm_get_errhandler
#define MPI_Errhandler_set MPI_Comm_set_errhandler
static int MPI_Type_extent(MPI_Datatype t, MPI_Aint *extent)
{
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, extent);
}
static int MPI_Type_lb(MPI_Datatype t, MPI_Aint *lb)
{
    MPI_Aint extent;
    return MPI_Type_get_extent(t, lb, &extent);
}
static int MPI_Type_ub(MPI_Datatype t, MPI_Aint *ub)
{
    MPI_Aint lb, extent;
    int err = MPI_Type_get_extent(t, &lb, &extent);
    *ub = lb + extent;
    return err;
}
#endif
#ifdef MPI_ABI_VERSION /* the MPI 5.0 ABI's handles as ints; it has no Fortran status */
typedef int handle_int;
#define C2F(Kind, h) MPI_##Kind##_toint(h)
#define F2C(Kind, i) MPI_##Kind##_fromint(i)
#else
typedef MPI_Fint handle_int;
#define C2F(Kind, h) MPI_##Kind##_c2f(h)
#define F2C(Kind, i) MPI_##Kind##_f2c(i)
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* the MPI-1 functions are what is tested; gcc reads MPI_UNWEIGHTED as an empty array */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, size;

#define SAY(...)                                                                                   \
    do {                                                                                           \
        if (rank == 0) printf(__VA_ARGS__);                                                        \
        fflush(stdout);                                                                            \
    } while (0)

static int type_copies, type_deletes;
static int type_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)keyval, (void)extra;
    type_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)keyval, (void)value;
    type_deletes += t != MPI_DATATYPE_NULL && *(int *)extra == 7;
    return MPI_SUCCESS;
}

static int old_copies;
static int old_copy(MPI_Comm c, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)keyval, (void)extra;
    old_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int greq_queried, greq_freed;
static int greq_query(void *extra, MPI_Status *status)
{
    greq_queried += *(int *)extra;
    MPI_Status_set_elements(status, MPI_INT, 3);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = 77;
    return MPI_SUCCESS;
}
static int greq_free(void *extra)
{
    greq_freed += *(int *)extra;
    return MPI_SUCCESS;
}
static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static int file_handled, file_class;
static void file_handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    file_handled++;
    MPI_Error_class(*code, &file_class);
}

static void communicators(void)
{
    MPI_Comm shared, dup, created, inter, merged;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int n;
    MPI_Comm_size(shared, &n);
    SAY("split_type shared: %d ranks\n", n);
    MPI_Comm_free(&shared);

    MPI_Group world, range;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranges[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, ranges, &range);
    int r;
    MPI_Group_rank(range, &r);
    MPI_Group_size(range, &n);
    SAY("range_incl reversed: size %d, my rank there %d\n", n, r);
    MPI_Comm_create_group(MPI_COMM_WORLD, range, 5, &created);
    MPI_Comm_rank(created, &r);
    SAY("create_group: rank %d\n", r);
    MPI_Comm_free(&created);
    MPI_Group_free(&range);
    MPI_Group_free(&world);

    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    SAY("idup: allreduce %d\n", sum);
    MPI_Info info;
    MPI_Comm_get_info(dup, &info);
    SAY("get_info: %s\n", info != MPI_INFO_NULL ? "an info" : "null");
    MPI_Info_free(&info);

    /* an intercommunicator of the even and odd ranks */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
    int flag, rsize;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Group remote;
    MPI_Comm_remote_group(inter, &remote);
    MPI_Group_size(remote, &n);
    SAY("intercomm: inter %d, remote size %d, remote group %d\n", flag, rsize, n);
    int root = rank == 0 ? MPI_ROOT : (rank % 2 ? 0 : MPI_PROC_NULL), v = rank == 0 ? 42 : 0;
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    int got = v;
    MPI_Reduce(&got, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    SAY("intercomm bcast from MPI_ROOT: %d\n", sum);
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Comm_rank(merged, &r);
    MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    SAY("merge: ranks sum %d\n", sum);
    MPI_Group_free(&remote);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

static void topologies(void)
{
    /* not periodic: with 2 ranks, a periodic dimension's two neighbours are
     * one rank, and which message lands where is not defined (Open MPI's
     * blocking and non-blocking neighbourhood collectives disagree) */
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    SAY("dims_create: %d x %d\n", dims[0], dims[1]);
    MPI_Comm cart, sub, graph, dist;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int topo, nd, src, dst, coords[2];
    MPI_Topo_test(cart, &topo);
    MPI_Cartdim_get(cart, &nd);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    SAY("cart: topo %s, %d dims, shift along 1: %s %s\n", topo == MPI_CART ? "MPI_CART" : "?", nd,
        src == MPI_PROC_NULL ? "MPI_PROC_NULL" : "a rank", dst == MPI_PROC_NULL ? "MPI_PROC_NULL" : "a rank");
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Cart_coords(cart, rank, 2, coords);
    int r;
    MPI_Cart_rank(cart, coords, &r);
    SAY("cart: along 0: %s -> me -> %d, coords (%d,%d), rank %d\n",
        src == MPI_PROC_NULL ? "MPI_PROC_NULL" : "a rank", dst, coords[0], coords[1], r);
    int remain[2] = {1, 0};
    MPI_Cart_sub(cart, remain, &sub);
    MPI_Comm_size(sub, &nd);
    SAY("cart_sub: %d\n", nd);
    /* neighbours along dimension 0 (rank 0: MPI_PROC_NULL, 1), 1 (none) */
    int sendn[4], recvn[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 4; i++) sendn[i] = 10 * rank + i;
    MPI_Neighbor_alltoall(sendn, 1, MPI_INT, recvn, 1, MPI_INT, cart);
    SAY("neighbor_alltoall: %d %d %d %d\n", recvn[0], recvn[1], recvn[2], recvn[3]);
    int counts[4] = {1, 1, 1, 1};
    MPI_Aint bdispls[4] = {0, sizeof(int), 2 * sizeof(int), 3 * sizeof(int)};
    MPI_Datatype types[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
    memset(recvn, 0xff, sizeof recvn);
    MPI_Request req;
    MPI_Ineighbor_alltoallw(sendn, counts, bdispls, types, recvn, counts, bdispls, types, cart, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    SAY("ineighbor_alltoallw: %d %d %d %d\n", recvn[0], recvn[1], recvn[2], recvn[3]);
    int all[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, sub);
    SAY("neighbor_allgather on the sub: %d %d\n", all[0], all[1]);

    /* a ring as a graph */
    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    int nn, ne, nb[2];
    MPI_Topo_test(graph, &topo);
    MPI_Graphdims_get(graph, &nn, &ne);
    MPI_Graph_neighbors_count(graph, rank, &r);
    MPI_Graph_neighbors(graph, rank, 2, nb);
    SAY("graph: topo %s, %d nodes, %d edges, %d neighbours: %d %d\n",
        topo == MPI_GRAPH ? "MPI_GRAPH" : "?", nn, ne, r, nb[0], nb[1]);

    int from = (rank + size - 1) % size, to = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist);
    int in, out, weighted;
    MPI_Topo_test(dist, &topo);
    MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted);
    int s, d;
    MPI_Dist_graph_neighbors(dist, 1, &s, MPI_UNWEIGHTED, 1, &d, MPI_UNWEIGHTED);
    SAY("dist_graph: topo %s, in %d out %d weighted %d, from %d to %d\n",
        topo == MPI_DIST_GRAPH ? "MPI_DIST_GRAPH" : "?", in, out, weighted, s, d);
    int got = -1;
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, &got, 1, MPI_INT, dist);
    SAY("dist neighbor_allgather: %d\n", got);
    MPI_Comm weighted_dist;
    int w = 3;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, (int[]){1}, &to, &w, MPI_INFO_NULL, 0,
                          &weighted_dist);
    MPI_Dist_graph_neighbors_count(weighted_dist, &in, &out, &weighted);
    int sw = 0, dw = 0;
    MPI_Dist_graph_neighbors(weighted_dist, 1, &s, &sw, 1, &d, &dw);
    SAY("dist_graph_create weighted: in %d out %d weighted %d, weights %d %d\n", in, out,
        weighted, sw, dw);
    MPI_Comm_free(&weighted_dist);
    MPI_Comm_free(&dist);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);
}

static void collectives(void)
{
    int send[64], recv[64], counts[64], displs[64];
    MPI_Datatype types[64];
    for (int i = 0; i < size; i++) {
        send[i] = 100 * rank + i;
        counts[i] = 1;
        displs[i] = i * (int)sizeof(int);
        types[i] = MPI_INT;
    }
    MPI_Alltoallw(send, counts, displs, types, recv, counts, displs, types, MPI_COMM_WORLD);
    SAY("alltoallw: %d %d\n", recv[0], recv[size - 1]);
    MPI_Request req;
    MPI_Ialltoallw(send, counts, displs, types, recv, counts, displs, types, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    SAY("ialltoallw: %d %d\n", recv[0], recv[size - 1]);
    MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    SAY("ireduce_scatter: %d\n", recv[0]);
    for (int i = 0; i < size; i++) recv[i] = send[i];
    MPI_Reduce_scatter(MPI_IN_PLACE, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    SAY("reduce_scatter in place: %d\n", recv[0]);
    /* Open MPI's persistent collectives (mpi-ext.h), started twice */
    MPI_Request pers[2];
    int in = rank + 1, sum = 0, root_value = 0;
    PERSISTENT(Allreduce_init)(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pers[0]);
    PERSISTENT(Bcast_init)(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &pers[1]);
    for (int round = 1; round <= 2; round++) {
        in = round * (rank + 1);
        if (rank == 0) root_value = 10 * round;
        MPI_Startall(2, pers);
        MPI_Waitall(2, pers, MPI_STATUSES_IGNORE);
        SAY("MPIX_Allreduce_init, MPIX_Bcast_init round %d: %d %d\n", round, sum, root_value);
    }
    MPI_Request_free(&pers[0]);
    MPI_Request_free(&pers[1]);
    SAY("persistent requests freed: %d %d\n", pers[0] == MPI_REQUEST_NULL, pers[1] == MPI_REQUEST_NULL);
    /* a matched receive leaves MPI_MESSAGE_NULL, which is not MPI_REQUEST_NULL in Open MPI */
    MPI_Message msg;
    MPI_Isend(&in, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &req);
    MPI_Mprobe(0, 9, MPI_COMM_SELF, &msg, MPI_STATUS_IGNORE);
    MPI_Mrecv(&sum, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    SAY("mrecv: %d, message null %d\n", sum, msg == MPI_MESSAGE_NULL);
}

static const char *combiner(int c)
{
    return c == MPI_COMBINER_SUBARRAY         ? "SUBARRAY"
           : c == MPI_COMBINER_DARRAY         ? "DARRAY"
           : c == MPI_COMBINER_HINDEXED_BLOCK ? "HINDEXED_BLOCK"
           : c == MPI_COMBINER_HVECTOR        ? "HVECTOR"
           : c == MPI_COMBINER_STRUCT         ? "STRUCT"
           : c == MPI_COMBINER_NAMED          ? "NAMED"
           : c == MPI_COMBINER_F90_REAL       ? "F90_REAL"
                                              : "other";
}

static void datatypes(void)
{
    int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2}, a[24], b[6];
    for (int i = 0; i < 24; i++) a[i] = i;
    MPI_Datatype sub, darray, hib, hv, st, f90, matched;
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    int pos = 0;
    char packed[256];
    MPI_Pack(a, 1, sub, packed, sizeof packed, &pos, MPI_COMM_SELF);
    pos = 0;
    MPI_Unpack(packed, sizeof packed, &pos, b, 6, MPI_INT, MPI_COMM_SELF);
    SAY("subarray fortran order: %d %d %d %d %d %d\n", b[0], b[1], b[2], b[3], b[4], b[5]);
    int ni, na, nt, comb;
    MPI_Type_get_envelope(sub, &ni, &na, &nt, &comb);
    SAY("subarray envelope: %s %d %d %d\n", combiner(comb), ni, na, nt);
    int sints[8];
    MPI_Datatype sold;
    MPI_Type_get_contents(sub, 8, 0, 1, sints, NULL, &sold);
    SAY("subarray contents: ndims %d, order %s, type %s\n", sints[0],
        sints[7] == MPI_ORDER_FORTRAN ? "MPI_ORDER_FORTRAN" : "?", sold == MPI_INT ? "MPI_INT" : "?");

    int gsizes[1] = {8}, distribs[1] = {MPI_DISTRIBUTE_CYCLIC}, dargs[1] = {2}, psizes[1] = {2};
    MPI_Type_create_darray(2, rank % 2, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                           &darray);
    MPI_Type_commit(&darray);
    int tsize;
    MPI_Aint lb, extent;
    MPI_Type_size(darray, &tsize);
    MPI_Type_get_extent(darray, &lb, &extent);
    MPI_Type_get_envelope(darray, &ni, &na, &nt, &comb);
    SAY("darray cyclic(2): size %d extent %ld, %s\n", tsize, (long)extent, combiner(comb));
    int dints[8];
    MPI_Datatype dold;
    MPI_Type_get_contents(darray, 8, 0, 1, dints, NULL, &dold);
    SAY("darray contents: %d ints, distrib %s darg %d order %s\n", ni,
        dints[4] == MPI_DISTRIBUTE_CYCLIC ? "MPI_DISTRIBUTE_CYCLIC" : "?", dints[5],
        dints[7] == MPI_ORDER_C ? "MPI_ORDER_C" : "?");
    int block[1] = {MPI_DISTRIBUTE_BLOCK}, dflt[1] = {MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Datatype darray2;
    MPI_Type_create_darray(2, rank % 2, 1, gsizes, block, dflt, psizes, MPI_ORDER_C, MPI_INT,
                           &darray2);
    MPI_Type_commit(&darray2);
    MPI_Type_get_true_extent(darray2, &lb, &extent);
    SAY("darray block(default): true lb %ld extent %ld\n", (long)lb, (long)extent);

    MPI_Aint displs[2] = {0, 3 * sizeof(int)};
    MPI_Type_create_hindexed_block(2, 2, displs, MPI_INT, &hib);
    MPI_Type_hvector(2, 1, 2 * sizeof(int), MPI_INT, &hv);
    int bl[2] = {1, 1};
    MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Aint sdispls[2] = {0, 8};
    MPI_Type_struct(2, bl, sdispls, parts, &st);
    MPI_Type_extent(st, &extent);
    MPI_Type_lb(st, &lb);
    MPI_Aint ub;
    MPI_Type_ub(st, &ub);
    MPI_Type_get_envelope(hib, &ni, &na, &nt, &comb);
    SAY("hindexed_block %s; MPI-1 struct extent %ld lb %ld ub %ld\n", combiner(comb),
        (long)extent, (long)lb, (long)ub);
    MPI_Type_get_envelope(st, &ni, &na, &nt, &comb);
    MPI_Datatype got[2];
    int ints[3];
    MPI_Aint addrs[2];
    MPI_Type_get_contents(st, 3, 2, 2, ints, addrs, got);
    SAY("struct envelope %s %d %d %d, contents types %s %s\n", combiner(comb), ni, na, nt,
        got[0] == MPI_INT ? "MPI_INT" : "?", got[1] == MPI_DOUBLE ? "MPI_DOUBLE" : "?");

    MPI_Type_create_f90_real(6, 30, &f90);
    MPI_Type_size(f90, &tsize);
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &matched);
    SAY("f90 real(6,30): %d bytes; match_size real 8: %s\n", tsize,
        matched == MPI_DOUBLE || matched == MPI_REAL8 ? "a real of 8" : "?");
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &matched);
    MPI_Type_size(matched, &tsize);
    SAY("match_size integer 4: %d bytes\n", tsize);
    MPI_Count clb, cext;
    MPI_Type_get_extent_x(hib, &clb, &cext);
    SAY("hindexed_block extent_x %lld\n", (long long)cext);

    /* external32: big-endian ints */
    int v[2] = {1, 0x01020304}, back[2] = {0, 0};
    char ext[16];
    MPI_Aint epos = 0, esize;
    MPI_Pack_external_size("external32", 2, MPI_INT, &esize);
    MPI_Pack_external("external32", v, 2, MPI_INT, ext, sizeof ext, &epos);
    epos = 0;
    MPI_Unpack_external("external32", ext, sizeof ext, &epos, back, 2, MPI_INT);
    SAY("external32: %ld bytes, first %02x%02x%02x%02x, back %d %x\n", (long)esize,
        (unsigned char)ext[0], (unsigned char)ext[1], (unsigned char)ext[2],
        (unsigned char)ext[3], back[0], back[1]);

    /* attributes on a datatype */
    int keyval, seven = 7, flag, *val;
    MPI_Type_create_keyval(type_copy, type_delete, &keyval, &seven);
    MPI_Type_set_attr(hv, keyval, &seven);
    MPI_Datatype hv2;
    MPI_Type_dup(hv, &hv2);
    MPI_Type_get_attr(hv2, keyval, &val, &flag);
    SAY("type attribute: flag %d value %d, copies %d\n", flag, flag ? *val : 0, type_copies);
    MPI_Type_delete_attr(hv, keyval);
    MPI_Type_free(&hv2);
    SAY("type attribute deletes: %d\n", type_deletes);
    MPI_Type_free_keyval(&keyval);
    SAY("type keyval freed: %s\n", keyval == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID" : "?");
    MPI_Type_free(&sub);
    MPI_Type_free(&darray);
    MPI_Type_free(&darray2);
    MPI_Type_free(&hib);
    MPI_Type_free(&hv);
    MPI_Type_free(&st);
}

static void attributes_and_errors(void)
{
    int keyval, flag, one = 1, *val;
    MPI_Keyval_create(old_copy, MPI_NULL_DELETE_FN, &keyval, NULL);
    MPI_Attr_put(MPI_COMM_WORLD, keyval, &one);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Attr_get(dup, keyval, &val, &flag);
    SAY("MPI-1 keyval: flag %d value %d, copies %d\n", flag, flag ? *val : 0, old_copies);
    MPI_Attr_delete(MPI_COMM_WORLD, keyval);
    MPI_Comm_free(&dup);
    MPI_Keyval_free(&keyval);
    int *tag_ub;
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    SAY("MPI_TAG_UB: flag %d, at least 32767: %d\n", flag, flag && *tag_ub >= 32767);

    int cls, code, got;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "mpcr chapters: a code of my own");
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, s, &len);
    MPI_Error_class(code, &got);
    SAY("user error code: class %s, string \"%s\"\n", got == cls ? "mine" : "?", s);
    int *last;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    /* (its value: MPICH's numbering of codes, not Open MPI's; docs/abi-openmpi.md) */
    SAY("MPI_LASTUSEDCODE: flag %d\n", flag);

    MPI_Errhandler eh, old;
    MPI_Errhandler_get(MPI_COMM_WORLD, &old);
    MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm cart;
    int dims[1] = {size + 5}, periods[1] = {0};
    int err = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Error_class(err, &cls);
    SAY("cart larger than the group: %s\n", cls == MPI_ERR_DIMS       ? "MPI_ERR_DIMS"
                                            : cls == MPI_ERR_TOPOLOGY ? "MPI_ERR_TOPOLOGY"
                                            : cls == MPI_ERR_ARG      ? "MPI_ERR_ARG"
                                                                      : "other");
    MPI_Errhandler_get(MPI_COMM_WORLD, &eh);
    SAY("errhandler_get: %s\n", eh == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "?");
    MPI_Errhandler_set(MPI_COMM_WORLD, old);
    MPI_Errhandler_free(&old);
    MPI_Errhandler_free(&eh);

    /* a generalized request */
    MPI_Request req;
    MPI_Status status;
    int two = 2, count;
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &two, &req);
    MPI_Grequest_complete(req);
    MPI_Wait(&req, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    SAY("grequest: queried %d freed %d, count %d, tag %d, source %s, request %s\n", greq_queried,
        greq_freed, count, status.MPI_TAG, status.MPI_SOURCE == MPI_UNDEFINED ? "MPI_UNDEFINED" : "?",
        req == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : "?");
}

static void files(void)
{
    char name[64];
    snprintf(name, sizeof name, "chapters.%d.tmp", (int)getpid());
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    int amode;
    MPI_File_get_amode(fh, &amode);
    SAY("file amode: create %d rdwr %d delete_on_close %d\n", !!(amode & MPI_MODE_CREATE),
        !!(amode & MPI_MODE_RDWR), !!(amode & MPI_MODE_DELETE_ON_CLOSE));
    /* each rank's ints interleaved: a vector filetype */
    MPI_Datatype ftype;
    MPI_Type_vector(4, 1, size, MPI_INT, &ftype);
    MPI_Type_commit(&ftype);
    MPI_File_set_view(fh, rank * sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL);
    int mine[4], all[256];
    for (int i = 0; i < 4; i++) mine[i] = 10 * i + rank;
    MPI_Status status;
    MPI_File_write_all(fh, mine, 4, MPI_INT, &status);
    int count;
    MPI_Get_count(&status, MPI_INT, &count);
    SAY("write_all: %d ints\n", count);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset fsize, disp;
    MPI_File_get_size(fh, &fsize);
    MPI_Datatype etype, got;
    char datarep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &etype, &got, datarep);
    SAY("size %lld, view: disp %lld etype %s datarep %s\n", (long long)fsize, (long long)disp,
        etype == MPI_INT ? "MPI_INT" : "?", datarep);
    MPI_Type_free(&got);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, all, 4 * size, MPI_INT, &status);
    SAY("read_at 0:");
    for (int i = 0; i < 4 * size; i++) SAY(" %d", all[i]);
    SAY("\n");
    MPI_File_seek(fh, 2, MPI_SEEK_SET);
    MPI_Offset where;
    MPI_File_get_position(fh, &where);
    int x;
    MPI_Request req;
    MPI_File_iread(fh, &x, 1, MPI_INT, &req);
    MPI_Wait(&req, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    SAY("seek 2: position %lld, iread %d (%d)\n", (long long)where, x, count);

    /* errors on a file: MPI_ERRORS_RETURN by default, then a handler of mine */
    MPI_Errhandler eh;
    MPI_File_get_errhandler(fh, &eh);
    SAY("file errhandler default: %s\n", eh == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "?");
    MPI_Errhandler_free(&eh);
    MPI_File_create_errhandler(file_handler, &eh);
    MPI_File_set_errhandler(fh, eh);
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    SAY("file handler called: %d, class %s\n", file_handled, file_class == MPI_ERR_IO ? "MPI_ERR_IO" : "?");
    MPI_Errhandler_free(&eh);

    handle_int f = C2F(File, fh);
    SAY("file c2f/f2c: %s\n", F2C(File, f) == fh ? "same" : "?");
    MPI_Status back;
#ifdef MPI_ABI_VERSION
    back = status;
#else
    MPI_Fint fstatus[sizeof(MPI_Status) / sizeof(MPI_Fint)];
    MPI_Status_c2f(&status, fstatus);
    MPI_Status_f2c(fstatus, &back);
#endif
    MPI_Get_count(&back, MPI_INT, &count);
    SAY("status c2f/f2c: count %d\n", count);
    MPI_File_close(&fh);
    SAY("closed: %s\n", fh == MPI_FILE_NULL ? "MPI_FILE_NULL" : "?");
    MPI_Type_free(&ftype);
    int err = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int cls;
    MPI_Error_class(err, &cls);
    SAY("deleted on close: %s\n", cls == MPI_ERR_NO_SUCH_FILE ? "MPI_ERR_NO_SUCH_FILE" : "other");
}

static MPI_Win deleted_on;
static int win_copies, win_deletes;
static int win_copy(MPI_Win w, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)keyval, (void)extra, (void)in, (void)out;
    win_copies++; /* never: windows are not duplicated */
    *flag = 0;
    return MPI_SUCCESS;
}
static int win_delete(MPI_Win w, int keyval, void *value, void *extra)
{
    (void)keyval;
    deleted_on = w;
    win_deletes += *(int *)value + *(int *)extra;
    return MPI_SUCCESS;
}
static void win_handler(MPI_Win *w, int *code, ...)
{
    (void)w, (void)code;
}

/* Every predefined attribute of w, by name */
static void window_attributes(const char *what, MPI_Win w, void *base, int flavor)
{
    void *b;
    MPI_Aint *sz;
    int *du, *fl, *model, f1, f2, f3, f4, f5;
    MPI_Win_get_attr(w, MPI_WIN_BASE, &b, &f1);
    MPI_Win_get_attr(w, MPI_WIN_SIZE, &sz, &f2);
    MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &du, &f3);
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &fl, &f4);
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &f5);
    /* the model is the implementation's: either of MPI's two values */
    SAY("%s: base %s size %ld disp_unit %d flavor %s model %s\n", what,
        f1 && (!base || b == base) ? "ok" : "?", f2 ? (long)*sz : -1L, f3 ? *du : -1,
        f4 && *fl == flavor ? "ok" : "?",
        f5 && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE) ? "known" : "?");
}

static void one_sided(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long buf[8] = {0};
    MPI_Win w;
    MPI_Win_create(buf, sizeof buf, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    window_attributes("created", w, buf, MPI_WIN_FLAVOR_CREATE);
    MPI_Win_set_name(w, "chapters' window");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(w, name, &len);
    handle_int f = C2F(Win, w);
    SAY("name '%s' (%d), Fortran handle %s\n", name, len, F2C(Win, f) == w ? "ok" : "?");
    MPI_Group g;
    int gsize;
    MPI_Win_get_group(w, &g);
    MPI_Group_size(g, &gsize);
    MPI_Group_free(&g);
    MPI_Info info;
    MPI_Win_get_info(w, &info);
    SAY("group of %d, info %s\n", gsize, info != MPI_INFO_NULL ? "a handle" : "null");
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);

    /* fences with Open MPI's assert bits; a put to the next rank, one to MPI_PROC_NULL */
    long mine = 100 + rank, sum = 0;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, w);
    MPI_Put(&mine, 1, MPI_LONG, next, 0, 1, MPI_LONG, w);
    MPI_Put(&mine, 1, MPI_LONG, MPI_PROC_NULL, 1, 1, MPI_LONG, w);
    MPI_Accumulate(&mine, 1, MPI_LONG, next, 1, 1, MPI_LONG, MPI_SUM, w);
    MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, w);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    MPI_Reduce(&buf[0], &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    SAY("fence: put from prev %s, sum of puts %ld\n", buf[0] == 100 + prev ? "ok" : "?", sum);

    /* Open MPI's lock types, MPI_MODE_NOCHECK, passive-target operations */
    long one = 1, old = -1, cmp = mine, got = 0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, w);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, next, 2, MPI_SUM, w);
    MPI_Win_flush(next, w);
    MPI_Win_unlock(next, w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, MPI_MODE_NOCHECK, w);
    MPI_Get(&got, 1, MPI_LONG, rank, 2, 1, MPI_LONG, w);
    MPI_Win_unlock(rank, w);
    SAY("lock: fetch_and_op old %ld, counter %ld\n", old, got);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Request req[4];
    long r1 = 7, r2 = 0, r3 = 0, swapped = 0, newv = 42;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
    MPI_Rput(&r1, 1, MPI_LONG, next, 3, 1, MPI_LONG, w, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Win_flush_all(w);
    MPI_Raccumulate(&r1, 1, MPI_LONG, next, 3, 1, MPI_LONG, MPI_SUM, w, &req[1]);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    MPI_Win_flush_local(next, w);
    MPI_Win_flush_local_all(w);
    MPI_Win_flush(next, w);
    MPI_Rget_accumulate(NULL, 0, MPI_LONG, &r3, 1, MPI_LONG, next, 3, 1, MPI_LONG, MPI_NO_OP, w,
                        &req[2]);
    MPI_Wait(&req[2], MPI_STATUS_IGNORE);
    MPI_Compare_and_swap(&newv, &cmp, &swapped, MPI_LONG, next, 1, w);
    MPI_Win_flush(next, w);
    MPI_Rget(&r2, 1, MPI_LONG, next, 1, 1, MPI_LONG, w, &req[3]);
    MPI_Wait(&req[3], MPI_STATUS_IGNORE);
    long ga = 0;
    MPI_Get_accumulate(&one, 1, MPI_LONG, &ga, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, MPI_SUM,
                       w);
    MPI_Win_sync(w);
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    SAY("lock_all: rput+raccumulate %ld, compare_and_swap %s, after %ld\n", r3,
        swapped == cmp ? "swapped" : "?", r2);

    /* post/start/complete/wait (and test) between neighbours */
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int both[2] = {prev, next};
    MPI_Group_incl(world, size > 2 ? 2 : 1, both, &peers);
    MPI_Win_post(peers, MPI_MODE_NOPUT, w);
    MPI_Win_start(peers, 0, w);
    MPI_Get(&got, 1, MPI_LONG, next, 0, 1, MPI_LONG, w);
    MPI_Win_complete(w);
    int done = 0;
    while (!done) MPI_Win_test(w, &done);
    MPI_Group_free(&peers);
    MPI_Group_free(&world);
    SAY("pscw: get %s\n", got == 100 + rank ? "ok" : "?");

    /* keyvals with callbacks (the delete function gets Open MPI's handle), error handlers */
    int keyval, extra = 1000, value = 5;
    MPI_Win_create_keyval(win_copy, win_delete, &keyval, &extra);
    MPI_Win_set_attr(w, keyval, &value);
    int *v, flag;
    MPI_Win_get_attr(w, keyval, &v, &flag);
    SAY("win keyval: flag %d value %d\n", flag, flag ? *v : 0);
    MPI_Errhandler eh, got_eh;
    MPI_Win_create_errhandler(win_handler, &eh);
    MPI_Win_set_errhandler(w, eh);
    MPI_Win_get_errhandler(w, &got_eh);
    SAY("win errhandler: %s\n", got_eh == eh ? "the one set" : "?");
    MPI_Errhandler_free(&got_eh);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Win_get_errhandler(w, &got_eh);
    SAY("win errhandler: %s\n", got_eh == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "?");
    MPI_Win expect = w;
    MPI_Win_free(&w);
    SAY("freed: %s, delete called on it %s, deletes %d, copies %d\n",
        w == MPI_WIN_NULL ? "MPI_WIN_NULL" : "?", deleted_on == expect ? "yes" : "no", win_deletes,
        win_copies);
    MPI_Win_free_keyval(&keyval);
    SAY("keyval freed: %s\n", keyval == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID" : "?");

    /* MPI_Win_allocate, MPI_Win_create_dynamic with an attached block */
    long *mem;
    MPI_Win a;
    MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &a);
    window_attributes("allocated", a, mem, MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Win_free(&a);
    MPI_Win d;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &d);
    window_attributes("dynamic", d, NULL, MPI_WIN_FLAVOR_DYNAMIC);
    long block[4] = {rank, rank, rank, rank}, there = 0;
    MPI_Win_attach(d, block, sizeof block);
    MPI_Aint addr, target;
    MPI_Get_address(block, &addr);
    MPI_Sendrecv(&addr, 1, MPI_AINT, prev, 0, &target, 1, MPI_AINT, next, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, d);
    MPI_Get(&there, 1, MPI_LONG, next, target, 1, MPI_LONG, d);
    MPI_Win_unlock(next, d);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(d, block);
    MPI_Win_free(&d);
    SAY("dynamic: got the next rank's block: %s\n", there == next ? "ok" : "?");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    communicators();
    topologies();
    collectives();
    datatypes();
    attributes_and_errors();
    files();
    one_sided();
    SAY("done\n");
    MPI_Finalize();
    return 0;
}
