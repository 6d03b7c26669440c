/* Derived datatypes end to end, compared with the native run: every
 * constructor's bounds, size, envelope and contents; derived types in
 * point-to-point (a vector halo, a struct at MPI_BOTTOM, a type freed while
 * a receive on it is pending) and in a collective (a resized vector in
 * MPI_Gather); MPI_Pack/Unpack and external32; names; match_size. */
#include "out.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static int rank, size;

static void describe(const char *what, MPI_Datatype t)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Count csize, xlb, xext;
    int isize;
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    MPI_Type_size(t, &isize);
    MPI_Type_size_x(t, &csize);
    MPI_Type_get_extent_x(t, &xlb, &xext);
    out("%s: size %d/%lld lb %ld extent %ld (x %lld %lld) true lb %ld extent %ld\n", what, isize,
        (long long)csize, (long)lb, (long)extent, (long long)xlb, (long long)xext, (long)tlb,
        (long)textent);
    int ni, na, nt, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    out("  envelope %d ints %d addrs %d types combiner %d\n", ni, na, nt, comb);
    if (comb == MPI_COMBINER_NAMED) return;
    int ints[64];
    MPI_Aint addrs[64];
    MPI_Datatype types[64];
    MPI_Type_get_contents(t, 64, 64, 64, ints, addrs, types);
    out("  ints");
    for (int i = 0; i < ni; i++)
        out(" %d", ints[i]);
    out(" addrs");
    for (int i = 0; i < na; i++)
        out(" %ld", (long)addrs[i]);
    out(" types");
    for (int i = 0; i < nt; i++) {
        int pni, pna, pnt, pcomb;
        MPI_Type_get_envelope(types[i], &pni, &pna, &pnt, &pcomb);
        char name[MPI_MAX_OBJECT_NAME] = "";
        int len;
        MPI_Type_get_name(types[i], name, &len);
        out(" %d:%s", pcomb, name);
        if (pcomb != MPI_COMBINER_NAMED) MPI_Type_free(&types[i]);
    }
    out("\n");
}

/* The packed bytes of a few elements, hex. */
static void show_packed(const char *what, const void *buf, int count, MPI_Datatype t)
{
    unsigned char packed[512];
    int pos = 0, psize;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize);
    MPI_Pack(buf, count, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    out("%s: pack_size %d packed %d:", what, psize, pos);
    for (int i = 0; i < pos; i++)
        out("%02x", packed[i]);
    out("\n");
}

static void constructors(void)
{
    MPI_Datatype t[16];
    int n = 0;
    MPI_Type_contiguous(3, MPI_DOUBLE, &t[n++]);
    MPI_Type_vector(4, 2, -3, MPI_INT, &t[n++]);
    MPI_Type_create_hvector(3, 1, 20, t[0], &t[n++]);
    int bl[3] = {2, 0, 1}, dis[3] = {5, -2, 9};
    MPI_Type_indexed(3, bl, dis, MPI_SHORT, &t[n++]);
    MPI_Aint adis[3] = {-16, 40, 8};
    MPI_Type_create_hindexed(3, bl, adis, MPI_FLOAT, &t[n++]);
    MPI_Type_create_indexed_block(3, 2, dis, MPI_CHAR, &t[n++]);
    MPI_Type_create_hindexed_block(3, 1, adis, t[1], &t[n++]);
    struct s {
        char c;
        double d;
        int i[2];
    };
    int sbl[3] = {1, 1, 2};
    MPI_Aint sdis[3] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, i)};
    MPI_Datatype stypes[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, sbl, sdis, stypes, &t[n++]);
    MPI_Type_create_resized(t[n - 1], -8, 48, &t[n]);
    n++;
    MPI_Type_dup(t[1], &t[n++]);
    int sizes[3] = {4, 5, 6}, subs[3] = {2, 3, 4}, starts[3] = {1, 2, 0};
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t[n++]);
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t[n++]);
    MPI_Type_contiguous(0, MPI_INT, &t[n++]);
    MPI_Type_vector(2, 1, 3, t[7], &t[n++]); /* a vector of structs */
    for (int i = 0; i < n; i++) {
        MPI_Type_commit(&t[i]);
        char what[32];
        snprintf(what, sizeof what, "type %d", i);
        describe(what, t[i]);
    }
    /* Packed forms of the types over a known buffer. */
    unsigned char buf[1024];
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    show_packed("vector", buf + 512, 2, t[1]);
    show_packed("indexed", buf + 512, 2, t[3]);
    show_packed("struct", buf + 512, 2, t[7]);
    show_packed("resized", buf + 512, 2, t[8]);
    show_packed("subarray", buf, 1, t[10]);
    show_packed("vector of structs", buf + 256, 1, t[13]);
    /* Unpack restores exactly the type map's bytes. */
    unsigned char packed[512], back[1024];
    memset(back, 0xee, sizeof back);
    int pos = 0;
    MPI_Pack(buf + 512, 2, t[8], packed, sizeof packed, &pos, MPI_COMM_WORLD);
    int upos = 0;
    MPI_Unpack(packed, pos, &upos, back + 512, 2, t[8], MPI_COMM_WORLD);
    int same = 0, untouched = 0;
    for (int i = 0; i < (int)sizeof buf; i++)
        same += back[i] == buf[i], untouched += back[i] == 0xee;
    out("unpack: position %d, %d bytes restored, %d untouched\n", upos, same, untouched);
    for (int i = 0; i < n; i++)
        MPI_Type_free(&t[i]);
    out("freed: %d\n", t[0] == MPI_DATATYPE_NULL);
}

