/* Datatypes of every constructor, nested, with holes, negative
 * displacements, resized, subarray, darray, the large-count `_c` forms (two
 * beyond int): the types that tests/mpi/real_types.c and
 * tests/ckpt/ckpt_real_types.c commit, so that under MPCR_CHECK_REAL_TYPES
 * the proxy builds each as a real datatype and packs through it
 * (docs/datatypes.md, "Real datatypes in the proxy"). */
#ifndef TEST_REAL_TYPES_H
#define TEST_REAL_TYPES_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum {
    RT_BOUNDS = 1, /* MPICH and mpcr agree on its bounds: printed */
    RT_PACK = 2,   /* and on its packed bytes: a checksum printed (no long double padding) */
    RT_BOTTOM = 4, /* displacements are absolute addresses: packed from MPI_BOTTOM */
    RT_HUGE = 8,   /* gigabytes: never packed */
    RT_C = 16,     /* made by a `_c` constructor: MPI_Type_get_envelope_c only */
};

struct rt_type {
    char name[64];
    MPI_Datatype t;
    int flags;
};

/* Where RT_BOTTOM types lie. */
static struct {
    int a;
    double b[3];
    char c;
} rt_abs;

static int rt_n;

static void rt_add(struct rt_type *v, const char *name, MPI_Datatype t, int flags)
{
    snprintf(v[rt_n].name, sizeof v[rt_n].name, "%s", name);
    v[rt_n].t = t, v[rt_n].flags = flags;
    rt_n++;
}

