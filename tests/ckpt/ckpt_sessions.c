/* Checkpoint scenario: the sessions model (MPI 4.0 section 11.3), before,
 * with and after the world model. Session A is opened before MPI_Init, a
 * handler of the program's set on it; groups from its process sets
 * mpi://WORLD and mpi://SELF, a communicator from each, and the WORLD
 * set's info are made at once and used on every step. An eighth of the way
 * the program calls MPI_Init and opens session B, with a communicator from
 * its WORLD set; half-way it finalizes B and calls MPI_Finalize, and goes
 * on with A alone (early phases, as a restart's start-up takes much of
 * each piece: random cuts land in all three). Every 4th step a session C is opened, a communicator made
 * from one of its sets, used, freed, and C finalized (three sessions at
 * once). Each step also asks A for its sets, info and handler, and calls
 * the handler. One rank in turn computes UNITS units per step, so checkpoints
 * land while the others wait in an Allreduce over a session's
 * communicator. The restart (under either MPI) must give every session and
 * what was made from it back. The results are gathered over A's
 * communicator, after MPI_Finalize.
 *   ckpt_sessions [STEPS [UNITS]]   (default 48 50; any ranks) */
#include "ckpt.h"

static uint64_t sum;
static int handled; /* calls of A's handler */
static int me, np;
static MPI_Comm wc = MPI_COMM_NULL; /* from A's mpi://WORLD: rank 0 prints, failures abort on it */

static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    handled += *code == MPI_ERR_OTHER;
}

/* ckpt.h's progress() and check() name MPI_COMM_WORLD, which is not there
 * before MPI_Init: these name A's communicator. */
#define say(...) progress_on(wc, __VA_ARGS__)
#define expect(cond, ...) check_on(wc, cond, __VA_ARGS__)

static void fold(uint64_t v)
{
    sum = mix2(sum, v);
}

static void reduce(MPI_Comm c, uint64_t v)
{
    fold_xor_over(c, &sum, v);
}

/* A communicator from process set `pset` of session s (its group freed). */
static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    int rc = MPI_Group_from_session_pset(s, pset, &g);
    expect(rc == MPI_SUCCESS, "group of %s: %d", pset, rc);
    rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    expect(rc == MPI_SUCCESS, "communicator of %s: %d", pset, rc);
    MPI_Group_free(&g);
    return c;
}

/* What session A says of itself, and its handler called once. */
static void ask(MPI_Session a, MPI_Errhandler eh, MPI_Group world, MPI_Info pinfo, long step)
{
    int n = 0, len = 0, flag = 0;
    char name[32], value[32];
    MPI_Session_get_num_psets(a, MPI_INFO_NULL, &n);
    expect(n >= 2, "step %ld: %d process sets", step, n);
    MPI_Session_get_nth_pset(a, MPI_INFO_NULL, 1, &len, NULL);
    MPI_Session_get_nth_pset(a, MPI_INFO_NULL, 1, &len, name);
    expect(!strcmp(name, "mpi://SELF") && len == 11, "step %ld: set 1 is %s (%d)", step, name, len);
    MPI_Info_get(pinfo, "mpi_size", sizeof value - 1, value, &flag);
    expect(flag && atoi(value) == np, "step %ld: mpi_size %s", step, flag ? value : "absent");
    MPI_Errhandler got;
    MPI_Session_get_errhandler(a, &got);
    expect(got == eh, "step %ld: A's handler changed", step);
    MPI_Session_call_errhandler(a, MPI_ERR_OTHER);
    expect(handled == step + 1, "step %ld: A's handler ran %d times", step, handled);
    if (step % 8 == 0) {
        MPI_Info used;
        MPI_Session_get_info(a, &used);
        MPI_Info_get(used, "thread_level", sizeof value - 1, value, &flag);
        expect(flag, "step %ld: no thread_level", step);
        MPI_Info_free(&used);
        MPI_Group again;
        int cmp;
        MPI_Group_from_session_pset(a, "mpi://WORLD", &again);
        MPI_Group_compare(world, again, &cmp);
        expect(cmp == MPI_IDENT, "step %ld: the WORLD set's group differs: %d", step, cmp);
        MPI_Group_free(&again);
    }
}