/* external32: big-endian values. MPICH 4.0.2 crashes on external32 with a
 * derived struct type (signal 4 in MPI_Pack_external_size), so the native
 * comparison packs predefined types and a vector of them. */
static void external32(void)
{
    int i[4] = {0x01020304, -2, 7, 0x7f000001};
    double d = 1.5;
    short s[2] = {0x0a0b, -2};
    MPI_Datatype every_other;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    unsigned char buf[64];
    MPI_Aint pos = 0, esize;
    MPI_Pack_external_size("external32", 1, every_other, &esize);
    MPI_Pack_external("external32", i, 1, every_other, buf, sizeof buf, &pos);
    MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos);
    MPI_Pack_external("external32", s, 2, MPI_SHORT, buf, sizeof buf, &pos);
    long l[2] = {-5, 0x12345678}; /* 4 bytes each in external32 */
    MPI_Pack_external("external32", l, 2, MPI_LONG, buf, sizeof buf, &pos);
    out("external32: size %ld packed %ld:", (long)esize, (long)pos);
    for (int k = 0; k < pos; k++)
        out("%02x", buf[k]);
    int wi[4] = {0};
    double wd = 0;
    short ws[2] = {0};
    MPI_Aint upos = 0;
    MPI_Unpack_external("external32", buf, pos, &upos, wi, 1, every_other);
    MPI_Unpack_external("external32", buf, pos, &upos, &wd, 1, MPI_DOUBLE);
    MPI_Unpack_external("external32", buf, pos, &upos, ws, 2, MPI_SHORT);
    long wl[2] = {0};
    MPI_Unpack_external("external32", buf, pos, &upos, wl, 2, MPI_LONG);
    out(" back: %x %d %d %d %g %x %d %ld %lx\n", wi[0], wi[1], wi[2], wi[3], wd, ws[0], ws[1],
        wl[0], wl[1]);
    MPI_Type_free(&every_other);
}

/* A column halo: rank 0 sends column 1 of a 6x5 matrix to rank 1, which
 * receives it into column 4 of its own with the same vector type. */
static void halo(void)
{
    double m[6][5];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 5; j++)
            m[i][j] = rank * 100 + i * 10 + j;
    MPI_Datatype col;
    MPI_Type_vector(6, 1, 5, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    if (rank == 0) MPI_Send(&m[0][1], 1, col, 1, 1, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Status st;
        MPI_Recv(&m[0][4], 1, col, 0, 1, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, col, &count);
        out("halo: count %d column 4:", count);
        for (int i = 0; i < 6; i++)
            out(" %g", m[i][4]);
        out(" column 3: %g\n", m[2][3]);
    }
    MPI_Type_free(&col);
}

