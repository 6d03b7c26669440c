/* The sessions model (MPI 4.0 section 11.3; docs/sessions.md): sessions
 * before, beside and after the world model, several at once, their process
 * sets, info, groups, communicators (an inter-communicator too) and error
 * handlers. Its output is
 * compared with MPICH 4.0.2's native run; rank 0 prints.
 *   sessions          what MPICH answers as mpcr does (compared)
 *   sessions strict   where MPICH 4.0.2 departs from the standard (mpcr
 *                     only): errors of a session call go to the session's
 *                     handler, the one given to MPI_Session_init included;
 *                     an unknown process set is MPI_ERR_ARG; a finalized
 *                     session MPI_ERR_SESSION. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, handled, last_code;

static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    handled++;
    last_code = *code;
}

#define say(...)                                                                                   \
    do {                                                                                           \
        if (me == 0) printf(__VA_ARGS__);                                                          \
    } while (0)

static const char *info_value(MPI_Info info, const char *key, char *buf, int len)
{
    int flag = 0;
    MPI_Info_get(info, key, len - 1, buf, &flag);
    return flag ? buf : "(absent)";
}

/* Every process set of s: its name (asked for its length first) and size. */
static void list_psets(MPI_Session s)
{
    int n;
    char name[64], value[32];
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    say("psets: %d\n", n);
    for (int i = 0; i < n; i++) {
        int len = 0;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        int need = len;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        char cut[5];
        len = 5;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, cut);
        MPI_Info info;
        MPI_Session_get_pset_info(s, name, &info);
        say("pset %d: %s length %d, cut to 5: '%s' (%d), mpi_size %s\n", i, name, need, cut, len,
            info_value(info, "mpi_size", value, sizeof value));
        MPI_Info_free(&info);
    }
}

/* A communicator from set `pset` of s; its size, this rank in it and a sum over it. */
static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    int gsize, grank, csize, crank, sum = 0, one = 1;
    MPI_Group_from_session_pset(s, pset, &g);
    MPI_Group_size(g, &gsize);
    MPI_Group_rank(g, &grank);
    MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&g);
    MPI_Comm_size(c, &csize);
    MPI_Comm_rank(c, &crank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    if (csize > 1) me = crank; /* a WORLD set's ranks are the world's: rank 0 prints */
    say("%s (%s): group size %d rank %d, communicator size %d rank %d, sum %d\n", pset, tag, gsize,
        grank, csize, crank, sum);
    return c;
}

static void compared(int *argc, char ***argv)
{
    MPI_Session a, b, c;
    MPI_Info ask, used;
    char value[64];
    int flag;
    MPI_Info_create(&ask);
    MPI_Info_set(ask, "thread_level", "MPI_THREAD_MULTIPLE");
    MPI_Session_init(ask, MPI_ERRORS_RETURN, &a);
    MPI_Info_free(&ask);
    MPI_Comm wc = comm_from(a, "mpi://WORLD", "sessions.a");
    MPI_Initialized(&flag);
    say("before MPI_Init: initialized %d\n", flag);
    MPI_Session_get_info(a, &used);
    say("A's thread_level: %s\n", info_value(used, "thread_level", value, sizeof value));
    MPI_Info_free(&used);
    list_psets(a);
    /* a second session at once, its SELF set as a communicator */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &b);
    MPI_Comm sc = comm_from(b, "mpi://SELF", "sessions.b");
    int token = 40 + me, back = 0;
    MPI_Sendrecv(&token, 1, MPI_INT, 0, 0, &back, 1, MPI_INT, 0, 0, sc, MPI_STATUS_IGNORE);
    say("SELF round trip: %d\n", back);
    MPI_Comm_free(&sc);
    MPI_Session_finalize(&b);
    say("B finalized: MPI_SESSION_NULL %d\n", b == MPI_SESSION_NULL);
    /* an inter-communicator between two halves of the WORLD set's group */
    MPI_Group all, low, high;
    MPI_Group_from_session_pset(a, "MPI://WORLD", &all);
    int np, half;
    MPI_Group_size(all, &np);
    half = np / 2;
    int lo[] = {0, half - 1, 1}, hi[] = {half, np - 1, 1};
    MPI_Group_range_incl(all, 1, &lo, &low);
    MPI_Group_range_incl(all, 1, &hi, &high);
    int mine = 0;
    MPI_Group_rank(low, &mine);
    int in_low = mine != MPI_UNDEFINED;
    MPI_Comm inter;
    MPI_Intercomm_create_from_groups(in_low ? low : high, 0, in_low ? high : low, 0,
                                     "sessions.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
    int remote = 0, rsum = 0, val = 100 + me;
    MPI_Comm_remote_size(inter, &remote);
    MPI_Allreduce(&val, &rsum, 1, MPI_INT, MPI_SUM, inter);
    say("inter-communicator of the halves: remote size %d, sum of the remote group %d\n", remote,
        rsum);
    MPI_Comm_free(&inter);
    MPI_Group_free(&low);
    MPI_Group_free(&high);
    MPI_Group_free(&all);
    /* names are compared without regard to case */
    MPI_Comm lc = comm_from(a, "MPI://World", "sessions.case");
    MPI_Comm_free(&lc);

    MPI_Init(argc, argv);
    MPI_Initialized(&flag);
    say("after MPI_Init: initialized %d\n", flag);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group wg, pg;
    int cmp;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_from_session_pset(c, "mpi://WORLD", &pg);
    MPI_Group_compare(wg, pg, &cmp);
    say("WORLD set's group against MPI_COMM_WORLD's: ident %d\n", cmp == MPI_IDENT);
    MPI_Group_free(&pg);
    MPI_Group_from_session_pset(c, "mpi://SELF", &pg);
    MPI_Group_compare(pg, MPI_GROUP_EMPTY, &cmp);
    int r0 = 0, w = -1;
    MPI_Group_translate_ranks(pg, 1, &r0, wg, &w);
    say("SELF set's rank 0 is world rank %d\n", w);
    MPI_Group_free(&pg);
    MPI_Group_free(&wg);
    /* a handler of the program's, set, got back and called */
    MPI_Errhandler eh, got;
    MPI_Session_create_errhandler(on_error, &eh);
    MPI_Session_set_errhandler(c, eh);
    MPI_Session_get_errhandler(c, &got);
    say("C's handler is the one set: %d\n", got == eh);
    MPI_Session_call_errhandler(c, MPI_ERR_OTHER);
    say("handler called %d times, code %d\n", handled, last_code);
    MPI_Session_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Session_call_errhandler(c, MPI_ERR_OTHER);
    say("MPI_ERRORS_RETURN: handler still called %d times\n", handled);
    MPI_Session_finalize(&c);
    MPI_Finalize();
    MPI_Finalized(&flag);
    say("after MPI_Finalize: finalized %d\n", flag);
    /* A outlives the world model */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, wc);
    say("A's communicator after MPI_Finalize: sum %d\n", sum);
    MPI_Comm_free(&wc);
    MPI_Session_finalize(&a);
}