int main(int argc, char **argv)
{
    long steps = arg_long(argc, argv, 1, 48), units = arg_long(argc, argv, 2, 50);
    MPI_Session a, b = MPI_SESSION_NULL;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &a);
    MPI_Errhandler eh;
    MPI_Session_create_errhandler(on_error, &eh);
    MPI_Session_set_errhandler(a, eh);
    MPI_Group world, self;
    MPI_Group_from_session_pset(a, "mpi://WORLD", &world);
    MPI_Group_from_session_pset(a, "mpi://SELF", &self);
    MPI_Comm_create_from_group(world, "ckpt.sessions.a", MPI_INFO_NULL, MPI_ERRORS_RETURN, &wc);
    MPI_Comm sc, bc = MPI_COMM_NULL;
    MPI_Comm_create_from_group(self, "ckpt.sessions.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc);
    MPI_Comm_rank(wc, &me);
    MPI_Comm_size(wc, &np);
    MPI_Info pinfo;
    MPI_Session_get_pset_info(a, "mpi://WORLD", &pinfo);
    for (long step = 0; step < steps; step++) {
        if (step == steps / 2) { /* the world model and B leave; A stays */
            MPI_Comm_free(&bc);
            MPI_Session_finalize(&b);
            MPI_Finalize();
            int flag;
            MPI_Finalized(&flag);
            expect(flag, "not finalized after MPI_Finalize");
        }
        if (step == steps / 8) { /* the world model joins, and session B */
            int flag;
            MPI_Initialized(&flag);
            expect(!flag, "initialized before MPI_Init");
            MPI_Init(&argc, &argv);
            MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &b);
            bc = comm_of(b, "mpi://WORLD", "ckpt.sessions.b");
            int cmp;
            MPI_Comm_compare(bc, MPI_COMM_WORLD, &cmp);
            expect(cmp == MPI_CONGRUENT, "B's communicator against the world's: %d", cmp);
        }
        if (step % np == me) fold(compute(mix2(sum, (uint64_t)step), units));
        reduce(wc, mix2(sum, (uint64_t)me));
        reduce(sc, sum);
        if (bc != MPI_COMM_NULL) reduce(bc, mix2(sum, (uint64_t)step));
        uint64_t out = mix2(sum, 7), in = 0;
        MPI_Sendrecv(&out, 1, MPI_UINT64_T, (me + 1) % np, 1, &in, 1, MPI_UINT64_T,
                     (me + np - 1) % np, 1, wc, MPI_STATUS_IGNORE);
        fold(in);
        ask(a, eh, world, pinfo, step);
        if (step % 4 == 0) { /* a short-lived session beside A (and B) */
            MPI_Session c;
            MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
            MPI_Comm t = comm_of(c, step % 8 ? "mpi://SELF" : "mpi://WORLD", "ckpt.sessions.c");
            reduce(t, mix2(sum, (uint64_t)step));
            MPI_Comm_free(&t);
            MPI_Session_finalize(&c);
            expect(c == MPI_SESSION_NULL, "step %ld: C not MPI_SESSION_NULL", step);
        }
        say("sessions: step %ld done\n", step);
    }
    const char *names[] = {"checksum"};
    report_on(wc, "sessions", names, &sum, 1);
    MPI_Info_free(&pinfo);
    MPI_Comm_free(&sc);
    MPI_Comm_free(&wc);
    MPI_Group_free(&self);
    MPI_Group_free(&world);
    MPI_Errhandler_free(&eh);
    MPI_Session_finalize(&a);
    return 0;
}
