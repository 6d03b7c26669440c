/* Unit tests of src/lib/datatype/typemap: bounds of every constructor against
 * values worked out by hand from MPI 4.0 section 5.1, envelopes and
 * references, and pack/unpack against a reference packer that walks the
 * constructors' arguments element by element, on random nested types, in
 * random pieces and truncated.
 *
 * `unit_typemap bench` measures pack against memcpy and hand-written loops
 * instead (docs/datatypes.md); the test itself never times anything. */
#include "datatype/typemap.h"
#include "unit.h"

#include <errno.h>
#include <stddef.h>
#include <time.h>

static struct mpcr_type *t_char, *t_short, *t_int, *t_double, *t_ldouble, *t_lb, *t_ub;

static struct mpcr_type *basic(int64_t size, int64_t align)
{
    struct mpcr_type *t;
    ASSERT_EQ(mpcr_type_basic(size, align, &t), 0);
    return t;
}

static void setup(void)
{
    t_char = basic(1, 1), t_short = basic(2, 2), t_int = basic(4, 4), t_double = basic(8, 8);
    t_ldouble = basic(16, 16);
    ASSERT_EQ(mpcr_type_marker(false, &t_lb), 0);
    ASSERT_EQ(mpcr_type_marker(true, &t_ub), 0);
}

/* size, lb, ub (so extent), true_lb, true_ub */
#define ASSERT_BOUNDS(t, sz, l, u, tl, tu)                                                         \
    do {                                                                                           \
        ASSERT_EQ((t)->size, sz);                                                                  \
        ASSERT_EQ((t)->lb, l);                                                                     \
        ASSERT_EQ((t)->ub, u);                                                                     \
        ASSERT_EQ((t)->extent, (u) - (l));                                                         \
        ASSERT_EQ((t)->true_lb, tl);                                                               \
        ASSERT_EQ((t)->true_ub, tu);                                                               \
    } while (0)

/* A struct of up to 5 blocks, each one copy: (type, displacement) pairs. */
static struct mpcr_type *struct_of(int n, struct mpcr_type *const types[], const int64_t displs[])
{
    const int64_t ones[] = {1, 1, 1, 1, 1};
    struct mpcr_type *t;
    ASSERT_EQ(mpcr_type_struct(n, ones, displs, types, &t), 0);
    return t;
}

/* ---- the reference: the type map as a list of blocks, from the envelope ---- */

struct flat {
    int64_t n, cap;
    struct {
        int64_t addr, len;
    } * v;
};

static void flat_add(struct flat *f, int64_t addr, int64_t len)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->v = realloc(f->v, (size_t)f->cap * sizeof *f->v);
        ASSERT_TRUE(f->v);
    }
    f->v[f->n].addr = addr, f->v[f->n].len = len;
    f->n++;
}

static void walk(const struct mpcr_type *t, int64_t origin, struct flat *f);

/* bl copies of t one extent apart from origin + disp. */
static void walk_block(const struct mpcr_type *t, int64_t origin, int64_t disp, int64_t bl,
                       struct flat *f)
{
    for (int64_t i = 0; i < bl; i++)
        walk(t, origin + disp + i * t->extent, f);
}

/* Every basic element of one element of t at origin, in type-map order, as
 * MPI 4.0 section 5.1.2 defines each constructor's type map. */
