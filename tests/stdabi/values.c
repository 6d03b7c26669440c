/* The values the MPI 5.0 standard ABI numbers afresh, as a program built
 * with mpcr's mpicc_abi sees them through mpcr's libmpi_abi.so.1
 * (docs/abi-standard.md): each check compares what a call answered with
 * the constant of the ABI's mpi.h that the MPI standard says it must be.
 * Rank 0 prints "ok WHAT" or "FAIL WHAT: ...", then a count; the exit
 * status is 1 if any check failed on any rank. Run with 2 ranks. The
 * parts: the ABI's own functions, thread levels, comparisons, wildcards
 * and MPI_PROC_NULL in statuses, the _c (large-count) forms, predefined
 * handles written back, error classes, attributes and MPI_COMM_DUP_FN,
 * combiners and type classes, files' access modes and seeks, windows'
 * flavors, models, lock types and asserts, MPI_UNWEIGHTED, handles as
 * ints, MPI 4.1's status accessors, sessions with an error handler. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* gcc reads MPI_UNWEIGHTED ((int *)10) as an array of no elements */
#pragma GCC diagnostic ignored "-Wstringop-overread"

static int rank, size, failed;

static void check(int ok, const char *what, long got)
{
    if (!ok) failed++;
    if (rank == 0 || !ok) {
        if (ok) printf("ok %s\n", what);
        else printf("FAIL %s: rank %d got %ld\n", what, rank, got);
    }
}

static void abi_functions(void)
{
    int major, minor, flag;
    MPI_Abi_get_version(&major, &minor);
    check(major == MPI_ABI_VERSION && minor == MPI_ABI_SUBVERSION, "MPI_Abi_get_version", major);
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL];
    MPI_Abi_get_info(&info);
    MPI_Info_get_string(info, "mpi_aint_size", &(int){sizeof value}, value, &flag);
    check(flag && atoi(value) == (int)sizeof(MPI_Aint), "MPI_Abi_get_info mpi_aint_size", flag);
    MPI_Info_free(&info);
    check(info == MPI_INFO_NULL, "MPI_Info_free writes MPI_INFO_NULL", 0);
}

static void comparisons(void)
{
    int result;
    MPI_Comm dup;
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
    check(result == MPI_IDENT, "MPI_Comm_compare: MPI_IDENT", result);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    check(result == MPI_CONGRUENT, "MPI_Comm_compare: MPI_CONGRUENT", result);
    MPI_Group g1, g2;
    MPI_Comm_group(MPI_COMM_WORLD, &g1);
    MPI_Group_incl(g1, 1, &(int){0}, &g2);
    MPI_Group_compare(g1, g2, &result);
    check(result == MPI_UNEQUAL, "MPI_Group_compare: MPI_UNEQUAL", result);
    MPI_Group_free(&g2);
    MPI_Group_free(&g1);
    MPI_Comm_free(&dup);
    check(dup == MPI_COMM_NULL, "MPI_Comm_free writes MPI_COMM_NULL", 0);
    MPI_Comm none;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
    check(rank == 0 ? none != MPI_COMM_NULL : none == MPI_COMM_NULL, "MPI_Comm_split MPI_UNDEFINED", 0);
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    MPI_Comm_size(shared, &result);
    check(result == size, "MPI_Comm_split_type MPI_COMM_TYPE_SHARED", result);
    MPI_Comm_free(&shared);
}

