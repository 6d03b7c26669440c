/* A tour of the Open MPI ABI as mpcr's libmpi.so.40 speaks it, built with
 * mpicc.openmpi: each part prints what it found, from rank 0, in an order
 * that does not depend on timing, so the output under `mpcr run -n 2`
 * can be compared with `mpirun.openmpi -n 2`'s (tests/ompiabi/ompiabi.sh).
 * The parts: sizes and ranks, MPI_Allreduce, point-to-point with statuses
 * and MPI_ANY_SOURCE, MPI_PROC_NULL, non-blocking and persistent requests,
 * a derived datatype and its envelope, a split communicator, a user op, an
 * attribute with copy and delete callbacks, an error handler of the
 * program's that returns the error, MPI_ERRORS_RETURN and error classes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

#define SAY(...)                                                                                   \
    do {                                                                                           \
        if (rank == 0) printf(__VA_ARGS__);                                                        \
        fflush(stdout);                                                                            \
    } while (0)

static void my_max_abs(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout;
    if (*type != MPI_INT) MPI_Abort(MPI_COMM_WORLD, 3); /* Open MPI's MPI_INT, not MPICH's */
    for (int i = 0; i < *len; i++) {
        int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

static int copies, deletes;
static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval;
    copies += *(int *)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)value, (void)extra;
    deletes += comm != MPI_COMM_NULL;
    return MPI_SUCCESS;
}

static int handled, handled_class;
static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handled += *comm == MPI_COMM_WORLD;
    MPI_Error_class(*code, &handled_class);
}

