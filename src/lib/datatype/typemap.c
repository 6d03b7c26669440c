/* Type maps: the datatype constructors, their bounds (MPI 4.0 section 5.1)
 * and the compiled form that pack and unpack run (typemap_copy.c).
 *
 * The compiled form of one element is a sequence of items packed in order;
 * an item is `count` repetitions, `stride` bytes apart, of either `unit`
 * contiguous bytes or a shared sub-sequence. Constructors merge what they
 * can (adjacent blocks into one, evenly spaced blocks into one strided
 * item, a repeat of a strided item that continues its stride into a longer
 * one), inline small sequences and refer to large ones, so a vector of a
 * million blocks is one item and no type's program grows with its counts.
 * docs/datatypes.md explains the choice. */
#include "typemap.h"
#include "typemap_seq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A repeat of a sequence is inlined (copies of its items) when that makes
 * at most this many items; beyond, one item refers to the sequence. */
#define INLINE_ITEMS 16

/* ---- overflow-checked arithmetic: the first overflow sticks ---- */

static int64_t add(int64_t a, int64_t b, bool *ovf)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) *ovf = true;
    return r;
}

static int64_t mul(int64_t a, int64_t b, bool *ovf)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) *ovf = true;
    return r;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* ---- sequences ---- */

void mpcr_tm_seq_unref(struct mpcr_tm_seq *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL)) return;
    for (int64_t i = 0; i < s->n; i++)
        mpcr_tm_seq_unref(s->item[i].body);
    free(s);
}

static struct mpcr_tm_seq *seq_ref(struct mpcr_tm_seq *s)
{
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

/* The items of a sequence being built; it holds a reference on each body. */
struct builder {
    struct tm_item *v;
    int64_t n, cap;
    bool nomem;
};

/* A repetition that is contiguous is one block; count 1 has no stride. */
static void normalize(struct tm_item *it)
{
    if (!it->body && it->count > 1 && it->stride == it->unit) {
        it->unit *= it->count;
        it->count = 1;
    }
    if (it->count == 1) it->stride = 0;
}

/* Makes `it`, which follows `last` in packed order, part of last when the
 * two are one block or one progression; false when they are not. */
static bool merge(struct tm_item *last, const struct tm_item *it)
{
    int64_t step, next;
    if (!last->body && !it->body && last->count == 1 && it->count == 1 &&
        !__builtin_add_overflow(last->disp, last->unit, &next) && next == it->disp) {
        last->unit += it->unit;
        return true;
    }
    if (last->body != it->body || last->unit != it->unit) return false;
    if (last->count > 1)
        step = last->stride;
    else if (it->count > 1)
        step = it->stride;
    else if (__builtin_sub_overflow(it->disp, last->disp, &step))
        return false;
    if (it->count > 1 && it->stride != step) return false;
    if (__builtin_mul_overflow(last->count, step, &next) ||
        __builtin_add_overflow(next, last->disp, &next) || next != it->disp)
        return false;
    last->count += it->count;
    last->stride = step;
    normalize(last);
    return true;
}

static void emit(struct builder *b, struct tm_item it)
{
    normalize(&it);
    if (b->n && merge(&b->v[b->n - 1], &it)) return;
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 4;
        struct tm_item *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v) {
            b->nomem = true;
            return;
        }
        b->v = v, b->cap = cap;
    }
    if (it.body) seq_ref(it.body);
    b->v[b->n++] = it;
}

/* Emits `count` copies of sequence s, the first `shift` bytes from the
 * origin, the next `stride` bytes further each. */
static void emit_copies(struct builder *b, struct mpcr_tm_seq *s, int64_t shift, int64_t count,
                        int64_t stride)
{
    if (count <= 0 || s->size == 0) return;
    if (s->n == 1) {
        struct tm_item it = s->item[0];
        it.disp += shift;
        if (count == 1) {
            emit(b, it);
            return;
        }
        if (it.count == 1) {
            it.count = count, it.stride = stride;
            emit(b, it);
            return;
        }
        if (it.count * it.stride == stride) { /* the copies continue its progression */
            it.count *= count;
            emit(b, it);
            return;
        }
    }
    if (count <= INLINE_ITEMS / s->n) {
        for (int64_t k = 0; k < count; k++)
            for (int64_t i = 0; i < s->n; i++) {
                struct tm_item it = s->item[i];
                it.disp += shift + k * stride;
                emit(b, it);
            }
        return;
    }
    emit(b, (struct tm_item){
                .disp = shift, .count = count, .stride = stride, .unit = s->size, .body = s});
}