static void walk(const struct mpcr_type *t, int64_t origin, struct flat *f)
{
    const int64_t *in = t->ints, *ad = t->addrs;
    struct mpcr_type *old = t->ntypes ? t->types[0] : NULL;
    int64_t ext = old ? old->extent : 0, count = t->nints ? in[0] : 0;
    switch (t->combiner) {
    case MPCR_COMBINER_NAMED: /* the basic types and markers of this test */
        if (t->size) flat_add(f, origin, t->size);
        break;
    case MPCR_COMBINER_DUP:
    case MPCR_COMBINER_RESIZED:
        walk(old, origin, f);
        break;
    case MPCR_COMBINER_CONTIGUOUS:
        walk_block(old, origin, 0, count, f);
        break;
    case MPCR_COMBINER_VECTOR:
        for (int64_t j = 0; j < count; j++)
            walk_block(old, origin, j * in[2] * ext, in[1], f);
        break;
    case MPCR_COMBINER_HVECTOR:
        for (int64_t j = 0; j < count; j++)
            walk_block(old, origin, j * ad[0], in[1], f);
        break;
    case MPCR_COMBINER_INDEXED:
        for (int64_t j = 0; j < count; j++)
            walk_block(old, origin, in[1 + count + j] * ext, in[1 + j], f);
        break;
    case MPCR_COMBINER_HINDEXED:
        for (int64_t j = 0; j < count; j++)
            walk_block(old, origin, ad[j], in[1 + j], f);
        break;
    case MPCR_COMBINER_INDEXED_BLOCK:
        for (int64_t j = 0; j < count; j++)
            walk_block(old, origin, in[2 + j] * ext, in[1], f);
        break;
    case MPCR_COMBINER_HINDEXED_BLOCK:
        for (int64_t j = 0; j < count; j++)
            walk_block(old, origin, ad[j], in[1], f);
        break;
    case MPCR_COMBINER_STRUCT:
        for (int64_t j = 0; j < count; j++)
            walk_block(t->types[j], origin, ad[j], in[1 + j], f);
        break;
    default:
        UNIT_FAIL("combiner %d not walked", (int)t->combiner);
    }
}

/* The blocks of count elements at base. */
static struct flat flatten(const struct mpcr_type *t, int64_t count, int64_t base)
{
    struct flat f = {0};
    for (int64_t k = 0; k < count; k++)
        walk(t, base + k * t->extent, &f);
    return f;
}

/* Reference pack (unpack false) or unpack of the first max bytes. */
static void ref_copy(const struct flat *f, char *buf, int64_t max, bool unpack)
{
    for (int64_t i = 0; i < f->n && max > 0; i++) {
        int64_t n = f->v[i].len < max ? f->v[i].len : max;
        char *mem = (char *)(uintptr_t)f->v[i].addr;
        if (unpack)
            memcpy(mem, buf, (size_t)n);
        else
            memcpy(buf, mem, (size_t)n);
        buf += n, max -= n;
    }
}

/* ---- bounds by hand ---- */

static void test_basic_and_contiguous(void)
{
    ASSERT_BOUNDS(t_int, 4, 0, 4, 0, 4);
    ASSERT_EQ(t_int->combiner, MPCR_COMBINER_NAMED);
    ASSERT_BOUNDS(t_lb, 0, 0, 0, 0, 0);
    ASSERT_EQ(mpcr_type_basic(3, 3, &(struct mpcr_type *){0}), -EINVAL);

    struct mpcr_type *t;
    ASSERT_EQ(mpcr_type_contiguous(3, t_int, &t), 0);
    ASSERT_BOUNDS(t, 12, 0, 12, 0, 12);
    ASSERT_TRUE(mpcr_type_is_contiguous(t, 5));
    ASSERT_EQ(t->blocks, 1);
    mpcr_type_unref(t);
    ASSERT_EQ(mpcr_type_contiguous(0, t_int, &t), 0); /* empty: all zero */
    ASSERT_BOUNDS(t, 0, 0, 0, 0, 0);
    mpcr_type_unref(t);
    ASSERT_EQ(mpcr_type_contiguous(-1, t_int, &t), -EINVAL);
    ASSERT_EQ(mpcr_type_contiguous(INT64_MAX / 2, t_int, &t), -EOVERFLOW);
}