static void statuses(void)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, in = -1, out = 40 + rank, count;
    MPI_Request r;
    MPI_Status s;
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
    MPI_Send(&out, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    MPI_Wait(&r, &s);
    MPI_Get_count(&s, MPI_INT, &count);
    check(s.MPI_SOURCE == from && s.MPI_TAG == 7 && count == 1 && in == 40 + from,
          "MPI_ANY_SOURCE, MPI_ANY_TAG: source, tag, count", s.MPI_TAG);
    check(r == MPI_REQUEST_NULL, "MPI_Wait writes MPI_REQUEST_NULL", 0);
    MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
    MPI_Get_count(&s, MPI_INT, &count);
    check(s.MPI_SOURCE == MPI_PROC_NULL && s.MPI_TAG == MPI_ANY_TAG && count == 0,
          "MPI_PROC_NULL receive: MPI_PROC_NULL, MPI_ANY_TAG, 0", s.MPI_SOURCE);
    MPI_Message m;
    MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &s);
    check(m == MPI_MESSAGE_NO_PROC, "MPI_Mprobe of MPI_PROC_NULL: MPI_MESSAGE_NO_PROC", 0);
    int flag;
    MPI_Send(&out, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
    do
        MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &s);
    while (!flag);
    check(s.MPI_TAG == 9, "MPI_Iprobe MPI_ANY_TAG", s.MPI_TAG);
    MPI_Recv(&in, 1, MPI_INT, from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* the _c forms */
    long long big[5] = {1, 2, 3, 4, 5 + rank}, got[5];
    MPI_Count ccount;
    MPI_Sendrecv_c(big, 5, MPI_LONG_LONG, peer, 11, got, 5, MPI_LONG_LONG, from, 11, MPI_COMM_WORLD, &s);
    MPI_Get_count_c(&s, MPI_LONG_LONG, &ccount);
    check(ccount == 5 && got[4] == 5 + from, "MPI_Sendrecv_c, MPI_Get_count_c", (long)ccount);
    MPI_Count sum = 0, mine = rank + 1;
    MPI_Allreduce_c(&mine, &sum, 1, MPI_COUNT, MPI_SUM, MPI_COMM_WORLD);
    check(sum == (MPI_Count)size * (size + 1) / 2, "MPI_Allreduce_c of MPI_COUNT", (long)sum);
    /* MPI 4.1's accessors and a status by hand */
    int v;
    MPI_Status_set_source(&s, 5);
    MPI_Status_set_tag(&s, 6);
    MPI_Status_set_error(&s, MPI_ERR_TAG);
    MPI_Status_get_source(&s, &v);
    check(v == 5 && s.MPI_SOURCE == 5, "MPI_Status_set/get_source", v);
    MPI_Status_get_tag(&s, &v);
    check(v == 6, "MPI_Status_set/get_tag", v);
    MPI_Status_get_error(&s, &v);
    check(v == MPI_ERR_TAG, "MPI_Status_set/get_error", v);
    MPI_Status_set_elements(&s, MPI_INT, 3);
    MPI_Get_elements(&s, MPI_INT, &count);
    check(count == 3, "MPI_Status_set_elements in the status's own ints", count);
    /* a request array with MPI_REQUEST_NULL written back, statuses of each */
    MPI_Request rs[2];
    MPI_Status ss[2];
    MPI_Irecv(&in, 1, MPI_INT, from, 12, MPI_COMM_WORLD, &rs[0]);
    MPI_Isend(&out, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &rs[1]);
    MPI_Waitall(2, rs, ss);
    check(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL && ss[0].MPI_SOURCE == from &&
              ss[0].MPI_TAG == 12,
          "MPI_Waitall: MPI_REQUEST_NULL, statuses", ss[0].MPI_SOURCE);
}