/* Makes the types into v (room for 64), not committed; returns how many. */
static int rt_make(struct rt_type *v)
{
    const int P = RT_BOUNDS | RT_PACK;
    MPI_Datatype t, u, w, x;
    rt_n = 0;

    /* the plain constructors */
    MPI_Type_contiguous(5, MPI_SHORT, &t), rt_add(v, "contiguous", t, P);
    MPI_Type_vector(4, 2, 5, MPI_INT, &t), rt_add(v, "vector", t, P);
    MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t), rt_add(v, "vector negative stride", t, P);
    MPI_Type_create_hvector(3, 2, 20, MPI_FLOAT, &t), rt_add(v, "hvector", t, P);
    MPI_Type_create_hvector(2, 1, -13, MPI_INT, &t), rt_add(v, "hvector negative stride", t, P);
    {
        int len[4] = {2, 1, 3, 0}, disp[4] = {0, 5, 9, 2};
        MPI_Type_indexed(4, len, disp, MPI_INT, &t), rt_add(v, "indexed with holes", t, P);
        int ndisp[3] = {4, -3, 1}, nlen[3] = {1, 2, 1};
        MPI_Type_indexed(3, nlen, ndisp, MPI_DOUBLE, &t), rt_add(v, "indexed negative", t, P);
    }
    {
        int len[3] = {3, 1, 2};
        MPI_Aint disp[3] = {-24, 7, 40};
        MPI_Type_create_hindexed(3, len, disp, MPI_CHAR, &t), rt_add(v, "hindexed", t, P);
        int disp2[3] = {6, 0, 3};
        MPI_Type_create_indexed_block(3, 2, disp2, MPI_UNSIGNED, &t),
            rt_add(v, "indexed_block", t, P);
        MPI_Aint bdisp[4] = {-40, 0, 24, 9};
        MPI_Type_create_hindexed_block(4, 2, bdisp, MPI_SHORT, &t);
        rt_add(v, "hindexed_block negative", t, P);
    }
    /* nested: a struct of vectors, with holes */
    MPI_Type_vector(3, 2, 4, MPI_INT, &u);
    MPI_Type_create_hvector(2, 1, 48, MPI_DOUBLE, &w);
    {
        int len[3] = {2, 1, 3};
        MPI_Aint disp[3] = {0, 96, 160};
        MPI_Datatype ty[3] = {u, w, MPI_CHAR};
        MPI_Type_create_struct(3, len, disp, ty, &t), rt_add(v, "struct of vectors", t, P);
        MPI_Type_vector(2, 1, 3, t, &x), rt_add(v, "vector of struct of vectors", x, P);
        int ilen[2] = {1, 2}, idisp[2] = {3, 0};
        MPI_Type_indexed(2, ilen, idisp, x, &t), rt_add(v, "indexed of vector of struct", t, P);
    }
    MPI_Type_free(&u), MPI_Type_free(&w);
    /* resized: smaller, larger, negative lb; then repeated */
    MPI_Type_vector(2, 1, 3, MPI_INT, &u);
    MPI_Type_create_resized(u, -8, 40, &t), rt_add(v, "resized vector", t, P);
    MPI_Type_contiguous(3, t, &w), rt_add(v, "contiguous of resized", w, P);
    MPI_Type_create_resized(u, 0, 4, &t), rt_add(v, "resized overlapping", t, P);
    MPI_Type_free(&u);
    /* struct of mixed basic types (C layout), of pairs, of long doubles */
    {
        struct s {
            char c;
            double d;
            int i[3];
        } s;
        int len[3] = {1, 1, 3};
        MPI_Aint disp[3] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, i)};
        MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
        (void)s;
        MPI_Type_create_struct(3, len, disp, ty, &t), rt_add(v, "struct C layout", t, P);
        MPI_Type_contiguous(3, t, &u), rt_add(v, "contiguous of struct", u, P);
        MPI_Datatype pt[2] = {MPI_DOUBLE_INT, MPI_LONG_DOUBLE};
        MPI_Aint pd[2] = {0, 32};
        int pl[2] = {2, 1};
        MPI_Type_create_struct(2, pl, pd, pt, &t),
            rt_add(v, "struct of pair, long double", t, RT_BOUNDS);
        MPI_Type_vector(2, 1, 3, MPI_LONG_DOUBLE, &t),
            rt_add(v, "vector of long double", t, RT_BOUNDS);
        MPI_Datatype mt[3] = {MPI_LB, MPI_INT, MPI_UB};
        MPI_Aint md[3] = {-4, 0, 12};
        int ml[3] = {1, 2, 1};
        MPI_Type_create_struct(3, ml, md, mt, &t), rt_add(v, "struct with MPI_LB, MPI_UB", t, P);
        MPI_Type_contiguous(2, t, &u), rt_add(v, "contiguous of markers", u, P);
    }
    /* subarray, C and Fortran order */
    {
        int sizes[3] = {6, 5, 4}, subs[3] = {2, 3, 2}, starts[3] = {1, 1, 1};
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
        rt_add(v, "subarray C", t, P);
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
        rt_add(v, "subarray Fortran", t, P);
    }
    /* darray: every rank of a 2 x 2 grid, block x cyclic(2), and none x block */
    for (int r = 0; r < 4; r++) {
        int g[2] = {10, 9}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            a[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p[2] = {2, 2};
        char name[32];
        MPI_Type_create_darray(4, r, 2, g, d, a, p, MPI_ORDER_C, MPI_DOUBLE, &t);
        snprintf(name, sizeof name, "darray C rank %d", r), rt_add(v, name, t, P);
        int d2[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK}, p2[2] = {1, 4},
            a2[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
        MPI_Type_create_darray(4, r, 2, g, d2, a2, p2, MPI_ORDER_FORTRAN, MPI_INT, &t);
        snprintf(name, sizeof name, "darray Fortran rank %d", r), rt_add(v, name, t, P);
    }
    /* dup, F90, a struct at MPI_BOTTOM */
    MPI_Type_vector(2, 2, 3, MPI_FLOAT, &u);
    MPI_Type_dup(u, &t), rt_add(v, "dup of vector", t, P);
    MPI_Type_free(&u);
    MPI_Type_create_f90_real(10, MPI_UNDEFINED, &u);
    MPI_Type_vector(2, 1, 2, u, &t), rt_add(v, "vector of f90 real", t, P);
    {
        int len[3] = {1, 2, 1};
        MPI_Aint disp[3];
        MPI_Get_address(&rt_abs.a, &disp[0]);
        MPI_Get_address(&rt_abs.b[1], &disp[1]);
        MPI_Get_address(&rt_abs.c, &disp[2]);
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        MPI_Type_create_struct(3, len, disp, ty, &t),
            rt_add(v, "struct at MPI_BOTTOM", t, RT_BOUNDS | RT_BOTTOM);
    }
    /* empty */
    MPI_Type_contiguous(0, MPI_INT, &t), rt_add(v, "empty contiguous", t, P);
    /* the large-count constructors, counts within int */
    MPI_Type_contiguous_c(3, MPI_INT, &t), rt_add(v, "contiguous_c", t, P | RT_C);
    MPI_Type_vector_c(3, 2, -4, MPI_SHORT, &t), rt_add(v, "vector_c", t, P | RT_C);
    MPI_Type_create_hvector_c(2, 3, 32, MPI_INT, &t), rt_add(v, "hvector_c", t, P | RT_C);
    {
        MPI_Count len[3] = {1, 2, 1}, disp[3] = {5, -2, 9};
        MPI_Type_indexed_c(3, len, disp, MPI_INT, &t), rt_add(v, "indexed_c", t, P | RT_C);
        MPI_Count bd[3] = {-16, 8, 30};
        MPI_Type_create_hindexed_c(3, len, bd, MPI_CHAR, &t), rt_add(v, "hindexed_c", t, P | RT_C);
        MPI_Type_create_indexed_block_c(3, 2, disp, MPI_SHORT, &t);
        rt_add(v, "indexed_block_c", t, P | RT_C);
        MPI_Type_create_hindexed_block_c(3, 1, bd, MPI_DOUBLE, &t);
        rt_add(v, "hindexed_block_c", t, P | RT_C);
        MPI_Datatype ty[3] = {MPI_INT, MPI_CHAR, MPI_INT};
        MPI_Count sd[3] = {0, 4, 8};
        MPI_Type_create_struct_c(3, len, sd, ty, &t), rt_add(v, "struct_c", t, P | RT_C);
        MPI_Count sz[2] = {7, 6}, sub[2] = {3, 2}, st[2] = {2, 4};
        MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_FLOAT, &t);
        rt_add(v, "subarray_c", t, P | RT_C);
        MPI_Type_create_resized_c(MPI_INT, -4, 12, &t), rt_add(v, "resized_c", t, P | RT_C);
        MPI_Count g[1] = {11};
        int dd[1] = {MPI_DISTRIBUTE_CYCLIC}, da[1] = {3}, dp[1] = {2};
        MPI_Type_create_darray_c(2, 1, 1, g, dd, da, dp, MPI_ORDER_C, MPI_INT, &t);
        rt_add(v, "darray_c", t, P | RT_C);
    }
    /* the large-count constructors beyond int: built by MPICH 4, refused by
     * Open MPI 4.1 (no `_c` constructors) with a message */
    MPI_Type_vector_c(1, 3000000000, 1, MPI_BYTE, &t),
        rt_add(v, "vector_c 3e9 bytes", t, RT_BOUNDS | RT_HUGE | RT_C);
    MPI_Type_contiguous(0, MPI_INT, &u);
    MPI_Type_contiguous_c(5000000000, u, &t),
        rt_add(v, "contiguous_c 5e9 empty", t, RT_BOUNDS | RT_C);
    MPI_Type_free(&u);
    return rt_n;
}