/* The finished sequence (it takes the builder's references), or NULL with
 * every reference dropped when memory ran out. */
static struct mpcr_tm_seq *build(struct builder *b)
{
    struct mpcr_tm_seq *s = b->nomem ? NULL : malloc(sizeof *s + (size_t)b->n * sizeof *b->v);
    if (!s) {
        for (int64_t i = 0; i < b->n; i++)
            mpcr_tm_seq_unref(b->v[i].body);
        free(b->v);
        return NULL;
    }
    s->refs = 1, s->n = b->n, s->size = 0, s->blocks = 0;
    for (int64_t i = 0; i < b->n; i++) {
        struct tm_item *it = &s->item[i];
        *it = b->v[i];
        it->pos = s->size;
        s->size += it->count * it->unit;
        int64_t blocks = it->body ? it->body->blocks : 1;
        if (__builtin_mul_overflow(blocks, it->count, &blocks) ||
            __builtin_add_overflow(s->blocks, blocks, &s->blocks))
            s->blocks = INT64_MAX; /* a count, not an address: saturate */
    }
    free(b->v);
    return s;
}

/* ---- bounds ---- */

/* One side's candidates: the lowest (lb) or highest (ub) marker and data
 * bound seen so far. */
struct side {
    bool marker, natural;
    int64_t m, n;
};

/* The bounds, size and alignment of a type being made from copies of
 * old types. */
struct acc {
    struct side lo, hi;
    bool data, ovf;
    int64_t size, true_lb, true_ub, align;
};

static void side_put(struct side *s, enum mpcr_bound kind, int64_t v, bool upper)
{
    if (kind == MPCR_BOUND_MARKER) {
        s->m = !s->marker ? v : upper ? max64(s->m, v) : min64(s->m, v);
        s->marker = true;
    } else if (kind == MPCR_BOUND_NATURAL) {
        s->n = !s->natural ? v : upper ? max64(s->n, v) : min64(s->n, v);
        s->natural = true;
    }
}

/* n >= 1 copies of old whose displacements lie in [dmin, dmax]. */
static void place(struct acc *a, const struct mpcr_type *old, int64_t n, int64_t dmin, int64_t dmax)
{
    a->size = add(a->size, mul(n, old->size, &a->ovf), &a->ovf);
    if (old->size > 0) {
        int64_t lo = add(dmin, old->true_lb, &a->ovf), hi = add(dmax, old->true_ub, &a->ovf);
        a->true_lb = a->data ? min64(a->true_lb, lo) : lo;
        a->true_ub = a->data ? max64(a->true_ub, hi) : hi;
        a->align = max64(a->align, old->align);
        a->data = true;
    }
    side_put(&a->lo, old->lb_kind, add(dmin, old->lb, &a->ovf), false);
    side_put(&a->hi, old->ub_kind, add(dmax, old->ub, &a->ovf), true);
}

/* The lowest and highest of 0, step, ..., (count - 1) * step (count >= 1). */
static void span(int64_t count, int64_t step, int64_t *lo, int64_t *hi, bool *ovf)
{
    int64_t last = mul(count - 1, step, ovf);
    *lo = min64(0, last), *hi = max64(0, last);
}

static enum mpcr_bound side_get(const struct side *s, int64_t *v)
{
    if (s->marker) return *v = s->m, MPCR_BOUND_MARKER;
    if (s->natural) return *v = s->n, MPCR_BOUND_NATURAL;
    return *v = 0, MPCR_BOUND_NONE;
}

/* Sets t's bounds from a; `pad`: a struct's natural ub is raised so that
 * the extent is a multiple of the alignment (MPI's epsilon). */