/* A struct of absolute addresses sent from MPI_BOTTOM. */
static void bottom(void)
{
    static int a[3];
    static double b;
    static char c[5];
    MPI_Aint dis[3];
    MPI_Get_address(a, &dis[0]);
    MPI_Get_address(&b, &dis[1]);
    MPI_Get_address(c, &dis[2]);
    out("aint: %d %d\n", MPI_Aint_diff(dis[1], dis[0]) == (char *)&b - (char *)a,
        MPI_Aint_add(dis[0], 8) == dis[0] + 8);
    int bl[3] = {3, 1, 5};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st;
    MPI_Type_create_struct(3, bl, dis, types, &st);
    MPI_Type_commit(&st);
    if (rank == 0) {
        a[0] = 7, a[1] = 8, a[2] = 9, b = 2.25;
        memcpy(c, "abcd", 5);
        MPI_Send(MPI_BOTTOM, 1, st, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(MPI_BOTTOM, 1, st, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        out("bottom: %d %d %d %g %s\n", a[0], a[1], a[2], b, c);
    }
    MPI_Type_free(&st);
}

/* The program frees a derived type while a receive on it is pending. */
static void freed_while_pending(void)
{
    int data[12];
    for (int i = 0; i < 12; i++)
        data[i] = rank == 0 ? i + 1 : -1;
    MPI_Datatype every_third;
    MPI_Type_vector(4, 1, 3, MPI_INT, &every_third);
    MPI_Type_commit(&every_third);
    if (rank == 1) {
        MPI_Request r;
        MPI_Irecv(data, 1, every_third, 0, 3, MPI_COMM_WORLD, &r);
        MPI_Type_free(&every_third);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        out("pending:");
        for (int i = 0; i < 12; i++)
            out(" %d", data[i]);
        out("\n");
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) MPI_Send(data, 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
        MPI_Type_free(&every_third);
    }
}

/* Each rank's 3 values become one column of the root's 3 x size matrix. */
static void gather_columns(void)
{
    int mine[3] = {rank, rank + 10, rank + 20}, m[3][8];
    memset(m, 0, sizeof m);
    MPI_Datatype col, col1;
    MPI_Type_vector(3, 1, size, MPI_INT, &col);
    MPI_Type_create_resized(col, 0, sizeof(int), &col1);
    MPI_Type_commit(&col1);
    MPI_Gather(mine, 3, MPI_INT, m, 1, col1, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        out("gather:");
        for (int i = 0; i < 3 * size; i++)
            out(" %d", ((int *)m)[i]);
        out("\n");
    }
    MPI_Type_free(&col);
    MPI_Type_free(&col1);
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_get_name(v, name, &len);
    out("name: '%s' %d", name, len);
    MPI_Type_set_name(v, "halo column");
    MPI_Type_get_name(v, name, &len);
    out(" '%s' %d", name, len);
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    out(" '%s'", name);
    MPI_Type_get_name(MPI_LONG_LONG, name, &len);
    out(" '%s'", name);
    MPI_Type_get_name(MPI_DOUBLE_INT, name, &len);
    out(" '%s'\n", name);
    MPI_Type_free(&v);
    MPI_Datatype m;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
    MPI_Type_get_name(m, name, &len);
    out("match_size: %s", name);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m);
    MPI_Type_get_name(m, name, &len);
    out(" %s", name);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m);
    MPI_Type_get_name(m, name, &len);
    out(" %s\n", name);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype i = MPI_INT;
    out("errors: free MPI_INT %d, vector of null %d, get_contents of MPI_INT %d\n",
        error_class_of(MPI_Type_free(&i)),
        error_class_of(MPI_Type_vector(1, 1, 1, MPI_DATATYPE_NULL, &v)),
        error_class_of(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL)));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Get_elements of t for messages of every few bytes up to one element
 * of t, received with t (a partial element counts its whole basic ones). */
static void show_elements(const char *what, MPI_Datatype t, int step)
{
    static unsigned char raw[4096], got[8192];
    int size;
    MPI_Type_size(t, &size);
    out("%s elements:", what);
    for (int bytes = 0; bytes <= size; bytes += step) {
        MPI_Status st;
        MPI_Count n;
        MPI_Sendrecv(raw, bytes, MPI_BYTE, 0, 5, got, 1, t, 0, 5, MPI_COMM_SELF, &st);
        MPI_Get_elements_x(&st, t, &n);
        out(" %lld", (long long)n);
    }
    out("\n");
}

