/* Info objects against the native run: set, overwrite, get (truncated),
 * get_string, valuelen, nkeys/nthkey in order, delete, dup (independent
 * copies), free, MPI_INFO_ENV, and the error classes of misuse. */
#include "out.h"

#include <string.h>

static void show(const char *what, MPI_Info info)
{
    int n;
    MPI_Info_get_nkeys(info, &n);
    out("%s: %d keys", what, n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY], value[64];
        int flag, len;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get_valuelen(info, key, &len, &flag);
        MPI_Info_get(info, key, sizeof value - 1, value, &flag);
        out(" %s=%s(%d)", key, value, len);
    }
    out("\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info a, b;
    MPI_Info_create(&a);
    show("empty", a);
    MPI_Info_set(a, "cb_nodes", "4");
    MPI_Info_set(a, "striping_unit", "1048576");
    MPI_Info_set(a, "file_perm", "0600");
    MPI_Info_set(a, "cb_nodes", "8"); /* overwrite keeps the key's place */
    show("set", a);
    char v[16];
    int flag, len;
    /* (MPI_Info_get with a value longer than valuelen truncates it in the
     * standard; MPICH 4.0.2 fails with "Value is too long": not compared.) */
    MPI_Info_get(a, "striping_unit", 15, v, &flag);
    out("get: %s %d\n", v, flag);
    MPI_Info_get(a, "absent", 15, v, &flag);
    out("get absent: %d\n", flag);
    len = 4;
    MPI_Info_get_string(a, "striping_unit", &len, v, &flag);
    out("get_string in 4: %s flag %d buflen %d\n", v, flag, len);
    len = 0;
    MPI_Info_get_string(a, "file_perm", &len, v, &flag);
    out("get_string in 0: flag %d buflen %d\n", flag, len);
    MPI_Info_dup(a, &b);
    MPI_Info_delete(a, "cb_nodes");
    MPI_Info_set(b, "extra", "yes");
    show("a after delete", a);
    show("dup", b);
    MPI_Info_free(&a);
    out("freed: %d\n", a == MPI_INFO_NULL);
    show("env", MPI_INFO_ENV);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char key[MPI_MAX_INFO_KEY];
    /* (MPI_INFO_NULL is MPI_ERR_INFO in the standard, MPI_ERR_ARG in MPICH:
     * not compared.) */
    out("errors: nthkey beyond %d, delete absent %d, empty key %d\n",
        error_class_of(MPI_Info_get_nthkey(b, 5, key)), error_class_of(MPI_Info_delete(b, "no")),
        error_class_of(MPI_Info_set(b, "", "x")));
    MPI_Info_free(&b);
    (void)rank;
    out_flush();
    MPI_Finalize();
    return 0;
}