static int settle(struct acc *a, bool pad, struct mpcr_type *t)
{
    t->size = a->size;
    t->align = a->data ? a->align : 1;
    t->true_lb = a->data ? a->true_lb : 0;
    t->true_ub = a->data ? a->true_ub : 0;
    t->lb_kind = side_get(&a->lo, &t->lb);
    t->ub_kind = side_get(&a->hi, &t->ub);
    /* Markers on one side only, no data: the other side is 0, as in MPICH
     * (struct {(MPI_LB, 10)} has extent -10: MPICH's test
     * datatype/struct_no_real_types). */
    if (pad && t->ub_kind == MPCR_BOUND_NATURAL) {
        int64_t r = add(t->ub, -t->lb, &a->ovf) % t->align;
        if (r < 0) r += t->align;
        if (r) t->ub = add(t->ub, t->align - r, &a->ovf);
    }
    t->extent = add(t->ub, -t->lb, &a->ovf);
    return a->ovf ? -EOVERFLOW : 0;
}

/* ---- types ---- */

static struct mpcr_type *type_new(void)
{
    struct mpcr_type *t = calloc(1, sizeof *t);
    if (t) t->refs = 1;
    return t;
}

void mpcr_type_ref(struct mpcr_type *t)
{
    __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

void mpcr_type_unref(struct mpcr_type *t)
{
    if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL)) return;
    for (int64_t i = 0; i < t->ntypes; i++)
        mpcr_type_unref(t->types[i]);
    free(t->ints);
    mpcr_tm_seq_unref(t->seq);
    free(t);
}

int mpcr_type_set_envelope(struct mpcr_type *t, enum mpcr_combiner combiner, int64_t nints,
                           const int64_t ints[], int64_t naddrs, const int64_t addrs[],
                           int64_t ntypes, struct mpcr_type *const types[])
{
    /* One block: the integers, the addresses, the types. */
    size_t bytes = (size_t)(nints + naddrs) * sizeof(int64_t) + (size_t)ntypes * sizeof *types;
    int64_t *block = malloc(bytes ? bytes : 1);
    if (!block) return -ENOMEM;
    if (nints) memcpy(block, ints, (size_t)nints * sizeof *ints);
    if (naddrs) memcpy(block + nints, addrs, (size_t)naddrs * sizeof *addrs);
    struct mpcr_type **tv = (struct mpcr_type **)(block + nints + naddrs);
    for (int64_t i = 0; i < ntypes; i++)
        mpcr_type_ref(tv[i] = types[i]);
    for (int64_t i = 0; i < t->ntypes; i++)
        mpcr_type_unref(t->types[i]);
    free(t->ints);
    t->combiner = combiner;
    t->nints = nints, t->naddrs = naddrs, t->ntypes = ntypes;
    t->ints = block, t->addrs = block + nints, t->types = tv;
    return 0;
}

/* Completes a type made with status err: records its envelope and hands
 * it out, or frees it. */
static int finish(struct mpcr_type *t, int err, enum mpcr_combiner combiner, int64_t nints,
                  const int64_t ints[], int64_t naddrs, const int64_t addrs[], int64_t ntypes,
                  struct mpcr_type *const types[], struct mpcr_type **out)
{
    if (!t) return -ENOMEM;
    if (!err) err = mpcr_type_set_envelope(t, combiner, nints, ints, naddrs, addrs, ntypes, types);
    if (err) {
        mpcr_type_unref(t);
        return err;
    }
    t->blocks = t->seq->blocks;
    *out = t;
    return 0;
}

/* A type whose element is the sequence built by b, with bounds from a. */
static struct mpcr_type *made(struct builder *b, struct acc *a, bool pad, int *err)
{
    struct mpcr_type *t = type_new();
    struct mpcr_tm_seq *s = build(b);
    if (!t || !s) {
        free(t);
        mpcr_tm_seq_unref(s);
        return NULL;
    }
    t->seq = s;
    *err = settle(a, pad, t);
    return t;
}