static void test_vectors(void)
{
    struct mpcr_type *t, *s, *u;
    /* 3 blocks of 2 ints, 4 ints apart: data at 0-8, 16-24, 32-40. */
    ASSERT_EQ(mpcr_type_vector(3, 2, 4, t_int, &t), 0);
    ASSERT_BOUNDS(t, 24, 0, 40, 0, 40);
    ASSERT_TRUE(!mpcr_type_is_contiguous(t, 1));
    ASSERT_EQ(t->blocks, 3);
    ASSERT_EQ(t->combiner, MPCR_COMBINER_VECTOR);
    ASSERT_EQ(t->nints, 3);
    ASSERT_EQ(t->ints[2], 4);
    ASSERT_EQ(t->ntypes, 1);
    ASSERT_TRUE(t->types[0] == t_int);
    mpcr_type_unref(t);
    /* Negative stride: doubles at 0, -16, -32 (packed in that order). */
    ASSERT_EQ(mpcr_type_vector(3, 1, -2, t_double, &t), 0);
    ASSERT_BOUNDS(t, 24, -32, 8, -32, 8);
    double d[5] = {1, 2, 3, 4, 5}, out[3];
    ASSERT_EQ(mpcr_type_pack(out, &d[4], 1, t, 0, 24), 24);
    ASSERT_TRUE(out[0] == 5 && out[1] == 3 && out[2] == 1);
    mpcr_type_unref(t);
    /* hvector stride in bytes, of a padded struct {double; char} (extent
     * 16): copies at 0 and 5, each bounded by its lb and ub. */
    s = struct_of(2, (struct mpcr_type *[]){t_double, t_char}, (int64_t[]){0, 8});
    ASSERT_BOUNDS(s, 9, 0, 16, 0, 9);
    ASSERT_EQ(mpcr_type_hvector(2, 1, 5, s, &t), 0);
    ASSERT_BOUNDS(t, 18, 0, 21, 0, 14);
    ASSERT_EQ(t->combiner, MPCR_COMBINER_HVECTOR);
    ASSERT_EQ(t->naddrs, 1);
    ASSERT_EQ(t->addrs[0], 5);
    mpcr_type_unref(t);
    /* Nested vector of struct: 2 blocks of one struct, 3 extents apart. */
    ASSERT_EQ(mpcr_type_vector(2, 1, 3, s, &t), 0);
    ASSERT_BOUNDS(t, 18, 0, 64, 0, 57);
    /* ... of which a vector again, with negative stride. */
    ASSERT_EQ(mpcr_type_hvector(2, 2, -200, t, &u), 0);
    ASSERT_BOUNDS(u, 72, -200, 128, -200, 121);
    mpcr_type_unref(u);
    mpcr_type_unref(t);
    mpcr_type_unref(s);
}

static void test_indexed(void)
{
    struct mpcr_type *t;
    /* ints at -8..0 (2 of them) and 24..28. */
    ASSERT_EQ(mpcr_type_hindexed(2, (int64_t[]){2, 1}, (int64_t[]){-8, 24}, t_int, &t), 0);
    ASSERT_BOUNDS(t, 12, -8, 28, -8, 28);
    ASSERT_EQ(t->nints, 3);
    ASSERT_EQ(t->naddrs, 2);
    mpcr_type_unref(t);
    /* The same in extents, a zero-length block ignored entirely. */
    ASSERT_EQ(mpcr_type_indexed(3, (int64_t[]){2, 0, 1}, (int64_t[]){-2, 100, 6}, t_int, &t), 0);
    ASSERT_BOUNDS(t, 12, -8, 28, -8, 28);
    ASSERT_EQ(t->nints, 7); /* count, 3 lengths, 3 displacements */
    ASSERT_EQ(t->ints[6], 6);
    mpcr_type_unref(t);
    /* Evenly spaced blocks compile to one strided item. */
    ASSERT_EQ(mpcr_type_indexed_block(4, 1, (int64_t[]){0, 3, 6, 9}, t_double, &t), 0);
    ASSERT_BOUNDS(t, 32, 0, 80, 0, 80);
    ASSERT_EQ(t->blocks, 4);
    ASSERT_EQ(t->nints, 6);
    mpcr_type_unref(t);
    ASSERT_EQ(mpcr_type_hindexed_block(2, 3, (int64_t[]){10, 0}, t_char, &t), 0);
    ASSERT_BOUNDS(t, 6, 0, 13, 0, 13);
    ASSERT_EQ(t->nints, 2);
    mpcr_type_unref(t);
    ASSERT_EQ(mpcr_type_hindexed(1, (int64_t[]){-1}, (int64_t[]){0}, t_int, &t), -EINVAL);
}