/* FNV-1a of n bytes. */
static unsigned long rt_hash(const unsigned char *p, size_t n)
{
    unsigned long h = 1469598103934665603ul;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ul;
    return h;
}

/* One line about v: its bounds and the checksum of `count` elements packed
 * from a buffer of a known pattern (RT_PACK); into line. */
static void rt_describe(const struct rt_type *v, int count, char *line, size_t room)
{
    MPI_Count size, lb, extent, tlb, textent;
    MPI_Type_size_c(v->t, &size);
    MPI_Type_get_extent_c(v->t, &lb, &extent);
    MPI_Type_get_true_extent_c(v->t, &tlb, &textent);
    int n = snprintf(line, room, "%s:", v->name);
    if (v->flags & RT_BOUNDS)
        n += snprintf(line + n, room - (size_t)n,
                      " size %ld lb %ld extent %ld true lb %ld true extent %ld", (long)size,
                      (long)(v->flags & RT_BOTTOM ? 0 : lb), (long)extent,
                      (long)(v->flags & RT_BOTTOM ? 0 : tlb), (long)textent);
    if ((v->flags & RT_PACK) && size > 0) {
        /* the data of count elements, from true lb to the last true ub */
        MPI_Count step = (count - 1) * extent;
        MPI_Count lo = tlb + (step < 0 ? step : 0), hi = tlb + textent + (step > 0 ? step : 0);
        static unsigned char buf[1 << 16], out[1 << 16];
        const void *base = MPI_BOTTOM;
        if (v->flags & RT_BOTTOM) {
            for (size_t i = 0; i < sizeof rt_abs; i++)
                ((unsigned char *)&rt_abs)[i] = (unsigned char)(i * 7 + 3);
            count = 1;
        } else {
            if (hi - lo > (MPI_Count)sizeof buf) return;
            for (MPI_Count i = 0; i < hi - lo; i++)
                buf[i] = (unsigned char)(i * 7 + 3);
            base = buf - lo;
        }
        int pos = 0;
        MPI_Pack(base, count, v->t, out, sizeof out, &pos, MPI_COMM_SELF);
        snprintf(line + n, room - (size_t)n, " packed %d hash %lx", pos, rt_hash(out, (size_t)pos));
    }
}

#endif