int mpcr_type_basic(int64_t size, int64_t align, struct mpcr_type **out)
{
    if (size <= 0 || align <= 0 || (align & (align - 1))) return -EINVAL;
    struct builder b = {0};
    emit(&b, (struct tm_item){.count = 1, .unit = size});
    struct mpcr_type *t = type_new();
    if (t && !(t->seq = build(&b))) t = (free(t), NULL);
    if (!t) return -ENOMEM;
    t->size = size, t->extent = size, t->lb = 0, t->ub = size;
    t->true_lb = 0, t->true_ub = size, t->align = align;
    t->lb_kind = t->ub_kind = MPCR_BOUND_NATURAL;
    return finish(t, 0, MPCR_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL, out);
}

int mpcr_type_marker(bool upper, struct mpcr_type **out)
{
    struct builder b = {0};
    struct acc a = {0};
    struct mpcr_type *t = type_new();
    if (t && !(t->seq = build(&b))) t = (free(t), NULL);
    if (!t) return -ENOMEM;
    side_put(upper ? &a.hi : &a.lo, MPCR_BOUND_MARKER, 0, upper);
    int err = settle(&a, false, t);
    return finish(t, err, MPCR_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL, out);
}

/* count blocks; block j: bl[j] copies of types[j], one extent apart, the
 * first disp[j] bytes from the origin. The common body of the indexed and
 * struct constructors; the envelope is the caller's. */
static struct mpcr_type *make_blocks(int64_t count, const int64_t bl[], const int64_t disp[],
                                     struct mpcr_type *const types[], bool pad, int *err)
{
    *err = 0;
    struct builder b = {0};
    struct acc a = {0};
    for (int64_t j = 0; j < count; j++) {
        if (bl[j] == 0) continue;
        const struct mpcr_type *old = types[j];
        int64_t lo, hi;
        span(bl[j], old->extent, &lo, &hi, &a.ovf);
        place(&a, old, bl[j], add(disp[j], lo, &a.ovf), add(disp[j], hi, &a.ovf));
        if (a.ovf) break; /* settle reports it */
        emit_copies(&b, old->seq, disp[j], bl[j], old->extent);
    }
    return made(&b, &a, pad, err);
}

/* Checks the arguments common to the block constructors. */
static int check_blocks(int64_t count, const int64_t bl[], const int64_t disp[],
                        struct mpcr_type *const types[])
{
    if (count < 0 || (count && (!bl || !disp || !types))) return -EINVAL;
    for (int64_t j = 0; j < count; j++)
        if (bl[j] < 0 || !types[j]) return -EINVAL;
    return 0;
}

/* The MPI envelope integers {count, head..., a[0..count)..., b[0..count)}. */
static int64_t *envelope_ints(int64_t count, int64_t nhead, const int64_t head[], const int64_t a[],
                              const int64_t b[])
{
    int64_t n = 1 + nhead + (a ? count : 0) + (b ? count : 0);
    int64_t *v = malloc((size_t)n * sizeof *v), *p = v;
    if (!v) return NULL;
    *p++ = count;
    for (int64_t i = 0; i < nhead; i++)
        *p++ = head[i];
    for (int64_t i = 0; a && i < count; i++)
        *p++ = a[i];
    for (int64_t i = 0; b && i < count; i++)
        *p++ = b[i];
    return v;
}

/* An array of n copies of v, or NULL (n may be 0: then a valid pointer). */
static void *repeated(int64_t n, const void *v, size_t each)
{
    char *a = malloc(n ? (size_t)n * each : 1);
    for (int64_t i = 0; a && i < n; i++)
        memcpy(a + (size_t)i * each, v, each);
    return a;
}

/* The indexed family: blocks of copies of one old type; displacements in
 * bytes (the H combiners) or in extents of old; bl NULL: every block holds
 * bl1. Records the envelope the MPI way for `combiner`. */