static void test_structs(void)
{
    struct mpcr_type *t;
    /* Padding (epsilon): the extent rounds up to the strictest alignment. */
    t = struct_of(2, (struct mpcr_type *[]){t_char, t_double}, (int64_t[]){0, 8});
    ASSERT_BOUNDS(t, 9, 0, 16, 0, 16);
    ASSERT_EQ(t->align, 8);
    mpcr_type_unref(t);
    t = struct_of(2, (struct mpcr_type *[]){t_char, t_short}, (int64_t[]){0, 2});
    ASSERT_BOUNDS(t, 3, 0, 4, 0, 4);
    mpcr_type_unref(t);
    t = struct_of(2, (struct mpcr_type *[]){t_int, t_char}, (int64_t[]){-4, 2});
    ASSERT_BOUNDS(t, 5, -4, 4, -4, 3); /* 7 bytes rounded to 8 */
    mpcr_type_unref(t);
    /* Packed in type-map order, not address order. */
    t = struct_of(2, (struct mpcr_type *[]){t_int, t_int}, (int64_t[]){4, 0});
    ASSERT_BOUNDS(t, 8, 0, 8, 0, 8);
    ASSERT_TRUE(!mpcr_type_is_contiguous(t, 1));
    int v[2] = {1, 2}, p[2];
    ASSERT_EQ(mpcr_type_pack(p, v, 1, t, 0, 8), 8);
    ASSERT_TRUE(p[0] == 2 && p[1] == 1);
    mpcr_type_unref(t);
    /* The C layouts of the MINLOC/MAXLOC pairs. */
    struct long_double_int {
        long double a;
        int b;
    };
    ASSERT_EQ(mpcr_type_pair(t_ldouble, t_int, offsetof(struct long_double_int, b), &t), 0);
    ASSERT_EQ(t->size, 20);
    ASSERT_EQ(t->extent, sizeof(struct long_double_int));
    ASSERT_EQ(t->combiner, MPCR_COMBINER_NAMED);
    mpcr_type_unref(t);
    struct short_int {
        short a;
        int b;
    } si[2] = {{1, 2}, {3, 4}};
    ASSERT_EQ(mpcr_type_pair(t_short, t_int, offsetof(struct short_int, b), &t), 0);
    ASSERT_BOUNDS(t, 6, 0, 8, 0, 8);
    char packed[12];
    ASSERT_EQ(mpcr_type_pack(packed, si, 2, t, 0, 12), 12);
    short s;
    int i;
    memcpy(&s, packed + 6, 2), memcpy(&i, packed + 8, 4);
    ASSERT_TRUE(s == 3 && i == 4);
    mpcr_type_unref(t);
}

static void test_markers(void)
{
    struct mpcr_type *t, *c, *u;
    /* Explicit bounds; the lowest lb and highest ub marker win. */
    t = struct_of(5, (struct mpcr_type *[]){t_lb, t_lb, t_int, t_ub, t_ub},
                  (int64_t[]){-4, -8, 0, 12, 4});
    ASSERT_BOUNDS(t, 4, -8, 12, 0, 4);
    ASSERT_EQ(t->lb_kind, MPCR_BOUND_MARKER);
    ASSERT_EQ(t->ub_kind, MPCR_BOUND_MARKER);
    /* Sticky through contiguous: data at 0 and 20, extent 20 each. */
    ASSERT_EQ(mpcr_type_contiguous(2, t, &c), 0);
    ASSERT_BOUNDS(c, 8, -8, 32, 0, 24);
    ASSERT_EQ(c->lb_kind, MPCR_BOUND_MARKER);
    /* Sticky in a struct: the markers decide even with data outside them. */
    u = struct_of(2, (struct mpcr_type *[]){t_char, t}, (int64_t[]){0, 100});
    ASSERT_BOUNDS(u, 5, 92, 112, 0, 104);
    mpcr_type_unref(u);
    mpcr_type_unref(c);
    mpcr_type_unref(t);
    /* Only an lb marker: ub is the data's, padded from the marker. */
    t = struct_of(3, (struct mpcr_type *[]){t_lb, t_double, t_char}, (int64_t[]){-4, 0, 8});
    ASSERT_BOUNDS(t, 9, -4, 12, 0, 9);
    ASSERT_EQ(t->ub_kind, MPCR_BOUND_NATURAL);
    mpcr_type_unref(t);
    /* MPI 4.0 example 5.6: resized(int, -3, 9), then contiguous(2). */
    ASSERT_EQ(mpcr_type_resized(t_int, -3, 9, &t), 0);
    ASSERT_BOUNDS(t, 4, -3, 6, 0, 4);
    ASSERT_EQ(t->naddrs, 2);
    ASSERT_EQ(t->addrs[1], 9);
    ASSERT_EQ(mpcr_type_contiguous(2, t, &c), 0);
    ASSERT_BOUNDS(c, 8, -3, 15, 0, 13);
    mpcr_type_unref(c);
    /* A resized child's markers bound a struct, no padding. */
    ASSERT_EQ(mpcr_type_resized(t_int, 0, 6, &u), 0);
    c = struct_of(2, (struct mpcr_type *[]){u, t_char}, (int64_t[]){0, 6});
    ASSERT_BOUNDS(c, 5, 0, 6, 0, 7);
    mpcr_type_unref(c);
    mpcr_type_unref(u);
    /* dup keeps everything. */
    ASSERT_EQ(mpcr_type_dup(t, &u), 0);
    ASSERT_BOUNDS(u, 4, -3, 6, 0, 4);
    ASSERT_EQ(u->combiner, MPCR_COMBINER_DUP);
    ASSERT_TRUE(u->types[0] == t);
    mpcr_type_unref(u);
    mpcr_type_unref(t);
}

