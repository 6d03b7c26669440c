/* The library-side objects across checkpoints and restarts (issue 12,
 * point 7): derived datatypes (a vector halo, a struct of absolute
 * addresses used from MPI_BOTTOM, a subarray for MPI_Pack, a resized
 * type), an info object, comm, datatype and window keyvals with attributes
 * and callbacks, a window (its predefined attributes and name), a user
 * error handler, a user error class and code. All are
 * made once, before any checkpoint; every round uses them through the
 * handles kept in the program's variables, checks that every query still
 * gives its first answer, and runs the callbacks (a dup and a free of the
 * communicator and of the type, an error raised on the handler's
 * communicator), whose calls are counted. The counts and checksums are
 * reported at the end, compared with the native run's.
 *   ckpt_objects ROUNDS UNITS   (UNITS units of computation per round) */
#include "ckpt.h"

#define N      8 /* the halo matrix: N x N doubles, column 0 sent */
#define NTYPES 5

static long copies, deletes, type_copies, type_deletes, win_deletes, errors_seen;

static int comm_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = (void *)((long)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int comm_delete(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c, (void)k, (void)value, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    type_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int k, void *value, void *extra)
{
    (void)t, (void)k, (void)value, (void)extra;
    type_deletes++;
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int k, void *value, void *extra)
{
    (void)w, (void)k, (void)extra;
    win_deletes += (long)value;
    return MPI_SUCCESS;
}

static int my_class, my_code;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    int cls;
    MPI_Error_class(*code, &cls);
    if (cls == MPI_ERR_RANK || cls == my_class) errors_seen++;
}

/* What the objects answered first. */
struct answers {
    MPI_Aint lb[NTYPES], extent[NTYPES];
    int size[NTYPES];
    char name[MPI_MAX_OBJECT_NAME], win_name[MPI_MAX_OBJECT_NAME];
    char value[32];
    void *win_base;
    MPI_Aint win_size;
    int win_disp;
};

/* halo column, struct at MPI_BOTTOM, subarray, resized, the struct's receiving twin */
static MPI_Datatype types[NTYPES];
static MPI_Info info;
static int comm_key, type_key, win_key;
static MPI_Win win;
static double win_buf[16];
static MPI_Comm attr_comm, err_comm;
static int bottom_ints[3], got_ints[3];
static double bottom_double, got_double;

static void answers(struct answers *a)
{
    memset(a, 0, sizeof *a); /* compared with memcmp */
    for (int i = 0; i < NTYPES; i++) {
        MPI_Type_get_extent(types[i], &a->lb[i], &a->extent[i]);
        MPI_Type_size(types[i], &a->size[i]);
    }
    int len, flag;
    MPI_Type_get_name(types[0], a->name, &len);
    MPI_Info_get(info, "striping_factor", sizeof a->value - 1, a->value, &flag);
    check(flag, "the info key is gone");
    void *v;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &a->win_base, &flag);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag);
    a->win_size = *(MPI_Aint *)v;
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag);
    a->win_disp = *(int *)v;
    MPI_Win_get_name(win, a->win_name, &len);
}

