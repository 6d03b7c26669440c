/* Windows as objects (src/lib/rma/win.c): MPI_Win_create on MPI_COMM_WORLD and
 * on a split, the group, the name, the predefined attributes, keyvals with
 * delete callbacks (run by MPI_Win_delete_attr, by a new value and by
 * MPI_Win_free; a keyval freed while attributes use it), and the error
 * classes of bad arguments. Compared with MPICH's own run. */
#include "out.h"

#include <string.h>

static int deleted;

static int count_delete(MPI_Win w, int key, void *value, void *extra)
{
    (void)w, (void)key, (void)extra;
    deleted += (int)(intptr_t)value;
    return MPI_SUCCESS;
}

static void show(const char *what, MPI_Win w, const void *base)
{
    void *v;
    int flag, len, cmp;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Win_get_attr(w, MPI_WIN_BASE, &v, &flag);
    out("%s: base %s", what, flag && v == base ? "ours" : "other");
    MPI_Win_get_attr(w, MPI_WIN_SIZE, &v, &flag);
    out(" size %ld", flag ? (long)*(MPI_Aint *)v : -1L);
    MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &v, &flag);
    out(" disp_unit %d", flag ? *(int *)v : -1);
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &v, &flag);
    out(" flavor %s", flag && *(int *)v == MPI_WIN_FLAVOR_CREATE ? "create" : "other");
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &v, &flag);
    /* either is MPI's (MPICH: unified; mpcr makes created windows separate: docs/one-sided.md) */
    out(" model %s", flag && (*(int *)v == MPI_WIN_UNIFIED || *(int *)v == MPI_WIN_SEPARATE)
                         ? "known"
                         : "missing");
    MPI_Win_get_name(w, name, &len);
    out(" name '%s' (%d)", name, len);
    MPI_Group g, wg;
    MPI_Win_get_group(w, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int n;
    MPI_Group_size(g, &n);
    MPI_Group_compare(g, wg, &cmp);
    out(" group of %d %s\n", n, cmp == MPI_IDENT ? "ident" : "not world's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    out("rank %d:\n", me);
    double buf[8];
    MPI_Win w, h;
    MPI_Win_create(buf, sizeof buf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    show("world", w, buf);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, half, &h);
    MPI_Win_set_name(h, "half of the ranks");
    show("half", h, NULL);

    int k1, k2;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &k1, NULL);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k2, NULL);
    MPI_Win_set_attr(w, k1, (void *)(intptr_t)1);
    MPI_Win_set_attr(w, k1, (void *)(intptr_t)2); /* deletes 1 */
    MPI_Win_set_attr(h, k1, (void *)(intptr_t)10);
    MPI_Win_set_attr(h, k2, (void *)(intptr_t)7);
    void *v = NULL;
    int flag = 0;
    MPI_Win_get_attr(w, k1, &v, &flag);
    out("k1 on world: %d %ld; deleted %d\n", flag, (long)(intptr_t)v, deleted);
    MPI_Win_delete_attr(w, k1); /* deletes 2 */
    MPI_Win_get_attr(w, k1, &v, &flag);
    out("k1 on world after delete: %d; deleted %d\n", flag, deleted);
    MPI_Win_free_keyval(&k1); /* h still uses it */
    MPI_Win_get_attr(h, k1 == MPI_KEYVAL_INVALID ? 0 : k1, &v, &flag);
    out("k1 freed: handle %s\n", k1 == MPI_KEYVAL_INVALID ? "invalid" : "kept");
    MPI_Win_get_attr(h, k2, &v, &flag);
    out("k2 on half: %d %ld\n", flag, (long)(intptr_t)v);

    MPI_Win bad = MPI_WIN_NULL;
    int rc = MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bad);
    out("size -1: %d\n", error_class_of(rc));
    rc = MPI_Win_create(buf, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad);
    out("disp_unit 0: %d\n", error_class_of(rc));
    MPI_Win_free(&h); /* deletes 10 */
    out("freed half: %s, deleted %d\n", h == MPI_WIN_NULL ? "MPI_WIN_NULL" : "?", deleted);
    MPI_Win_free(&w);
    MPI_Win_free_keyval(&k2);
    MPI_Comm_free(&half);
    out_flush();
    MPI_Finalize();
    return 0;
}