static int make_indexed(enum mpcr_combiner combiner, int64_t count, const int64_t bl[], int64_t bl1,
                        const int64_t displs[], struct mpcr_type *old, struct mpcr_type **out)
{
    if (count < 0 || (count && !displs) || !old || (!bl && bl1 < 0)) return -EINVAL;
    bool bytes = combiner == MPCR_COMBINER_HINDEXED || combiner == MPCR_COMBINER_HINDEXED_BLOCK;
    int64_t *bls = bl ? (int64_t *)bl : repeated(count, &bl1, sizeof bl1);
    int64_t *disp = bytes ? (int64_t *)displs : malloc(count ? (size_t)count * sizeof *disp : 1);
    struct mpcr_type **types = repeated(count, &old, sizeof old);
    int64_t *ints = NULL;
    struct mpcr_type *t = NULL;
    int err = -ENOMEM;
    if (!bls || !disp || !types) goto out;
    bool ovf = false;
    for (int64_t j = 0; !bytes && j < count; j++) /* an empty block's may be anything */
        disp[j] = bls[j] ? mul(displs[j], old->extent, &ovf) : 0;
    if ((err = ovf ? -EOVERFLOW : check_blocks(count, bls, disp, types))) goto out;
    t = make_blocks(count, bls, disp, types, false, &err);
    ints = envelope_ints(count, bl ? 0 : 1, &bl1, bl, bytes ? NULL : displs);
    if (!ints) err = -ENOMEM;
    err = finish(t, err, combiner, 1 + (bl ? 0 : 1) + (bl ? count : 0) + (bytes ? 0 : count), ints,
                 bytes ? count : 0, displs, 1, &old, out);
out:
    if (!bl) free(bls);
    if (!bytes) free(disp);
    free(types);
    free(ints);
    return err;
}

int mpcr_type_indexed(int64_t count, const int64_t blocklens[], const int64_t displs[],
                      struct mpcr_type *old, struct mpcr_type **out)
{
    if (!blocklens) return -EINVAL;
    return make_indexed(MPCR_COMBINER_INDEXED, count, blocklens, 0, displs, old, out);
}

int mpcr_type_hindexed(int64_t count, const int64_t blocklens[], const int64_t byte_displs[],
                       struct mpcr_type *old, struct mpcr_type **out)
{
    if (!blocklens) return -EINVAL;
    return make_indexed(MPCR_COMBINER_HINDEXED, count, blocklens, 0, byte_displs, old, out);
}

int mpcr_type_indexed_block(int64_t count, int64_t blocklen, const int64_t displs[],
                            struct mpcr_type *old, struct mpcr_type **out)
{
    return make_indexed(MPCR_COMBINER_INDEXED_BLOCK, count, NULL, blocklen, displs, old, out);
}

int mpcr_type_hindexed_block(int64_t count, int64_t blocklen, const int64_t byte_displs[],
                             struct mpcr_type *old, struct mpcr_type **out)
{
    return make_indexed(MPCR_COMBINER_HINDEXED_BLOCK, count, NULL, blocklen, byte_displs, old, out);
}

int mpcr_type_struct(int64_t count, const int64_t blocklens[], const int64_t byte_displs[],
                     struct mpcr_type *const types[], struct mpcr_type **out)
{
    int err = check_blocks(count, blocklens, byte_displs, types);
    if (err) return err;
    struct mpcr_type *t = make_blocks(count, blocklens, byte_displs, types, true, &err);
    int64_t *ints = envelope_ints(count, 0, NULL, blocklens, NULL);
    if (!ints) err = -ENOMEM;
    err = finish(t, err, MPCR_COMBINER_STRUCT, 1 + count, ints, count, byte_displs, count, types,
                 out);
    free(ints);
    return err;
}

int mpcr_type_pair(struct mpcr_type *value, struct mpcr_type *index, int64_t index_disp,
                   struct mpcr_type **out)
{
    struct mpcr_type *t, *parts[2] = {value, index};
    int err =
        mpcr_type_struct(2, (const int64_t[]){1, 1}, (const int64_t[]){0, index_disp}, parts, &t);
    if (err) return err;
    if ((err = mpcr_type_set_envelope(t, MPCR_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL))) {
        mpcr_type_unref(t);
        return err;
    }
    *out = t;
    return 0;
}

/* count blocks of blocklen copies of old, one extent apart within a block,
 * the blocks stride_bytes apart (contiguous: one block of count). */