/* Distributed arrays: each rank's part of a few block/cyclic layouts. */
static void darrays(void)
{
    unsigned char buf[4096];
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = (unsigned char)(i * 13 + 5);
    int g2[2] = {10, 9}, d2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        a2[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p2[2] = {2, 2};
    int g1[1] = {17}, d1[1] = {MPI_DISTRIBUTE_CYCLIC}, a1[1] = {3}, p1[1] = {3};
    int g3[3] = {4, 5, 3},
        d3[3] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        a3[3] = {MPI_DISTRIBUTE_DFLT_DARG, 3, MPI_DISTRIBUTE_DFLT_DARG}, p3[3] = {1, 2, 2};
    for (int r = 0; r < 4; r++) {
        MPI_Datatype t;
        char what[48];
        for (int order = 0; order < 2; order++) {
            MPI_Type_create_darray(4, r, 2, g2, d2, a2, p2, order ? MPI_ORDER_FORTRAN : MPI_ORDER_C,
                                   MPI_INT, &t);
            MPI_Type_commit(&t);
            snprintf(what, sizeof what, "darray 2-D order %d rank %d", order, r);
            describe(what, t);
            show_packed(what, buf, 1, t);
            MPI_Type_free(&t);
        }
        MPI_Type_create_darray(4, r, 3, g3, d3, a3, p3, MPI_ORDER_C, MPI_SHORT, &t);
        MPI_Type_commit(&t);
        snprintf(what, sizeof what, "darray 3-D rank %d", r);
        describe(what, t);
        show_packed(what, buf, 1, t);
        show_elements(what, t, 3);
        MPI_Type_free(&t);
        if (r == 3) break;
        MPI_Type_create_darray(3, r, 1, g1, d1, a1, p1, MPI_ORDER_C, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        snprintf(what, sizeof what, "darray 1-D rank %d", r);
        describe(what, t);
        show_packed(what, buf, 1, t);
        MPI_Type_free(&t);
    }
}

/* The F90 types: the same handle for the same (p, r), the sized type's
 * size, the envelope recording (p, r). */
static void f90(void)
{
    int ps[][2] = {{6, MPI_UNDEFINED}, {7, 30}, {MPI_UNDEFINED, 300}, {15, 307}, {1, 1}};
    for (int i = 0; i < 5; i++) {
        MPI_Datatype t, t2, c;
        int sz, csz, ni, na, nt, comb, ints[2];
        MPI_Type_create_f90_real(ps[i][0], ps[i][1], &t);
        MPI_Type_create_f90_real(ps[i][0], ps[i][1], &t2);
        MPI_Type_size(t, &sz);
        MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
        MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL);
        MPI_Type_create_f90_complex(ps[i][0], ps[i][1], &c);
        MPI_Type_size(c, &csz);
        out("f90 real(%d,%d): size %d same %d envelope %d %d %d %d: %d %d complex size %d\n",
            ps[i][0], ps[i][1], sz, t == t2, ni, na, nt, comb, ints[0], ints[1], csz);
    }
    int rs[] = {2, 3, 9, 10, 18};
    for (int i = 0; i < 5; i++) {
        MPI_Datatype t;
        int sz, ni, na, nt, comb, r;
        MPI_Type_create_f90_integer(rs[i], &t);
        MPI_Type_size(t, &sz);
        MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
        MPI_Type_get_contents(t, 1, 0, 0, &r, NULL, NULL);
        out("f90 integer(%d): size %d envelope %d %d: %d\n", rs[i], sz, ni, comb, r);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        constructors();
        external32();
        names();
        f90();
        darrays();
        /* pair types are two basic elements each (MPICH's get_elements_pairtype;
         * MPICH 4.0.2 divides by zero for MPI_FLOAT_INT, and asserts on a part of MPI_2INT) */
        show_elements("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 4);
        show_elements("MPI_2INT", MPI_2INT, 8);
    }
    halo();
    bottom();
    freed_while_pending();
    gather_columns();
    out_flush();
    MPI_Finalize();
    return 0;
}