/* MPI_BOTTOM: displacements are addresses, the buffer is 0. */
static void test_absolute(void)
{
    static double a = 1.5;
    static int b[3] = {7, 8, 9};
    struct mpcr_type *t;
    int64_t addr[2] = {(int64_t)(uintptr_t)&a, (int64_t)(uintptr_t)&b[1]};
    t = struct_of(2, (struct mpcr_type *[]){t_double, t_int}, addr);
    ASSERT_EQ(t->true_lb, (int64_t)(uintptr_t)(addr[0] < addr[1] ? (void *)&a : (void *)&b[1]));
    char packed[12];
    ASSERT_EQ(mpcr_type_pack(packed, NULL, 1, t, 0, 12), 12);
    double x;
    int y;
    memcpy(&x, packed, 8), memcpy(&y, packed + 8, 4);
    ASSERT_TRUE(x == 1.5 && y == 8);
    y = 42;
    memcpy(packed + 8, &y, 4);
    ASSERT_EQ(mpcr_type_unpack(NULL, packed + 8, 1, t, 8, 4), 4); /* bytes 8..12 */
    ASSERT_EQ(b[1], 42);
    mpcr_type_unref(t);
}

/* A derived type keeps its old types alive after their creator lets go. */
static void test_references(void)
{
    struct mpcr_type *old, *t;
    ASSERT_EQ(mpcr_type_vector(2, 1, 2, t_int, &old), 0);
    ASSERT_EQ(mpcr_type_contiguous(3, old, &t), 0);
    ASSERT_EQ(old->refs, 2);
    mpcr_type_unref(old); /* what MPI_Type_free does */
    ASSERT_EQ(t->types[0]->refs, 1);
    int v[12], p[6];
    for (int i = 0; i < 12; i++)
        v[i] = i;
    ASSERT_EQ(mpcr_type_pack(p, v, 1, t, 0, 24), 24);
    ASSERT_TRUE(p[0] == 0 && p[1] == 2 && p[2] == 3 && p[5] == 8);
    int ints_before = t_int->refs;
    mpcr_type_unref(t);
    ASSERT_EQ(t_int->refs, ints_before - 1);
    /* set_envelope swaps the references it holds. */
    ASSERT_EQ(mpcr_type_contiguous(2, t_int, &t), 0);
    ASSERT_EQ(mpcr_type_set_envelope(t, MPCR_COMBINER_SUBARRAY, 2, (int64_t[]){5, 6}, 0, NULL, 1,
                                     &t_double),
              0);
    ASSERT_EQ(t_int->refs, ints_before - 1);
    ASSERT_EQ(t->ints[1], 6);
    ASSERT_TRUE(t->types[0] == t_double);
    mpcr_type_unref(t);
}

/* ---- random types against the reference ---- */

static uint64_t rng = 88172645463325252ull;
static int64_t rnd(int64_t n) /* 0 .. n-1 */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}
static int64_t rnd_in(int64_t lo, int64_t hi)
{
    return lo + rnd(hi - lo + 1);
}