int main(int argc, char **argv)
{
    int provided, flag;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Initialized(&flag);
    printf("rank %d of %d provided>=funneled %d initialized %d\n", rank, size,
           provided >= MPI_THREAD_FUNNELED, flag);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);

    /* collectives */
    int one = rank + 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double d = rank * 0.5, dmax;
    MPI_Reduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int all[8];
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int in_place = rank * 10;
    MPI_Allreduce(MPI_IN_PLACE, &in_place, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    SAY("allreduce sum %d reduce max %.1f allgather %d %d in_place %d\n", sum, dmax, all[0],
        all[size - 1], in_place);
    MPI_Request r;
    int b = rank == 0 ? 42 : 0;
    MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    SAY("ibcast %d request null %d\n", b, r == MPI_REQUEST_NULL);

    /* point-to-point: statuses, MPI_ANY_SOURCE, MPI_PROC_NULL */
    if (rank != 0) {
        int msg[3] = {rank, rank * 2, rank * 3};
        MPI_Send(msg, 3, MPI_INT, 0, 7 + rank, MPI_COMM_WORLD);
    } else {
        for (int i = 1; i < size; i++) {
            int msg[4];
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int n;
            MPI_Get_count(&st, MPI_INT, &n);
            MPI_Recv(msg, 4, MPI_INT, MPI_ANY_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            SAY("recv from %d tag %d count %d data %d %d %d\n", st.MPI_SOURCE, st.MPI_TAG, n,
                msg[0], msg[1], msg[2]);
        }
    }
    MPI_Status st;
    MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    SAY("proc_null source %d (MPI_PROC_NULL %d) tag %d (MPI_ANY_TAG %d)\n", st.MPI_SOURCE,
        st.MPI_SOURCE == MPI_PROC_NULL, st.MPI_TAG, st.MPI_TAG == MPI_ANY_TAG);

    /* non-blocking and persistent: a ring */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank * 100, got = -1, got2 = -1;
    MPI_Request rq[2];
    MPI_Irecv(&got, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, rq, sts);
    MPI_Request pr[2];
    MPI_Recv_init(&got2, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &pr[0]);
    MPI_Send_init(&out, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &pr[1]);
    int sum_persistent = 0;
    for (int k = 0; k < 3; k++) {
        MPI_Startall(2, pr);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
        sum_persistent += got2;
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
    SAY("ring got %d from %d; persistent sum %d freed %d\n", got, sts[0].MPI_SOURCE,
        sum_persistent, pr[0] == MPI_REQUEST_NULL);

    /* a derived datatype: every other int of 8 */
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int ni, na, nd, combiner, ints[3];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_Type_get_envelope(vec, &ni, &na, &nd, &combiner);
    MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, types);
    int tsize;
    MPI_Aint lb, extent;
    MPI_Type_size(vec, &tsize);
    MPI_Type_get_extent(vec, &lb, &extent);
    int grid[8], strided[4];
    for (int i = 0; i < 8; i++) grid[i] = rank * 1000 + i;
    MPI_Sendrecv(grid, 1, vec, right, 3, strided, 4, MPI_INT, left, 3, MPI_COMM_WORLD, &st);
    SAY("vector combiner %d (VECTOR %d) ints %d %d %d type int %d size %d extent %ld got %d %d "
        "%d %d\n",
        combiner, combiner == MPI_COMBINER_VECTOR, ints[0], ints[1], ints[2], types[0] == MPI_INT,
        tsize, (long)extent, strided[0], strided[1], strided[2], strided[3]);
    MPI_Type_free(&vec);
    SAY("type freed %d\n", vec == MPI_DATATYPE_NULL);

    /* a split communicator */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hrank, hsize, result;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Comm_compare(half, MPI_COMM_WORLD, &result);
    int hsum;
    MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, half);
    SAY("split rank %d size %d sum %d compare %d\n", hrank, hsize, hsum, result);
    MPI_Comm_set_name(half, "half");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(half, name, &len);
    MPI_Comm_get_name(MPI_COMM_WORLD, name + 16, &len);
    SAY("names %s %s\n", name, name + 16);
    MPI_Group g, wg;
    MPI_Comm_group(half, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int zero = 0, translated;
    MPI_Group_translate_ranks(g, 1, &zero, wg, &translated);
    SAY("group translated %d\n", translated);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* a user op */
    MPI_Op op;
    MPI_Op_create(my_max_abs, 1, &op);
    int v = rank % 2 ? -(rank + 5) : rank + 1, vmax;
    MPI_Allreduce(&v, &vmax, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    SAY("user op max abs %d op freed %d\n", vmax, op == MPI_OP_NULL);

    /* an attribute with callbacks, copied by MPI_Comm_dup, deleted by MPI_Comm_free */
    int keyval, one_copy = 1;
    static int value = 17;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, &one_copy);
    MPI_Comm_set_attr(half, keyval, &value);
    MPI_Comm dup;
    MPI_Comm_dup(half, &dup);
    int *found;
    MPI_Comm_get_attr(dup, keyval, &found, &flag);
    SAY("attr copied %d flag %d value %d\n", copies, flag, flag ? *found : -1);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    SAY("attr deleted %d comm freed %d\n", deletes, half == MPI_COMM_NULL);
    MPI_Comm_free_keyval(&keyval);
    int *tag_ub;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    SAY("tag_ub found %d large %d keyval invalid %d\n", flag, flag && *tag_ub >= 32767,
        keyval == MPI_KEYVAL_INVALID);

    /* errors: MPI_ERRORS_RETURN, then a handler of the program's */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Send(&one, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD), cls;
    MPI_Error_class(err, &cls);
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_string(cls, text, &len);
    SAY("bad rank: class %d (MPI_ERR_RANK %d) text %d\n", cls, cls == MPI_ERR_RANK, len > 0);
    err = MPI_Bcast(&one, 1, MPI_INT, size + 5, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    SAY("bad root: class %d (MPI_ERR_ROOT %d)\n", cls, cls == MPI_ERR_ROOT);
    MPI_Errhandler eh, got_eh;
    MPI_Comm_create_errhandler(my_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got_eh);
    err = MPI_Send(&one, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    SAY("handler called %d class %d (MPI_ERR_TAG %d) same handler %d\n", handled, handled_class,
        handled_class == MPI_ERR_TAG && cls == MPI_ERR_TAG, got_eh == eh);
    MPI_Errhandler_free(&got_eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);

    /* info */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "color", "blue");
    char key[MPI_MAX_INFO_KEY], val[16];
    int nkeys;
    MPI_Info_get_nkeys(info, &nkeys);
    MPI_Info_get_nthkey(info, 0, key);
    MPI_Info_get(info, key, sizeof val - 1, val, &flag);
    MPI_Info_free(&info);
    SAY("info %d %s=%s freed %d\n", nkeys, key, val, info == MPI_INFO_NULL);

    MPI_Finalize();
    SAY("done\n");
    return 0;
}