static void errors(void)
{
    int cls, len, in = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Send(&in, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    check(err != MPI_SUCCESS && cls == MPI_ERR_RANK, "an invalid rank: MPI_ERR_RANK", cls);
    err = MPI_Send(&in, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: MPI_ERR_TYPE", cls);
    MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
    check(len > 0 && (int)strlen(text) == len, "MPI_Error_string of MPI_ERR_TRUNCATE", len);
    int mine, code;
    MPI_Add_error_class(&mine);
    MPI_Add_error_code(mine, &code);
    MPI_Error_class(code, &cls);
    check(cls == mine, "a class of the program's, its code's class", cls);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    check(eh == MPI_ERRORS_RETURN, "MPI_Comm_get_errhandler: MPI_ERRORS_RETURN", 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void attributes(void)
{
    int *ub, flag, keyval, *got, value = 77;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    check(flag && *ub >= 32767, "MPI_TAG_UB", flag ? *ub : -1);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_attr(dup, keyval, &got, &flag);
    check(flag && got == &value, "MPI_COMM_DUP_FN copies the attribute", flag);
    MPI_Comm_free(&dup);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_free_keyval(&keyval);
    check(keyval == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval: MPI_KEYVAL_INVALID", keyval);
}

static void datatypes(void)
{
    MPI_Datatype v, m;
    int ni, na, nd, combiner, size8;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_get_envelope(v, &ni, &na, &nd, &combiner);
    check(combiner == MPI_COMBINER_VECTOR && ni == 3 && nd == 1, "MPI_COMBINER_VECTOR", combiner);
    MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &combiner);
    check(combiner == MPI_COMBINER_NAMED, "MPI_COMBINER_NAMED", combiner);
    MPI_Datatype types[1];
    MPI_Type_get_contents(v, 3, 0, 1, (int[3]){0}, NULL, types);
    check(types[0] == MPI_INT, "MPI_Type_get_contents: MPI_INT written back", 0);
    MPI_Type_free(&v);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &m);
    MPI_Type_size(m, &size8);
    check(size8 == 8, "MPI_Type_match_size MPI_TYPECLASS_INTEGER", size8);
    MPI_Count csize;
    MPI_Type_size_x(MPI_DOUBLE, &csize);
    check(csize == 8, "MPI_Type_size_x", (long)csize);
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 2}, (int[]){1, 1}, MPI_ORDER_FORTRAN,
                             MPI_INT, &sub);
    int ints[2 * 3 + 2];
    MPI_Type_get_contents(sub, 8, 0, 1, ints, NULL, types);
    check(ints[7] == MPI_ORDER_FORTRAN, "a subarray's contents: MPI_ORDER_FORTRAN", ints[7]);
    MPI_Type_free(&sub);
}

static void files(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mpcr-abi-values-%d", (int)getppid());
    MPI_Comm self = MPI_COMM_SELF;
    if (rank != 0) return;
    MPI_File fh;
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, got;
    int err = MPI_File_open(self, path, amode, MPI_INFO_NULL, &fh);
    check(err == MPI_SUCCESS, "MPI_File_open CREATE|RDWR|DELETE_ON_CLOSE", err);
    if (err) return;
    MPI_File_get_amode(fh, &got);
    check(got == amode, "MPI_File_get_amode", got);
    int data[4] = {1, 2, 3, 4};
    MPI_File_write(fh, data, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset at;
    MPI_File_seek(fh, 1, MPI_SEEK_SET);
    MPI_File_seek(fh, 1, MPI_SEEK_CUR);
    MPI_File_get_position(fh, &at);
    check(at == 2, "MPI_SEEK_SET, MPI_SEEK_CUR", (long)at);
    MPI_File_seek(fh, -1, MPI_SEEK_END);
    MPI_File_get_position(fh, &at);
    check(at == (MPI_Offset)sizeof data - 1, "MPI_SEEK_END (in bytes: the default view)", (long)at);
    MPI_File_close(&fh);
    check(fh == MPI_FILE_NULL, "MPI_File_close writes MPI_FILE_NULL", 0);
    err = MPI_File_open(self, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int cls;
    MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_NO_SUCH_FILE, "deleted on close: MPI_ERR_NO_SUCH_FILE", cls);
}

static void windows(void)
{
    MPI_Win win;
    int *base, *flavor, *model, flag;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    check(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_FLAVOR_ALLOCATE", flag ? *flavor : -1);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    check(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "MPI_WIN_MODEL",
          flag ? *model : -1);
    MPI_Barrier(MPI_COMM_WORLD);
    int one = 1, old;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0) check(*base == size, "MPI_LOCK_SHARED, MPI_MODE_NOCHECK: fetch_and_op", *base);
    MPI_Win_free(&win);
    check(win == MPI_WIN_NULL, "MPI_Win_free writes MPI_WIN_NULL", 0);
}

static void topologies(void)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, in, out, weighted;
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &peer,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
    check(in == 1 && out == 1 && !weighted, "MPI_UNWEIGHTED", weighted);
    int status;
    MPI_Topo_test(g, &status);
    check(status == MPI_DIST_GRAPH, "MPI_Topo_test: MPI_DIST_GRAPH", status);
    MPI_Comm_free(&g);
    MPI_Comm cart;
    int src, dst;
    MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){size}, (int[]){0}, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    check((rank == 0 ? src == MPI_PROC_NULL : src == rank - 1) &&
              (rank == size - 1 ? dst == MPI_PROC_NULL : dst == rank + 1),
          "MPI_Cart_shift: MPI_PROC_NULL at the ends", src);
    MPI_Comm_free(&cart);
}

static void handles_as_ints(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    check(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) == MPI_COMM_WORLD &&
              MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup &&
              MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE,
          "MPI_Comm_toint/fromint, MPI_Type_toint/fromint", 0);
    MPI_Comm_free(&dup);
}

static MPI_Session handled_session;
static int handled_code;
static void session_handler(MPI_Session *session, int *code, ...)
{
    handled_session = *session;
    handled_code = *code;
}

/* MPI 4.0's sessions: a session with an error handler of the program's, a
 * communicator from the world's process set. */
static void sessions(void)
{
    MPI_Errhandler eh;
    MPI_Session session;
    MPI_Session_create_errhandler(session_handler, &eh);
    MPI_Session_init(MPI_INFO_NULL, eh, &session);
    MPI_Session_call_errhandler(session, MPI_ERR_OTHER);
    check(handled_session == session && handled_code == MPI_ERR_OTHER,
          "a session's error handler: its session, MPI_ERR_OTHER", handled_code);
    int npsets, n;
    MPI_Session_get_num_psets(session, MPI_INFO_NULL, &npsets);
    check(npsets >= 2, "MPI_Session_get_num_psets", npsets);
    MPI_Group group;
    MPI_Comm comm;
    MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
    MPI_Comm_create_from_group(group, "mpcr.values", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    MPI_Comm_size(comm, &n);
    check(n == size, "MPI_Comm_create_from_group of mpi://WORLD", n);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Errhandler_free(&eh);
    MPI_Session_finalize(&session);
    check(session == MPI_SESSION_NULL, "MPI_Session_finalize writes MPI_SESSION_NULL", 0);
}

int main(int argc, char **argv)
{
    int provided, level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
              provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "MPI_Init_thread: a thread level", provided);
    MPI_Query_thread(&level);
    check(level == provided, "MPI_Query_thread", level);
    abi_functions();
    comparisons();
    statuses();
    errors();
    attributes();
    datatypes();
    files();
    windows();
    topologies();
    handles_as_ints();
    sessions();
    int all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("values: %d failed\n", all);
    MPI_Finalize();
    return all != 0;
}