static struct mpcr_type *random_type(int depth);

/* A count: mostly small, sometimes past INLINE_ITEMS, sometimes 0. */
static int64_t rnd_count(void)
{
    return rnd(8) ? rnd_in(1, 3) : rnd(2) ? 0 : rnd_in(17, 40);
}

static struct mpcr_type *random_derived(int depth)
{
    struct mpcr_type *old = random_type(depth - 1), *t = NULL, *types[4];
    int64_t n = rnd_count(), bl[40], disp[40], err = 0;
    for (int64_t j = 0; j < 40; j++)
        bl[j] = rnd_in(0, 3), disp[j] = rnd_in(-6, 6);
    int64_t bytes[40];
    for (int64_t j = 0; j < 40; j++)
        bytes[j] = rnd_in(-60, 60);
    switch (rnd(10)) {
    case 0:
        err = mpcr_type_contiguous(rnd_count(), old, &t);
        break;
    case 1:
        err = mpcr_type_vector(rnd_count(), rnd_in(0, 3), rnd_in(-4, 4), old, &t);
        break;
    case 2:
        err = mpcr_type_hvector(rnd_count(), rnd_in(0, 3), rnd_in(-60, 60), old, &t);
        break;
    case 3:
        err = mpcr_type_indexed(n, bl, disp, old, &t);
        break;
    case 4:
        err = mpcr_type_hindexed(n, bl, bytes, old, &t);
        break;
    case 5:
        err = mpcr_type_indexed_block(rnd_count(), rnd_in(0, 3), disp, old, &t);
        break;
    case 6:
        err = mpcr_type_hindexed_block(rnd_count(), rnd_in(0, 3), bytes, old, &t);
        break;
    case 7:
        err = mpcr_type_resized(old, rnd_in(-20, 20), rnd_in(0, 40), &t);
        break;
    case 8:
        err = mpcr_type_dup(old, &t);
        break;
    default:
        n = rnd_in(1, 4);
        types[0] = old;
        for (int64_t j = 1; j < n; j++)
            types[j] = rnd(5) ? random_type(depth - 1) : rnd(2) ? t_lb : t_ub;
        for (int64_t j = 1; j < n; j++)
            if (types[j] == t_lb || types[j] == t_ub) mpcr_type_ref(types[j]);
        err = mpcr_type_struct(n, bl, bytes, types, &t);
        for (int64_t j = 1; j < n; j++)
            mpcr_type_unref(types[j]);
    }
    ASSERT_EQ(err, 0);
    mpcr_type_unref(old); /* t holds it now */
    return t;
}

static struct mpcr_type *random_type(int depth)
{
    if (depth == 0 || !rnd(5)) {
        struct mpcr_type *leaves[] = {t_char, t_short, t_int, t_double, t_ldouble};
        struct mpcr_type *t = leaves[rnd(5)];
        mpcr_type_ref(t);
        return t;
    }
    return random_derived(depth);
}

/* Contiguous runs of a block list (adjacent blocks in packed order). */
static int64_t runs(const struct flat *f)
{
    int64_t r = 0;
    for (int64_t i = 0; i < f->n; i++)
        if (!i || f->v[i].addr != f->v[i - 1].addr + f->v[i - 1].len) r++;
    return r;
}

/* Prints how t was made, to show what a failing random type was. */
static void describe(const struct mpcr_type *t, int depth)
{
    fprintf(stderr, "%*scombiner %d size %" PRId64 " lb %" PRId64 " ub %" PRId64 " ints", 2 * depth,
            "", (int)t->combiner, t->size, t->lb, t->ub);
    for (int64_t i = 0; i < t->nints; i++)
        fprintf(stderr, " %" PRId64, t->ints[i]);
    fprintf(stderr, " addrs");
    for (int64_t i = 0; i < t->naddrs; i++)
        fprintf(stderr, " %" PRId64, t->addrs[i]);
    fprintf(stderr, "\n");
    for (int64_t i = 0; i < t->ntypes; i++)
        describe(t->types[i], depth + 1);
}

