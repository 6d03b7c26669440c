/* Window error handlers (MPI 4.0 9.3.2; docs/one-sided.md): a call on a
 * window raises its errors on the window's handler once the program has set
 * one, before that on MPI_COMM_WORLD's (as MPICH does); MPI_ERRORS_RETURN on
 * a window returns its errors while the world's handler is fatal; a user
 * handler made by MPI_Win_create_errhandler is called with the window and
 * the code, by a failing call and by MPI_Win_call_errhandler (with a code
 * the program added); MPI_Win_get_errhandler answers MPI_ERRORS_ARE_FATAL
 * before any is set. Compared with MPICH's own run. */
#include "out.h"

static int calls, last_code;
static MPI_Win seen;

static void on_error(MPI_Win *win, int *code, ...)
{
    calls++, last_code = *code, seen = *win;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    out("rank %d:\n", me);
    int buf[4] = {0};
    MPI_Win w;
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(w, &eh);
    out("default: %s\n", eh == MPI_ERRORS_ARE_FATAL ? "MPI_ERRORS_ARE_FATAL" : "other");

    /* none set on the window: the world's MPI_ERRORS_RETURN returns it */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, size, 0, w);
    out("lock of rank %d, world returns: class %d\n", size, error_class_of(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* the window's own MPI_ERRORS_RETURN, the world's fatal */
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, -5, 0, w);
    out("lock of rank -5, window returns: class %d\n", error_class_of(rc));
    rc = MPI_Win_fence(0, w);
    out("fence: %d\n", rc);

    /* a user handler: called by a failing call and by MPI_Win_call_errhandler */
    MPI_Errhandler mine;
    MPI_Win_create_errhandler(on_error, &mine);
    MPI_Win_set_errhandler(w, mine);
    MPI_Errhandler_free(&mine); /* the window keeps it */
    rc = MPI_Put(buf, 1, MPI_INT, size + 1, 0, 1, MPI_INT, w);
    out("put to rank %d: class %d, handler called %d with class %d, its window %s\n", size + 1,
        error_class_of(rc), calls, error_class_of(last_code), seen == w ? "ours" : "other");
    int cls, code;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    rc = MPI_Win_call_errhandler(w, code);
    out("call_errhandler: %d, handler called %d, code %s\n", rc, calls,
        last_code == code ? "ours" : "other");
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    out_flush();
    MPI_Finalize();
    return 0;
}