static void make_objects(void)
{
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &types[0]);
    MPI_Type_set_name(types[0], "halo column");
    int bl[2] = {3, 1};
    MPI_Aint dis[2];
    MPI_Get_address(bottom_ints, &dis[0]);
    MPI_Get_address(&bottom_double, &dis[1]);
    MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, dis, parts, &types[1]);
    int sizes[2] = {N, N}, subs[2] = {N - 2, N - 2}, starts[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &types[2]);
    MPI_Type_create_resized(types[0], 0, sizeof(double), &types[3]);
    MPI_Get_address(got_ints, &dis[0]);
    MPI_Get_address(&got_double, &dis[1]);
    MPI_Type_create_struct(2, bl, dis, parts, &types[4]);
    for (int i = 0; i < NTYPES; i++)
        MPI_Type_commit(&types[i]);
    MPI_Info_create(&info);
    MPI_Info_set(info, "striping_factor", "16");
    MPI_Comm_create_keyval(comm_copy, comm_delete, &comm_key, NULL);
    MPI_Type_create_keyval(type_copy, type_delete, &type_key, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &attr_comm);
    MPI_Comm_set_attr(attr_comm, comm_key, (void *)100L);
    MPI_Type_set_attr(types[0], type_key, (void *)7L);
    MPI_Win_create(win_buf, sizeof win_buf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_name(win, "ckpt_objects window");
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &win_key, NULL);
    MPI_Win_set_attr(win, win_key, (void *)1L);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_dup(MPI_COMM_WORLD, &err_comm);
    MPI_Comm_set_errhandler(err_comm, eh);
    MPI_Errhandler_free(&eh);
    MPI_Add_error_class(&my_class);
    MPI_Add_error_code(my_class, &my_code);
    MPI_Add_error_string(my_code, "ckpt_objects code");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long rounds = arg_long(argc, argv, 1, 30), units = arg_long(argc, argv, 2, 60);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_objects();
    struct answers first, now;
    answers(&first);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static double m[N][N], g[N][N];
    uint64_t sum = 0;
    for (long r = 0; r < rounds; r++) {
        sum = mix2(sum, compute((uint64_t)(rank * 1000 + r), units));
        answers(&now);
        check(!memcmp(&first, &now, sizeof first), "an object answers differently in round %ld", r);
        /* the halo: column 0 to the right neighbour's column N-1 */
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                m[i][j] = (double)((sum >> (i + j)) & 0xff) + rank;
        MPI_Sendrecv(&m[0][0], 1, types[0], right, 1, &m[0][N - 1], 1, types[0], left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* the struct from MPI_BOTTOM */
        bottom_ints[0] = rank, bottom_ints[1] = (int)r, bottom_ints[2] = (int)(sum & 0xffff);
        bottom_double = r * 0.5;
        MPI_Sendrecv(MPI_BOTTOM, 1, types[1], right, 2, MPI_BOTTOM, 1, types[4], left, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* the interior packed and unpacked elsewhere; the resized column gathered */
        unsigned char packed[N * N * sizeof(double)];
        int pos = 0, upos = 0;
        MPI_Pack(m, 1, types[2], packed, sizeof packed, &pos, MPI_COMM_WORLD);
        MPI_Unpack(packed, pos, &upos, g, 1, types[2], MPI_COMM_WORLD);
        static double cols[N][N]; /* rank k's column 0 becomes column k (size <= N) */
        MPI_Allgather(&m[0][0], 1, types[0], cols, 1, types[3], MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                sum = mix2(sum, (uint64_t)(g[i][j] * 4 + m[i][j]));
        for (int i = 0; i < N; i++)
            for (int k = 0; k < size && k < N; k++)
                sum = mix2(sum, (uint64_t)cols[i][k]);
        sum = mix2(sum, (uint64_t)(got_ints[0] * 7 + got_ints[1] * 3 + got_ints[2]) +
                            (uint64_t)(got_double * 2));
        /* callbacks: dup and free of the communicator and of the type */
        MPI_Comm d;
        MPI_Comm_dup(attr_comm, &d);
        void *v;
        int flag;
        MPI_Comm_get_attr(d, comm_key, &v, &flag);
        check(flag && (long)v == 101, "the dup's attribute is %ld", (long)v);
        MPI_Comm_free(&d);
        MPI_Datatype t;
        MPI_Type_dup(types[0], &t);
        MPI_Type_free(&t);
        /* the window's attribute replaced: its delete callback runs */
        MPI_Win_get_attr(win, win_key, &v, &flag);
        check(flag && (long)v == r + 1, "the window's attribute is %ld", (long)v);
        MPI_Win_set_attr(win, win_key, (void *)(r + 2));
        /* the user handler, on an MPI error and through Comm_call_errhandler */
        int rc = MPI_Send(&rc, 1, MPI_INT, size + 5, 0, err_comm);
        check(rc != MPI_SUCCESS, "a send to a bad rank succeeded");
        MPI_Comm_call_errhandler(err_comm, my_code);
        char s[MPI_MAX_ERROR_STRING];
        int len, cls;
        MPI_Error_string(my_code, s, &len);
        MPI_Error_class(my_code, &cls);
        check(!strcmp(s, "ckpt_objects code") && cls == my_class, "the user error code changed");
        if (r % 10 == 9) progress("round %ld\n", r + 1);
    }
    /* Everything is freed in the end: the delete callbacks run once more. */
    MPI_Comm_free(&attr_comm);
    MPI_Comm_free(&err_comm);
    MPI_Win_free(&win);
    MPI_Win_free_keyval(&win_key);
    for (int i = 0; i < NTYPES; i++)
        MPI_Type_free(&types[i]);
    MPI_Info_free(&info);
    MPI_Comm_free_keyval(&comm_key);
    MPI_Type_free_keyval(&type_key);
    const char *names[] = {"sum", "copies", "deletes", "tcopies", "tdeletes", "wdeletes", "errors"};
    uint64_t v[] = {sum,
                    (uint64_t)copies,
                    (uint64_t)deletes,
                    (uint64_t)type_copies,
                    (uint64_t)type_deletes,
                    (uint64_t)win_deletes,
                    (uint64_t)errors_seen};
    report("objects", names, v, 7);
    MPI_Finalize();
    return 0;
}