/* Equal bytes, or the type described and the test failed. */
#define ASSERT_SAME(t, a, b, n)                                                                    \
    do {                                                                                           \
        if (memcmp((a), (b), (size_t)(n))) {                                                       \
            describe(t, 0);                                                                        \
            ASSERT_MEM_EQ(a, b, n);                                                                \
        }                                                                                          \
    } while (0)

/* Packs and unpacks count elements of t every way, against the reference. */
static void check_copies(const struct mpcr_type *t, int64_t count)
{
    int64_t total = count * t->size;
    /* The memory count elements touch, by the reference; its true bounds. */
    struct flat f = flatten(t, count, 0);
    int64_t lo = 0, hi = 0;
    for (int64_t i = 0; i < f.n; i++) {
        if (!i || f.v[i].addr < lo) lo = f.v[i].addr;
        if (!i || f.v[i].addr + f.v[i].len > hi) hi = f.v[i].addr + f.v[i].len;
    }
    if (count == 1) {
        ASSERT_EQ(t->true_lb, lo);
        ASSERT_EQ(t->true_ub, hi);
        ASSERT_GE(t->blocks, runs(&f));
        if (mpcr_type_is_contiguous(t, 1)) ASSERT_TRUE(runs(&f) <= 1);
    }
    free(f.v);
    int64_t span = hi - lo + 1;
    char *mem = malloc((size_t)span), *mem2 = malloc((size_t)span), *mem3 = malloc((size_t)span);
    char *want = malloc((size_t)total + 1), *got = malloc((size_t)total + 1);
    ASSERT_TRUE(mem && mem2 && mem3 && want && got);
    char *base = mem - lo, *base2 = mem2 - lo, *base3 = mem3 - lo;
    for (int64_t i = 0; i < span; i++)
        mem[i] = (char)rnd(256);
    f = flatten(t, count, (int64_t)(uintptr_t)base);
    if (count > 1 && mpcr_type_is_contiguous(t, count)) ASSERT_TRUE(runs(&f) <= 1);

    /* Pack whole, then in random pieces. */
    ref_copy(&f, want, total, false);
    ASSERT_EQ(mpcr_type_pack(got, base, count, t, 0, total + 5), total);
    ASSERT_SAME(t, got, want, total);
    memset(got, 0, (size_t)total + 1);
    for (int64_t at = 0, n; at < total; at += n) {
        n = rnd_in(1, total - at);
        ASSERT_EQ(mpcr_type_pack(got + at, base, count, t, at, n), n);
    }
    ASSERT_SAME(t, got, want, total);
    ASSERT_EQ(mpcr_type_pack(got, base, count, t, total, 10), 0);

    /* Unpack whole and in pieces: the type map's bytes only. */
    memset(mem2, 0x5a, (size_t)span), memset(mem3, 0x5a, (size_t)span);
    struct flat f2 = flatten(t, count, (int64_t)(uintptr_t)base2);
    ref_copy(&f2, want, total, true);
    ASSERT_EQ(mpcr_type_unpack(base3, want, count, t, 0, total), total);
    ASSERT_SAME(t, mem3, mem2, span);
    memset(mem3, 0x5a, (size_t)span);
    for (int64_t at = 0, n; at < total; at += n) {
        n = rnd_in(1, total - at);
        ASSERT_EQ(mpcr_type_unpack(base3, want + at, count, t, at, n), n);
    }
    ASSERT_SAME(t, mem3, mem2, span);

    /* A truncated receive: the first m bytes, a partial element included. */
    int64_t m = rnd_in(0, total);
    memset(mem2, 0x33, (size_t)span), memset(mem3, 0x33, (size_t)span);
    ref_copy(&f2, want, m, true);
    ASSERT_EQ(mpcr_type_unpack(base3, want, count, t, 0, m), m);
    ASSERT_SAME(t, mem3, mem2, span);

    free(f.v), free(f2.v);
    free(mem), free(mem2), free(mem3), free(want), free(got);
}

static void test_random(void)
{
    for (int i = 0; i < 3000; i++) {
        struct mpcr_type *t = random_type(4);
        /* Keep the memory a test touches small. */
        int64_t reach = (t->true_ub - t->true_lb) + 3 * (t->extent < 0 ? -t->extent : t->extent);
        if (t->size > 0 && t->size < (1 << 16) && reach < (1 << 20)) check_copies(t, rnd_in(1, 4));
        mpcr_type_unref(t);
    }
}