static struct mpcr_type *make_vector(int64_t count, int64_t blocklen, int64_t stride_bytes,
                                     struct mpcr_type *old, int *err)
{
    *err = 0;
    struct builder b = {0};
    struct acc a = {0};
    if (count > 0 && blocklen > 0) {
        int64_t lo1, hi1, lo2, hi2;
        span(count, stride_bytes, &lo1, &hi1, &a.ovf);
        span(blocklen, old->extent, &lo2, &hi2, &a.ovf);
        place(&a, old, mul(count, blocklen, &a.ovf), add(lo1, lo2, &a.ovf), add(hi1, hi2, &a.ovf));
    }
    if (!a.ovf && count > 0 && blocklen == 1) {
        emit_copies(&b, old->seq, 0, count, stride_bytes);
    } else if (!a.ovf && count > 0 && blocklen > 1) { /* a block first, then its copies */
        struct builder ib = {0};
        emit_copies(&ib, old->seq, 0, blocklen, old->extent);
        struct mpcr_tm_seq *block = build(&ib);
        if (block)
            emit_copies(&b, block, 0, count, stride_bytes);
        else
            b.nomem = true;
        mpcr_tm_seq_unref(block);
    }
    return made(&b, &a, false, err);
}

int mpcr_type_contiguous(int64_t count, struct mpcr_type *old, struct mpcr_type **out)
{
    if (count < 0 || !old) return -EINVAL;
    int err;
    struct mpcr_type *t = make_vector(1, count, 0, old, &err);
    return finish(t, err, MPCR_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &old, out);
}

int mpcr_type_vector(int64_t count, int64_t blocklen, int64_t stride, struct mpcr_type *old,
                     struct mpcr_type **out)
{
    if (count < 0 || blocklen < 0 || !old) return -EINVAL;
    int err;
    bool ovf = false;
    int64_t bytes = mul(stride, old->extent, &ovf);
    if (ovf) return -EOVERFLOW;
    struct mpcr_type *t = make_vector(count, blocklen, bytes, old, &err);
    return finish(t, err, MPCR_COMBINER_VECTOR, 3, (const int64_t[]){count, blocklen, stride}, 0,
                  NULL, 1, &old, out);
}

int mpcr_type_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, struct mpcr_type *old,
                      struct mpcr_type **out)
{
    if (count < 0 || blocklen < 0 || !old) return -EINVAL;
    int err;
    struct mpcr_type *t = make_vector(count, blocklen, stride_bytes, old, &err);
    return finish(t, err, MPCR_COMBINER_HVECTOR, 2, (const int64_t[]){count, blocklen}, 1,
                  &stride_bytes, 1, &old, out);
}

/* A type with old's data and program (resized, dup). */
static struct mpcr_type *same_data(const struct mpcr_type *old)
{
    struct mpcr_type *t = type_new();
    if (!t) return NULL;
    *t = *old;
    t->refs = 1;
    t->combiner = MPCR_COMBINER_NAMED;
    t->nints = t->naddrs = t->ntypes = 0;
    t->ints = t->addrs = NULL, t->types = NULL;
    t->seq = seq_ref(old->seq);
    return t;
}

int mpcr_type_resized(struct mpcr_type *old, int64_t lb, int64_t extent, struct mpcr_type **out)
{
    if (!old) return -EINVAL;
    bool ovf = false;
    int64_t ub = add(lb, extent, &ovf);
    if (ovf) return -EOVERFLOW;
    struct mpcr_type *t = same_data(old);
    if (t) {
        t->lb = lb, t->ub = ub, t->extent = extent;
        t->lb_kind = t->ub_kind = MPCR_BOUND_MARKER;
    }
    return finish(t, 0, MPCR_COMBINER_RESIZED, 0, NULL, 2, (const int64_t[]){lb, extent}, 1, &old,
                  out);
}

int mpcr_type_dup(struct mpcr_type *old, struct mpcr_type **out)
{
    if (!old) return -EINVAL;
    return finish(same_data(old), 0, MPCR_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old, out);
}

bool mpcr_type_is_contiguous(const struct mpcr_type *t, int64_t count)
{
    if (t->size == 0 || count <= 0) return true;
    const struct mpcr_tm_seq *s = t->seq;
    return s->n == 1 && !s->item[0].body && s->item[0].count == 1 &&
           (count == 1 || t->extent == t->size);
}
