/* Attributes and error handlers against the native run: comm and type
 * keyvals with copy and delete callbacks (run on dup, set over an existing
 * value, delete, free), MPI_COMM_DUP_FN, a keyval freed while an attribute
 * uses it, the MPI-1 forms, the predefined attributes; user error handlers
 * (called with the communicator and the code, Comm_call_errhandler),
 * user error classes, codes and strings, MPI_LASTUSEDCODE. */
#include "out.h"

#include <string.h>

static int rank;

static int copy_plus_one(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval;
    out("  copy callback: value %ld extra %s\n", (long)in, (char *)extra);
    *(void **)out = (void *)((long)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_none(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static int deleted(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval;
    out("  delete callback: value %ld extra %s\n", (long)value, (char *)extra);
    return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)keyval, (void)extra;
    out("  type copy callback: value %ld\n", (long)in);
    *(void **)out = (void *)((long)in * 10);
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_deleted(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t, (void)keyval, (void)extra;
    out("  type delete callback: value %ld\n", (long)value);
    return MPI_SUCCESS;
}

static void show(const char *what, MPI_Comm comm, int keyval)
{
    void *v;
    int flag;
    MPI_Comm_get_attr(comm, keyval, &v, &flag);
    out("%s: flag %d value %ld\n", what, flag, flag ? (long)v : -1L);
}

static void comm_attributes(void)
{
    int k1, k2, k3;
    MPI_Comm_create_keyval(copy_plus_one, deleted, &k1, "k1");
    MPI_Comm_create_keyval(copy_none, deleted, &k2, "k2");
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_attr(c, k1, (void *)41L);
    MPI_Comm_set_attr(c, k2, (void *)7L);
    MPI_Comm_set_attr(c, k3, (void *)99L);
    out("set over an existing value:\n");
    MPI_Comm_set_attr(c, k2, (void *)8L);
    show("k1", c, k1);
    show("k2", c, k2);
    out("dup:\n");
    MPI_Comm d;
    MPI_Comm_dup(c, &d);
    show("dup k1", d, k1);
    show("dup k2", d, k2);
    show("dup k3", d, k3);
    out("delete k1 of the dup:\n");
    MPI_Comm_delete_attr(d, k1);
    show("dup k1 after delete", d, k1);
    out("free keyval k2 (still attached to c):\n");
    MPI_Comm_free_keyval(&k2);
    out("k2 is MPI_KEYVAL_INVALID: %d\n", k2 == MPI_KEYVAL_INVALID);
    out("free c:\n");
    MPI_Comm_free(&c);
    out("free the dup:\n");
    MPI_Comm_free(&d);
    MPI_Comm_free_keyval(&k1);
    MPI_Comm_free_keyval(&k3);
    /* MPI-1 forms on MPI_COMM_WORLD */
    int k;
    MPI_Keyval_create(MPI_NULL_COPY_FN, deleted, &k, "mpi1");
    MPI_Attr_put(MPI_COMM_WORLD, k, (void *)5L);
    void *v;
    int flag;
    MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag);
    out("mpi-1: flag %d value %ld\n", flag, (long)v);
    MPI_Attr_delete(MPI_COMM_WORLD, k);
    MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag);
    out("mpi-1 after delete: flag %d\n", flag);
    MPI_Keyval_free(&k);
}

static void type_attributes(void)
{
    int k;
    MPI_Type_create_keyval(type_copy, type_deleted, &k, NULL);
    MPI_Datatype t, u;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, k, (void *)3L);
    out("type dup:\n");
    MPI_Type_dup(t, &u);
    void *v;
    int flag;
    MPI_Type_get_attr(u, k, &v, &flag);
    out("type dup attr: flag %d value %ld\n", flag, (long)v);
    out("type free:\n");
    MPI_Type_free(&u); /* (MPICH runs t's callbacks only once u, made from it, is gone) */
    MPI_Type_free(&t);
    MPI_Type_set_attr(MPI_INT, k, (void *)1L);
    MPI_Type_get_attr(MPI_INT, k, &v, &flag);
    out("on MPI_INT: flag %d value %ld\n", flag, (long)v);
    MPI_Type_delete_attr(MPI_INT, k);
    MPI_Type_free_keyval(&k);
}

static void predefined(void)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    /* the value itself: the same on either proxy (mpcr tells the least of the MPIs the job
     * may be restarted on: runtime.h MPCR_TAG_UB_PORTABLE), and usable as a tag */
    out("tag_ub %d, at least 32767: %d %d\n", *v, flag, *v >= 32767);
    int sent = 7, got = 0;
    MPI_Sendrecv(&sent, 1, MPI_INT, 0, *v, &got, 1, MPI_INT, 0, *v, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    out("a message with tag MPI_TAG_UB: %d\n", got);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
    out("host: %d %d\n", flag, *v);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
    out("io: %d %d\n", flag, *v);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    out("wtime_is_global: %d %d\n", flag, *v);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag);
    out("appnum: %d %d\n", flag, *v);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    out("lastusedcode: %d %x\n", flag, *v);
}

static void handler(MPI_Comm *comm, int *code, ...)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, cls;
    MPI_Comm_get_name(*comm, name, &len);
    MPI_Error_class(*code, &cls);
    out("  handler: comm %s code's class %d\n", name, cls);
}

static void error_handlers(void)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_name(c, "mine");
    MPI_Comm_set_errhandler(c, eh);
    MPI_Errhandler_free(&eh);
    out("freed handle is null: %d\n", eh == MPI_ERRHANDLER_NULL);
    out("a send to a bad rank:\n");
    int rc = MPI_Send(&rc, 1, MPI_INT, 99, 0, c);
    out("returned class %d\n", error_class_of(rc));
    int cls, code, code2;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_code(cls, &code2);
    MPI_Add_error_string(cls, "my class");
    MPI_Add_error_string(code, "my first code");
    out("class %x codes %x %x\n", cls, code, code2);
    char s[MPI_MAX_ERROR_STRING];
    int len, c1;
    MPI_Error_string(cls, s, &len);
    out("strings: '%s'", s);
    MPI_Error_string(code, s, &len);
    out(" '%s'", s);
    MPI_Error_string(code2, s, &len);
    out(" '%s'\n", s);
    MPI_Error_class(code2, &c1);
    out("class of code: %d\n", c1 == cls);
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    out("lastusedcode: %x\n", *v);
    out("call_errhandler:\n");
    rc = MPI_Comm_call_errhandler(c, code);
    out("returned %d\n", rc);
    MPI_Comm_free(&c);
    MPI_Errhandler get;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &get);
    out("world's handler is fatal: %d\n", get == MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    out("errors: keyval of the wrong kind %d\n",
        error_class_of(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL)));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    comm_attributes();
    type_attributes();
    predefined();
    error_handlers();
    out_flush();
    MPI_Finalize();
    return 0;
}