/* ---- measurements (not a test) ---- */

/* CPU time of this thread: on a loaded machine, time spent waiting for a
 * core does not count. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define BEST_OF(reps, secs, body)                                                                  \
    do {                                                                                           \
        secs = 1e9;                                                                                \
        for (int r_ = 0; r_ < (reps); r_++) {                                                      \
            double t0_ = now();                                                                    \
            body;                                                                                  \
            double t1_ = now() - t0_;                                                              \
            if (t1_ < secs) secs = t1_;                                                            \
        }                                                                                          \
    } while (0)

static void report(const char *what, int64_t bytes, double secs)
{
    printf("  %-44s %7.2f ms  %6.2f GB/s\n", what, secs * 1e3, bytes / secs / 1e9);
}

static void bench(void)
{
    const int64_t mib64 = 64 << 20, n8 = mib64 / 8;
    char *src = malloc((size_t)(2 * mib64)), *dst = malloc((size_t)mib64);
    ASSERT_TRUE(src && dst);
    memset(src, 1, (size_t)(2 * mib64)), memset(dst, 2, (size_t)mib64);
    struct mpcr_type *vec, *contig;
    double s;
    ASSERT_EQ(mpcr_type_contiguous(n8, t_double, &contig), 0);
    printf("contiguous 64 MiB (best of 5):\n");
    BEST_OF(5, s, memcpy(dst, src, (size_t)mib64));
    report("memcpy", mib64, s);
    BEST_OF(5, s, mpcr_type_pack(dst, src, n8, t_double, 0, mib64));
    report("pack 8M x MPI_DOUBLE", mib64, s);
    BEST_OF(5, s, mpcr_type_pack(dst, src, 1, contig, 0, mib64));
    report("pack 1 x contiguous(8M, MPI_DOUBLE)", mib64, s);
    BEST_OF(5, s, for (int64_t i = 0; i < n8; i++) memcpy(dst + 8 * i, src + 8 * i, 8));
    report("loop of 8-byte copies", mib64, s);

    /* 8-byte blocks every 16 bytes: 64 MiB of data out of 128 MiB. */
    ASSERT_EQ(mpcr_type_vector(n8, 1, 2, t_double, &vec), 0);
    printf("vector(8M, 1, 2, MPI_DOUBLE), 64 MiB of data (best of 5):\n");
    BEST_OF(5, s, memcpy(dst, src, (size_t)mib64));
    report("memcpy of as many bytes", mib64, s);
    BEST_OF(5, s, for (int64_t i = 0; i < n8; i++) memcpy(dst + 8 * i, src + 16 * i, 8));
    report("hand-written strided loop", mib64, s);
    BEST_OF(5, s, {
        volatile int64_t len = 8; /* a length not known at compile time */
        for (int64_t i = 0; i < n8; i++)
            memcpy(dst + 8 * i, src + 16 * i, (size_t)len);
    });
    report("loop of memcpy calls (block list walk)", mib64, s);
    BEST_OF(5, s, mpcr_type_pack(dst, src, 1, vec, 0, mib64));
    report("pack", mib64, s);
    BEST_OF(5, s,
            for (int64_t at = 0; at < mib64; at += 1 << 16)
                mpcr_type_pack(dst + at, src, 1, vec, at, 1 << 16));
    report("pack in 64 KiB pieces", mib64, s);
    BEST_OF(5, s, mpcr_type_unpack(src, dst, 1, vec, 0, mib64));
    report("unpack", mib64, s);
    struct flat f = flatten(vec, 1, (int64_t)(uintptr_t)src);
    BEST_OF(5, s, ref_copy(&f, dst, mib64, false));
    report("reference packer (this test's)", mib64, s);
    free(f.v);
    mpcr_type_unref(vec), mpcr_type_unref(contig);
    free(src), free(dst);
}

int main(int argc, char **argv)
{
    setup();
    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench();
        return 0;
    }
    test_basic_and_contiguous();
    test_vectors();
    test_indexed();
    test_structs();
    test_markers();
    test_absolute();
    test_references();
    test_random();
    printf("typemap: all tests passed\n");
    return 0;
}