static void class_is(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    say("%s: %s (class %d)\n", what, cls == want ? "ok" : "WRONG", cls);
}

static void strict(int *argc, char ***argv)
{
    MPI_Errhandler eh;
    MPI_Session s, t;
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info = MPI_INFO_NULL;
    /* a handler may be made before any session, for MPI_Session_init */
    MPI_Session_create_errhandler(on_error, &eh);
    MPI_Session_init(MPI_INFO_NULL, eh, &s);
    MPI_Errhandler got;
    MPI_Session_get_errhandler(s, &got);
    MPI_Comm wc;
    MPI_Group wg;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    MPI_Comm_create_from_group(wg, "strict", MPI_INFO_NULL, MPI_ERRORS_RETURN, &wc);
    MPI_Comm_rank(wc, &me);
    say("the handler given to MPI_Session_init: %d\n", got == eh);
    int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    class_is(rc, MPI_ERR_ARG, "unknown set, group");
    say("the session's handler saw it: %d (class %d), group null %d\n", handled, last_code,
        g == MPI_GROUP_NULL);
    rc = MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info);
    class_is(rc, MPI_ERR_ARG, "unknown set, info");
    int len = 64;
    char name[64];
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name);
    class_is(rc, MPI_ERR_ARG, "set 2 of 2");
    say("handler calls: %d\n", handled);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
    rc = MPI_Group_from_session_pset(s, NULL, &g);
    class_is(rc, MPI_ERR_ARG, "NULL set name");
    /* a finalized session: MPI_ERR_SESSION, on the world's handler */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &t);
    MPI_Session kept = t;
    MPI_Session_finalize(&t);
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n;
    rc = MPI_Session_get_num_psets(kept, MPI_INFO_NULL, &n);
    class_is(rc, MPI_ERR_SESSION, "finalized session");
    rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
    class_is(rc, MPI_ERR_SESSION, "MPI_SESSION_NULL");
    MPI_Finalize();
    MPI_Group_free(&wg);
    MPI_Comm_free(&wc);
    MPI_Errhandler_free(&eh);
    /* s left open at the exit, after MPI_Finalize: MPI ends with the program, silently */
}

static void reopen(void)
{
    for (int i = 0; i < 3; i++) {
        MPI_Session s;
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
        MPI_Comm c = comm_from(s, "mpi://WORLD", "reopen");
        MPI_Comm_free(&c);
        MPI_Session_finalize(&s);
    }
    say("reopened 3 times\n");
    MPI_Session left; /* open at the exit: MPI ends with the program, silently */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &left);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "strict"))
        strict(&argc, &argv);
    else if (argc > 1 && !strcmp(argv[1], "reopen"))
        reopen();
    else
        compared(&argc, &argv);
    return 0;
}
