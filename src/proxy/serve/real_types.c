/* Real datatypes in the proxy: the definition the library sends
 * (channel.h: struct mpcr_type_def, its constructors down to predefined
 * types) built with the real MPI's constructors, committed, and kept under
 * the library's handle (docs/datatypes.md, "Real datatypes in the proxy").
 *
 * MPI 4 (MPICH 4) builds with the large-count `_c` constructors, so every
 * count the library accepts is accepted here. An MPI 3 (Open MPI 4.1) has
 * only the int forms: a count, block length, element displacement or
 * array size beyond int is refused with a message naming the node and the
 * argument, never truncated. Byte displacements and strides are MPI_Aint
 * in both.
 *
 * Where the real MPI bounds a node otherwise than the library (a struct's
 * padding, MPI_LB/MPI_UB markers, which Open MPI 4.1 lacks and which are
 * therefore never built: docs/datatypes.md, "Against the real
 * implementations"), the node is resized to the library's lb and extent,
 * which the definition carries for every node: the real type is then the
 * library's type map with the library's extent at every level, and its
 * signature (the predefined types, in order) is the library's too. */
#include "real_types.h"

#include "report.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI)
#define MPI_NAME "Open MPI"
#elif defined(MPICH_VERSION)
#define MPI_NAME "MPICH " MPICH_VERSION
#else
#define MPI_NAME "this MPI"
#endif

/* ---- predefined types: mpcr's ids (MPICH's handles) to this MPI's ---- */

// clang-format off
#define NEUTRAL_TYPES(X)                                                                           \
    X(0x4c000101, MPI_CHAR) X(0x4c000118, MPI_SIGNED_CHAR) X(0x4c000102, MPI_UNSIGNED_CHAR)        \
    X(0x4c00010d, MPI_BYTE) X(0x4c00040e, MPI_WCHAR) X(0x4c000203, MPI_SHORT)                      \
    X(0x4c000204, MPI_UNSIGNED_SHORT) X(0x4c000405, MPI_INT) X(0x4c000406, MPI_UNSIGNED)           \
    X(0x4c000807, MPI_LONG) X(0x4c000808, MPI_UNSIGNED_LONG) X(0x4c00040a, MPI_FLOAT)              \
    X(0x4c00080b, MPI_DOUBLE) X(0x4c00100c, MPI_LONG_DOUBLE) X(0x4c000809, MPI_LONG_LONG_INT)      \
    X(0x4c000819, MPI_UNSIGNED_LONG_LONG) X(0x4c00010f, MPI_PACKED)                                \
    X(0x8c000000, MPI_FLOAT_INT) X(0x8c000001, MPI_DOUBLE_INT) X(0x8c000002, MPI_LONG_INT)         \
    X(0x8c000003, MPI_SHORT_INT) X(0x4c000816, MPI_2INT) X(0x8c000004, MPI_LONG_DOUBLE_INT)        \
    X(0x4c00081e, MPI_COMPLEX) X(0x4c001022, MPI_DOUBLE_COMPLEX) X(0x4c00041d, MPI_LOGICAL)        \
    X(0x4c00041c, MPI_REAL) X(0x4c00081f, MPI_DOUBLE_PRECISION) X(0x4c00041b, MPI_INTEGER)         \
    X(0x4c000820, MPI_2INTEGER) X(0x4c000821, MPI_2REAL) X(0x4c001023, MPI_2DOUBLE_PRECISION)      \
    X(0x4c00011a, MPI_CHARACTER) X(0x4c000427, MPI_REAL4) X(0x4c000829, MPI_REAL8)                 \
    X(0x4c00102b, MPI_REAL16) X(0x4c000828, MPI_COMPLEX8) X(0x4c00102a, MPI_COMPLEX16)             \
    X(0x4c00202c, MPI_COMPLEX32) X(0x4c00012d, MPI_INTEGER1) X(0x4c00022f, MPI_INTEGER2)           \
    X(0x4c000430, MPI_INTEGER4) X(0x4c000831, MPI_INTEGER8) X(0x4c000137, MPI_INT8_T)              \
    X(0x4c000238, MPI_INT16_T) X(0x4c000439, MPI_INT32_T) X(0x4c00083a, MPI_INT64_T)               \
    X(0x4c00013b, MPI_UINT8_T) X(0x4c00023c, MPI_UINT16_T) X(0x4c00043d, MPI_UINT32_T)             \
    X(0x4c00083e, MPI_UINT64_T) X(0x4c00013f, MPI_C_BOOL) X(0x4c000840, MPI_C_FLOAT_COMPLEX)       \
    X(0x4c001041, MPI_C_DOUBLE_COMPLEX) X(0x4c002042, MPI_C_LONG_DOUBLE_COMPLEX)                   \
    X(0x4c000843, MPI_AINT) X(0x4c000844, MPI_OFFSET) X(0x4c000845, MPI_COUNT)                     \
    X(0x4c000133, MPI_CXX_BOOL) X(0x4c000834, MPI_CXX_FLOAT_COMPLEX)                               \
    X(0x4c001035, MPI_CXX_DOUBLE_COMPLEX) X(0x4c002036, MPI_CXX_LONG_DOUBLE_COMPLEX)
// clang-format on
#define ID_LB 0x4c000010u /* MPI_LB, MPI_UB: markers, never built (above) */
#define ID_UB 0x4c000011u

static MPI_Datatype predefined(uint32_t id)
{
    switch (id) {
#define CASE(v, name)                                                                              \
    case v:                                                                                        \
        return name;
        NEUTRAL_TYPES(CASE)
#undef CASE
#ifdef MPIX_C_FLOAT16
    case 0x4c000246:
        return MPIX_C_FLOAT16;
#endif
    }
    return MPI_DATATYPE_NULL;
}

/* MPICH's values of the constants of subarray and darray, mpcr's ABI. */
enum {
    ABI_ORDER_C = 56,
    ABI_ORDER_FORTRAN = 57,
    ABI_BLOCK = 121,
    ABI_CYCLIC = 122,
    ABI_NONE = 123,
    ABI_DFLT_DARG = -49767
};

/* ---- the cache: the library's handle -> the real type ---- */

/* A derived datatype's handle in the library (src/lib/handle.h): MPICH's
 * datatype prefix, a generation 1..63, a 20-bit slot. */
#define HANDLE_PREFIX 0x8c000000u
#define SLOT_BITS     20
static int derived_handle(uint32_t h)
{
    return (h & 0xfc000000u) == HANDLE_PREFIX && ((h >> SLOT_BITS) & 0x3f) != 0;
}

/* Indexed by the handle's slot: one entry per live handle (a slot's next
 * handle has another generation, so an entry is only ever found by its own). */
static struct entry {
    uint32_t handle; /* 0: empty */
    MPI_Datatype type;
} * cache;
static uint32_t cache_cap, cache_live;

/* At most this many real types are kept (MPCR_REAL_TYPES_MAX): the oldest
 * goes first, and the library defines it again when it needs it (the
 * proxy answers MPCR_TYPE_UNKNOWN). MPICH 4.0.2 packs wrongly once about
 * 770 committed datatypes live at once (2 bytes short of 512 for a 512-byte
 * contiguous type: a native program shows it; MPICH's datatype/tfree under
 * MPCR_CHECK_REAL_TYPES met it), so the default stays well below that. */
#define CACHE_MAX_DEFAULT 512
static uint32_t cache_max;
/* The handles in the order they were defined (stale ones skipped when
 * met); compacted when mostly stale. */
static uint32_t *order, order_head, order_len, order_cap;

static struct entry *cache_find(uint32_t h)
{
    uint32_t i = h & ((1u << SLOT_BITS) - 1);
    return derived_handle(h) && i < cache_cap && cache[i].handle == h ? &cache[i] : NULL;
}

static void cache_drop(struct entry *e)
{
    MPI_Type_free(&e->type);
    e->handle = 0;
    cache_live--;
}

/* Room for one more: the oldest live entries go while cache_max are kept. */
static void cache_evict(void)
{
    if (!cache_max) {
        const char *v = getenv("MPCR_REAL_TYPES_MAX");
        long n = v ? strtol(v, NULL, 10) : 0;
        cache_max = n > 0 && n < (1l << SLOT_BITS) ? (uint32_t)n : CACHE_MAX_DEFAULT;
    }
    while (cache_live >= cache_max && order_head < order_len) {
        struct entry *e = cache_find(order[order_head++]);
        if (e) cache_drop(e);
    }
    if (order_head > 64 && order_head * 2 > order_len) { /* compact: the live ones, in order */
        uint32_t n = 0;
        for (uint32_t i = order_head; i < order_len; i++)
            if (cache_find(order[i])) order[n++] = order[i];
        order_head = 0, order_len = n;
    }
}

/* At MPI_Finalize, before anything else, MPI deletes MPI_COMM_SELF's
 * attributes (MPI 4.0 11.2.4): the real types still kept go then, so that
 * the real MPI finds none left (MPICH reports leaked types). */
static int cache_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    for (uint32_t i = 0; i < cache_cap; i++)
        if (cache[i].handle) cache_drop(&cache[i]);
    return MPI_SUCCESS;
}

static int cache_put(uint32_t h, MPI_Datatype t)
{
    static int hooked;
    if (!hooked) {
        int key;
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cache_finalize, &key, NULL) ==
                MPI_SUCCESS &&
            MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS)
            hooked = 1;
    }
    uint32_t i = h & ((1u << SLOT_BITS) - 1);
    if (i >= cache_cap) {
        uint32_t n = cache_cap ? cache_cap : 64;
        while (n <= i)
            n *= 2;
        struct entry *e = realloc(cache, n * sizeof *e);
        if (!e) return MPI_ERR_NO_MEM;
        memset(e + cache_cap, 0, (n - cache_cap) * sizeof *e);
        cache = e, cache_cap = n;
    }
    if (grow_array(&order, &order_cap, order_len, 64, sizeof *order)) return MPI_ERR_NO_MEM;
    if (cache[i].handle)
        cache_drop(&cache[i]); /* the handle defined again, or a slot's earlier one */
    cache_evict();
    cache[i].handle = h, cache[i].type = t;
    cache_live++;
    order[order_len++] = h;
    return MPI_SUCCESS;
}

MPI_Datatype real_type(uint32_t id)
{
    if (!derived_handle(id)) return predefined(id);
    struct entry *e = cache_find(id);
    return e ? e->type : MPI_DATATYPE_NULL;
}

/* ---- building ---- */

#if MPI_VERSION >= 4
#define LARGE 1
typedef MPI_Count real_count; /* counts, block lengths, element displacements */
typedef MPI_Count real_disp;  /* byte displacements */
#define C(f) f##_c
#else
#define LARGE 0
typedef int real_count;
typedef MPI_Aint real_disp;
#define C(f)  f
#endif

static const char *const ctor_name[MPCR_TYPE_KINDS] = {
    [MPCR_TYPE_NAMED] = "predefined type",
    [MPCR_TYPE_DUP] = "MPI_Type_dup",
    [MPCR_TYPE_CONTIGUOUS] = "MPI_Type_contiguous",
    [MPCR_TYPE_VECTOR] = "MPI_Type_vector",
    [MPCR_TYPE_HVECTOR] = "MPI_Type_create_hvector",
    [MPCR_TYPE_INDEXED] = "MPI_Type_indexed",
    [MPCR_TYPE_HINDEXED] = "MPI_Type_create_hindexed",
    [MPCR_TYPE_INDEXED_BLOCK] = "MPI_Type_create_indexed_block",
    [MPCR_TYPE_HINDEXED_BLOCK] = "MPI_Type_create_hindexed_block",
    [MPCR_TYPE_STRUCT] = "MPI_Type_create_struct",
    [MPCR_TYPE_RESIZED] = "MPI_Type_create_resized",
    [MPCR_TYPE_SUBARRAY] = "MPI_Type_create_subarray",
    [MPCR_TYPE_DARRAY] = "MPI_Type_create_darray",
};

/* One build: where a refusal is explained. `ints`: with the int
 * constructors only, even where the large-count ones exist (a file view:
 * MPICH 4.0.2's ROMIO flattens a view with MPI_Type_get_envelope, which
 * refuses a type made by a _c constructor). */
struct build {
    uint32_t node, kind;
    int ints;
    char msg[256];
};

static int refuse(struct build *b, int cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(struct build *b, int cls, const char *fmt, ...)
{
    int n = b->kind < MPCR_TYPE_KINDS
                ? snprintf(b->msg, sizeof b->msg, "node %u (%s): ", b->node, ctor_name[b->kind])
                : snprintf(b->msg, sizeof b->msg, "node %u: ", b->node);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof b->msg)
        vsnprintf(b->msg + n, sizeof b->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return cls;
}

/* v as a count of this MPI's constructors; refused beyond int without `_c`. */
static int count_of(struct build *b, int64_t v, const char *what, real_count *out)
{
    if (b->ints && (v > INT_MAX || v < INT_MIN))
        return refuse(b, MPI_ERR_COUNT, "%s %lld does not fit in int, as a file view needs",
                      what, (long long)v);
    if (!LARGE && (v > INT_MAX || v < INT_MIN))
        return refuse(b, MPI_ERR_COUNT,
                      "%s %lld does not fit in int, and " MPI_NAME
                      " has no large-count (_c) constructors",
                      what, (long long)v);
    *out = (real_count)v;
    return MPI_SUCCESS;
}

/* An argument that is an int in every form (darray's distributions...). */
static int int_of(struct build *b, int64_t v, const char *what, int *out)
{
    if (v > INT_MAX || v < INT_MIN)
        return refuse(b, MPI_ERR_ARG, "%s %lld does not fit in int", what, (long long)v);
    *out = (int)v;
    return MPI_SUCCESS;
}

/* A new array of n elements of `size` bytes in *out (at least one element,
 * so that NULL means no memory), or the refusal of n. */
static int new_array(struct build *b, int64_t n, size_t size, void **out)
{
    *out = NULL;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        return refuse(b, MPI_ERR_ARG, "%lld elements cannot be held", (long long)n);
    *out = malloc((size_t)(n ? n : 1) * size);
    return *out ? MPI_SUCCESS : refuse(b, MPI_ERR_NO_MEM, "no memory");
}

/* n values of src as counts, in a new array (*out; free it). */
static int counts_of(struct build *b, const int64_t *src, int64_t n, const char *what,
                     real_count **out)
{
    void *array;
    int rc = new_array(b, n, sizeof **out, &array);
    *out = array;
    if (rc) return rc;
    for (int64_t i = 0; i < n && !rc; i++)
        rc = count_of(b, src[i], what, &(*out)[i]);
    return rc;
}

static int disps_of(struct build *b, const int64_t *src, int64_t n, real_disp **out)
{
    void *array;
    int rc = new_array(b, n, sizeof **out, &array);
    *out = array;
    if (rc) return rc;
    for (int64_t i = 0; i < n; i++)
        (*out)[i] = (real_disp)src[i];
    return MPI_SUCCESS;
}

static int ints_of(struct build *b, const int64_t *src, int64_t n, const char *what, int **out)
{
    void *array;
    int rc = new_array(b, n, sizeof **out, &array);
    *out = array;
    if (rc) return rc;
    for (int64_t i = 0; i < n && !rc; i++)
        rc = int_of(b, src[i], what, &(*out)[i]);
    return rc;
}

/* The real MPI refused: its message. */
static int real_refused(struct build *b, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
    text[len] = 0;
    return refuse(b, error_class(rc), "%s refused it: %s", MPI_NAME, text);
}

/* A parsed node: its header and its arguments (inside the copy of the
 * definition). */
struct node {
    struct mpcr_type_node h;
    const int64_t *ints, *addrs;
    const uint64_t *types;
};

/* Whether the node's argument counts are those of its constructor. */
static int shape_ok(const struct node *n)
{
    const struct mpcr_type_node *h = &n->h;
    int64_t k = h->nints ? n->ints[0] : -1; /* the count, or ndims */
    int arrays = h->kind >= MPCR_TYPE_INDEXED && h->kind <= MPCR_TYPE_STRUCT;
    if ((h->kind >= MPCR_TYPE_CONTIGUOUS && h->kind <= MPCR_TYPE_SUBARRAY &&
         h->kind != MPCR_TYPE_RESIZED && k < 0) ||
        ((arrays || h->kind == MPCR_TYPE_SUBARRAY) && k > (int64_t)h->nints + h->naddrs))
        return 0; /* a count < 0, or arrays longer than the words sent */
    switch (h->kind) {
    case MPCR_TYPE_NAMED:
        return !h->nints && !h->naddrs && !h->ntypes;
    case MPCR_TYPE_DUP:
        return !h->nints && !h->naddrs && h->ntypes == 1;
    case MPCR_TYPE_CONTIGUOUS:
        return h->nints == 1 && !h->naddrs && h->ntypes == 1;
    case MPCR_TYPE_VECTOR:
        return h->nints == 3 && !h->naddrs && h->ntypes == 1;
    case MPCR_TYPE_HVECTOR:
        return h->nints == 2 && h->naddrs == 1 && h->ntypes == 1;
    case MPCR_TYPE_INDEXED:
        return h->nints == 1 + 2 * k && !h->naddrs && h->ntypes == 1;
    case MPCR_TYPE_HINDEXED:
        return h->nints == 1 + k && h->naddrs == k && h->ntypes == 1;
    case MPCR_TYPE_INDEXED_BLOCK:
        return h->nints == 2 + k && !h->naddrs && h->ntypes == 1;
    case MPCR_TYPE_HINDEXED_BLOCK:
        return h->nints == 2 && h->naddrs == k && h->ntypes == 1;
    case MPCR_TYPE_STRUCT:
        return h->nints == 1 + k && h->naddrs == k && h->ntypes == k;
    case MPCR_TYPE_RESIZED:
        return !h->nints && h->naddrs == 2 && h->ntypes == 1;
    case MPCR_TYPE_SUBARRAY:
        return k >= 1 && h->nints == 3 * k + 2 && !h->naddrs && h->ntypes == 1;
    case MPCR_TYPE_DARRAY:
        return h->nints >= 3 && (k = n->ints[2]) >= 1 && k <= h->nints && h->nints == 4 * k + 4 &&
               !h->naddrs && h->ntypes == 1;
    }
    return 0;
}

static int order_of(struct build *b, int64_t abi, int *out)
{
    if (abi == ABI_ORDER_C)
        *out = MPI_ORDER_C;
    else if (abi == ABI_ORDER_FORTRAN)
        *out = MPI_ORDER_FORTRAN;
    else
        return refuse(b, MPI_ERR_ARG, "order %lld is neither C nor Fortran", (long long)abi);
    return MPI_SUCCESS;
}

#if LARGE
static int *int_array(const real_count *a, int64_t n);
#endif

static int darray(struct build *b, const struct node *n, MPI_Datatype old, MPI_Datatype *out)
{
    const int64_t *v = n->ints;
    int size = 0, rank = 0, ndims = 0, order = 0, rc, *distribs = NULL, *dargs = NULL,
        *psizes = NULL;
    real_count *gsizes = NULL;
    if ((rc = int_of(b, v[0], "size", &size)) || (rc = int_of(b, v[1], "rank", &rank)) ||
        (rc = int_of(b, v[2], "ndims", &ndims)) || (rc = order_of(b, v[4 * ndims + 3], &order)) ||
        (rc = counts_of(b, v + 3, ndims, "global size", &gsizes)) ||
        (rc = ints_of(b, v + 3 + ndims, ndims, "distribution", &distribs)) ||
        (rc = ints_of(b, v + 3 + 2 * ndims, ndims, "distribution argument", &dargs)) ||
        (rc = ints_of(b, v + 3 + 3 * ndims, ndims, "process grid size", &psizes)))
        goto out;
    for (int i = 0; i < ndims; i++) {
        int d = distribs[i];
        distribs[i] = d == ABI_BLOCK    ? MPI_DISTRIBUTE_BLOCK
                      : d == ABI_CYCLIC ? MPI_DISTRIBUTE_CYCLIC
                      : d == ABI_NONE   ? MPI_DISTRIBUTE_NONE
                                        : -1;
        if (distribs[i] < 0) {
            rc = refuse(b, MPI_ERR_ARG, "distribution %d of dimension %d is unknown", d, i);
            goto out;
        }
        if (dargs[i] == ABI_DFLT_DARG) dargs[i] = MPI_DISTRIBUTE_DFLT_DARG;
    }
#if LARGE
    if (b->ints) {
        int *g = int_array(gsizes, ndims);
        rc = g ? MPI_Type_create_darray(size, rank, ndims, g, distribs, dargs, psizes, order, old, out)
               : MPI_ERR_NO_MEM;
        free(g);
    } else
#endif
        rc = C(MPI_Type_create_darray)(size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                                       old, out);
    if (rc) rc = real_refused(b, rc);
out:
    free(gsizes), free(distribs), free(dargs), free(psizes);
    return rc;
}

/* Node n made with the real constructor of its kind into *out (which the
 * caller frees); its old types are made already (old[]). */
/* The int constructors under MPI 4, for a build with `ints` (its counts
 * checked to fit by count_of): arrays of counts converted. */
#if LARGE
static int *int_array(const real_count *a, int64_t n)
{
    int *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    for (int64_t i = 0; out && i < n; i++)
        out[i] = (int)a[i];
    return out;
}
static MPI_Aint *aint_array(const real_disp *a, int64_t n)
{
    MPI_Aint *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    for (int64_t i = 0; out && i < n; i++)
        out[i] = (MPI_Aint)a[i];
    return out;
}
static int small_ctor(uint32_t kind, real_count count, real_count len, real_count stride,
                      real_disp hstride, const real_count *lens, const real_count *idx,
                      const real_disp *disps, const MPI_Datatype *types, MPI_Datatype old,
                      MPI_Datatype *out)
{
    int n = (int)count, rc = MPI_ERR_NO_MEM;
    int *l = lens ? int_array(lens, n) : NULL, *x = idx ? int_array(idx, n) : NULL;
    MPI_Aint *d = disps ? aint_array(disps, n) : NULL;
    if ((lens && !l) || (idx && !x) || (disps && !d)) goto out;
    switch (kind) {
    case MPCR_TYPE_CONTIGUOUS: rc = MPI_Type_contiguous(n, old, out); break;
    case MPCR_TYPE_VECTOR: rc = MPI_Type_vector(n, (int)len, (int)stride, old, out); break;
    case MPCR_TYPE_HVECTOR: rc = MPI_Type_create_hvector(n, (int)len, (MPI_Aint)hstride, old, out); break;
    case MPCR_TYPE_INDEXED: rc = MPI_Type_indexed(n, l, x, old, out); break;
    case MPCR_TYPE_HINDEXED: rc = MPI_Type_create_hindexed(n, l, d, old, out); break;
    case MPCR_TYPE_INDEXED_BLOCK: rc = MPI_Type_create_indexed_block(n, (int)len, x, old, out); break;
    case MPCR_TYPE_HINDEXED_BLOCK: rc = MPI_Type_create_hindexed_block(n, (int)len, d, old, out); break;
    case MPCR_TYPE_STRUCT: rc = MPI_Type_create_struct(n, l, d, types, out); break;
    default: rc = MPI_ERR_ARG;
    }
out:
    free(l), free(x), free(d);
    return rc;
}
#define SMALL(kind, count, len, stride, hstride, lens, idx, disps, types, old)                     \
    b->ints ? small_ctor(kind, count, len, stride, hstride, lens, idx, disps, types, old, out) :
#else
#define SMALL(...)
#endif

static int construct(struct build *b, const struct node *n, const MPI_Datatype *old,
                     MPI_Datatype *out)
{
    const int64_t *v = n->ints, *a = n->addrs;
    int64_t k = n->h.nints ? v[0] : 0;
    real_count count = 0, len = 0, stride = 0, *lens = NULL, *idx = NULL;
    real_disp *disps = NULL;
    MPI_Datatype *types = NULL;
    int rc = MPI_SUCCESS, order = 0;
    switch (n->h.kind) {
    case MPCR_TYPE_DUP:
        rc = MPI_Type_dup(old[0], out);
        break;
    case MPCR_TYPE_CONTIGUOUS:
        if (!(rc = count_of(b, k, "count", &count)))
            rc = SMALL(n->h.kind, count, 0, 0, 0, NULL, NULL, NULL, NULL, old[0])
                     C(MPI_Type_contiguous)(count, old[0], out);
        break;
    case MPCR_TYPE_VECTOR:
        if (!(rc = count_of(b, k, "count", &count)) &&
            !(rc = count_of(b, v[1], "block length", &len)) &&
            !(rc = count_of(b, v[2], "stride", &stride)))
            rc = SMALL(n->h.kind, count, len, stride, 0, NULL, NULL, NULL, NULL, old[0])
                     C(MPI_Type_vector)(count, len, stride, old[0], out);
        break;
    case MPCR_TYPE_HVECTOR:
        if (!(rc = count_of(b, k, "count", &count)) &&
            !(rc = count_of(b, v[1], "block length", &len)))
            rc = SMALL(n->h.kind, count, len, 0, (real_disp)a[0], NULL, NULL, NULL, NULL, old[0])
                     C(MPI_Type_create_hvector)(count, len, (real_disp)a[0], old[0], out);
        break;
    case MPCR_TYPE_INDEXED:
        if (!(rc = count_of(b, k, "count", &count)) &&
            !(rc = counts_of(b, v + 1, k, "block length", &lens)) &&
            !(rc = counts_of(b, v + 1 + k, k, "displacement", &idx)))
            rc = SMALL(n->h.kind, count, 0, 0, 0, lens, idx, NULL, NULL, old[0])
                     C(MPI_Type_indexed)(count, lens, idx, old[0], out);
        break;
    case MPCR_TYPE_HINDEXED:
        if (!(rc = count_of(b, k, "count", &count)) &&
            !(rc = counts_of(b, v + 1, k, "block length", &lens)) &&
            !(rc = disps_of(b, a, k, &disps)))
            rc = SMALL(n->h.kind, count, 0, 0, 0, lens, NULL, disps, NULL, old[0])
                     C(MPI_Type_create_hindexed)(count, lens, disps, old[0], out);
        break;
    case MPCR_TYPE_INDEXED_BLOCK:
        if (!(rc = count_of(b, k, "count", &count)) &&
            !(rc = count_of(b, v[1], "block length", &len)) &&
            !(rc = counts_of(b, v + 2, k, "displacement", &idx)))
            rc = SMALL(n->h.kind, count, len, 0, 0, NULL, idx, NULL, NULL, old[0])
                     C(MPI_Type_create_indexed_block)(count, len, idx, old[0], out);
        break;
    case MPCR_TYPE_HINDEXED_BLOCK:
        if (!(rc = count_of(b, k, "count", &count)) &&
            !(rc = count_of(b, v[1], "block length", &len)) && !(rc = disps_of(b, a, k, &disps)))
            rc = SMALL(n->h.kind, count, len, 0, 0, NULL, NULL, disps, NULL, old[0])
                     C(MPI_Type_create_hindexed_block)(count, len, disps, old[0], out);
        break;
    case MPCR_TYPE_STRUCT: {
        /* MPI_LB and MPI_UB entries are left out: the node's bounds come
         * from the library (resized afterwards where they differ). */
        if ((rc = counts_of(b, v + 1, k, "block length", &lens)) ||
            (rc = disps_of(b, a, k, &disps)))
            break;
        if (!(types = malloc((size_t)(k ? k : 1) * sizeof *types))) {
            rc = refuse(b, MPI_ERR_NO_MEM, "no memory");
            break;
        }
        int64_t kept = 0;
        for (int64_t i = 0; i < k; i++) {
            if (old[i] == MPI_DATATYPE_NULL) continue; /* a marker */
            lens[kept] = lens[i], disps[kept] = disps[i], types[kept++] = old[i];
        }
        if (!(rc = count_of(b, kept, "count", &count)))
            rc = SMALL(n->h.kind, count, 0, 0, 0, lens, NULL, disps, types, MPI_DATATYPE_NULL)
                     C(MPI_Type_create_struct)(count, lens, disps, types, out);
        break;
    }
    case MPCR_TYPE_RESIZED:
        rc = MPI_Type_create_resized(old[0], (MPI_Aint)a[0], (MPI_Aint)a[1], out);
        break;
    case MPCR_TYPE_SUBARRAY: {
        real_count *sizes = NULL, *subs = NULL, *starts = NULL;
        int ndims = 0;
        if (!(rc = int_of(b, k, "ndims", &ndims)) && !(rc = order_of(b, v[3 * k + 1], &order)) &&
            !(rc = counts_of(b, v + 1, k, "size", &sizes)) &&
            !(rc = counts_of(b, v + 1 + k, k, "subsize", &subs)) &&
            !(rc = counts_of(b, v + 1 + 2 * k, k, "start", &starts)))
        {
#if LARGE
            if (b->ints) {
                int *zs = int_array(sizes, k), *ss = int_array(subs, k), *st = int_array(starts, k);
                rc = zs && ss && st ? MPI_Type_create_subarray(ndims, zs, ss, st, order, old[0], out)
                                    : MPI_ERR_NO_MEM;
                free(zs), free(ss), free(st);
            } else
#endif
                rc = C(MPI_Type_create_subarray)(ndims, sizes, subs, starts, order, old[0], out);
        }
        free(sizes), free(subs), free(starts);
        break;
    }
    case MPCR_TYPE_DARRAY:
        rc = darray(b, n, old[0], out);
        break;
    default:
        rc = refuse(b, MPI_ERR_ARG, "unknown constructor %u", n->h.kind);
    }
    free(lens), free(idx), free(disps), free(types);
    if (rc && !b->msg[0]) rc = real_refused(b, rc);
    return rc;
}

/* The copy of a definition parsed and built, node by node. built[i] is
 * node i's real type (MPI_DATATYPE_NULL for a marker), owned[i] whether it
 * is ours to free. */
static int build_def(struct build *b, const char *def, uint64_t bytes, MPI_Datatype *result)
{
    struct mpcr_type_def head;
    if (bytes < sizeof head) return refuse(b, MPI_ERR_ARG, "no definition");
    memcpy(&head, def, sizeof head);
    if (!head.nodes || head.nodes > (bytes - sizeof head) / sizeof(struct mpcr_type_node))
        return refuse(b, MPI_ERR_ARG, "%u nodes do not fit in %llu bytes", head.nodes,
                      (unsigned long long)bytes);
    MPI_Datatype *built = calloc(head.nodes, sizeof *built);
    char *owned = calloc(head.nodes, 1);
    int rc = MPI_SUCCESS;
    if (!built || !owned) {
        rc = refuse(b, MPI_ERR_NO_MEM, "no memory");
        goto out;
    }
    for (uint32_t i = 0; i < head.nodes; i++)
        built[i] = MPI_DATATYPE_NULL; /* a marker's stays so (MPICH's is not 0) */
    uint64_t at = sizeof head;
    for (uint32_t i = 0; i < head.nodes && !rc; i++) {
        struct node n;
        b->node = i, b->kind = MPCR_TYPE_KINDS;
        if (bytes - at < sizeof n.h) {
            rc = refuse(b, MPI_ERR_ARG, "the definition ends inside it");
            break;
        }
        memcpy(&n.h, def + at, sizeof n.h);
        b->kind = n.h.kind;
        at += sizeof n.h;
        uint64_t words = (uint64_t)n.h.nints + n.h.naddrs + n.h.ntypes;
        if (n.h.kind >= MPCR_TYPE_KINDS || (bytes - at) / 8 < words) {
            rc = refuse(b, MPI_ERR_ARG, "malformed: kind %u, %llu words", n.h.kind,
                        (unsigned long long)words);
            break;
        }
        n.ints = (const int64_t *)(def + at); /* 8-byte aligned: header and nodes are */
        n.addrs = n.ints + n.h.nints;
        n.types = (const uint64_t *)(n.addrs + n.h.naddrs);
        at += words * 8;
        if (!shape_ok(&n)) {
            rc = refuse(b, MPI_ERR_ARG, "malformed: %u integers, %u addresses, %u types", n.h.nints,
                        n.h.naddrs, n.h.ntypes);
            break;
        }
        MPI_Datatype *old = malloc((n.h.ntypes ? n.h.ntypes : 1) * sizeof *old);
        if (!old) {
            rc = refuse(b, MPI_ERR_NO_MEM, "no memory");
            break;
        }
        for (uint32_t j = 0; j < n.h.ntypes && !rc; j++) {
            if (n.types[j] >= i)
                rc = refuse(b, MPI_ERR_ARG, "type %u is not an earlier node", j);
            else if (built[n.types[j]] == MPI_DATATYPE_NULL && n.h.kind != MPCR_TYPE_STRUCT)
                rc = refuse(b, MPI_ERR_ARG, "MPI_LB or MPI_UB outside a struct");
            else
                old[j] = built[n.types[j]];
        }
        if (rc) {
            free(old);
            break;
        }
        if (n.h.kind == MPCR_TYPE_NAMED) {
            if (n.h.named == ID_LB || n.h.named == ID_UB) {
                free(old);
                continue; /* a marker: built[i] stays MPI_DATATYPE_NULL */
            }
            built[i] = predefined(n.h.named);
            if (built[i] == MPI_DATATYPE_NULL)
                rc = refuse(b, MPI_ERR_TYPE, "predefined type 0x%x is unknown to " MPI_NAME,
                            n.h.named);
        } else {
            rc = construct(b, &n, old, &built[i]);
            owned[i] = !rc;
        }
        free(old);
        if (rc) break;
        /* The library's bounds, where the real MPI's differ. */
        MPI_Count lb, extent;
        if ((rc = MPI_Type_get_extent_x(built[i], &lb, &extent))) {
            rc = real_refused(b, rc);
            break;
        }
        if (lb != n.h.lb || extent != n.h.extent) {
            MPI_Datatype r;
            if ((rc = MPI_Type_create_resized(built[i], (MPI_Aint)n.h.lb, (MPI_Aint)n.h.extent,
                                              &r))) {
                rc = real_refused(b, rc);
                break;
            }
            if (owned[i]) MPI_Type_free(&built[i]);
            built[i] = r, owned[i] = 1;
        }
    }
    if (!rc) {
        uint32_t top = head.nodes - 1;
        b->node = top;
        if (built[top] == MPI_DATATYPE_NULL) {
            rc = refuse(b, MPI_ERR_ARG, "a marker alone is no datatype");
        } else if (!owned[top] && (rc = MPI_Type_dup(built[top], &built[top]))) {
            rc = real_refused(b, rc);
        } else {
            owned[top] = 1;
            if ((rc = MPI_Type_commit(&built[top])))
                rc = real_refused(b, rc);
            else
                *result = built[top], owned[top] = 0; /* the caller's now */
        }
    }
out:
    /* The parts go: the real type keeps what it needs of them (MPI 4.0 5.1.9). */
    for (uint32_t i = 0; built && i < head.nodes; i++)
        if (owned && owned[i]) MPI_Type_free(&built[i]);
    free(built), free(owned);
    return rc;
}

int real_type_build(const char *def, uint64_t bytes, MPI_Datatype *out, char *msg, size_t cap)
{
    struct build b = {.kind = MPCR_TYPE_KINDS, .ints = 1};
    /* A predefined type is given as itself, not as a duplicate: Open MPI
     * 4.1's OMPIO mistakes a view of duplicated MPI_INTs (MPI_File_seek
     * from the end lands on etype 1 of 192; a native program shows it). */
    struct mpcr_type_def head;
    struct mpcr_type_node n;
    if (bytes == sizeof head + sizeof n) {
        memcpy(&head, def, sizeof head);
        memcpy(&n, def + sizeof head, sizeof n);
        MPI_Datatype t = head.nodes == 1 && n.kind == MPCR_TYPE_NAMED && n.named != ID_LB &&
                                 n.named != ID_UB
                             ? predefined(n.named)
                             : MPI_DATATYPE_NULL;
        MPI_Count lb, extent;
        if (t != MPI_DATATYPE_NULL && !MPI_Type_get_extent_x(t, &lb, &extent) && lb == n.lb &&
            extent == n.extent) {
            *out = t;
            return MPI_SUCCESS;
        }
    }
    int rc = build_def(&b, def, bytes, out);
    if (rc && msg) snprintf(msg, cap, "node %u: %s", b.node, b.msg);
    return rc;
}

/* Whether [offset, offset + bytes) is in the staging area: these calls use
 * no shared buffers (MPCR_ARG_DATA admits them). */
static int staged(uint64_t offset, uint64_t bytes)
{
    return in_staging(offset, bytes);
}

void op_type_define(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct build b = {.kind = MPCR_TYPE_KINDS};
    r->value = -1;
    if (!derived_handle(c->token)) {
        r->rc = error_class(MPI_ERR_TYPE);
        return;
    }
    if (!staged(c->offset, c->bytes)) {
        r->rc = error_class(MPI_ERR_BUFFER);
        return;
    }
    /* A copy: what is checked is what is built, whatever the program writes. */
    char *def = malloc(c->bytes ? c->bytes : 1);
    if (!def) {
        r->rc = error_class(MPI_ERR_NO_MEM);
        return;
    }
    memcpy(def, staging(c->offset), c->bytes);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = build_def(&b, def, c->bytes, &t);
    free(def);
    if (!rc && (rc = cache_put(c->token, t))) MPI_Type_free(&t);
    r->rc = error_class(rc);
    if (rc) {
        /* The explanation, for the library to show, in its range. */
        r->value = (int32_t)b.node;
        size_t n = strnlen(b.msg, sizeof b.msg - 1);
        if (c->bytes) {
            if (n > c->bytes - 1) n = c->bytes - 1;
            char *out = staging(c->offset);
            memcpy(out, b.msg, n);
            out[n] = 0;
        }
    }
}

void op_type_forget(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct entry *e = cache_find(c->token);
    r->rc = MPI_SUCCESS;
    r->flag = e != NULL;
    if (e) cache_drop(e);
}

/* Whether lo + a * b + c stays in int64 (*out) . */
static int span_end(int64_t lo, int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t m;
    return !__builtin_mul_overflow(a, b, &m) && !__builtin_add_overflow(lo, m, &m) &&
           !__builtin_add_overflow(m, c, out);
}

void op_type_pack(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct mpcr_type_pack p, *shared = staging(c->offset);
    r->value = 0;
    if (c->bytes < sizeof p || !staged(c->offset, sizeof p)) {
        r->rc = error_class(MPI_ERR_BUFFER);
        return;
    }
    memcpy(&p, shared, sizeof p);
    MPI_Datatype t = real_type(c->token);
    if (t == MPI_DATATYPE_NULL) {
        r->rc = error_class(MPI_ERR_TYPE);
        r->value = derived_handle(c->token) ? MPCR_TYPE_UNKNOWN : 0;
        return;
    }
    MPI_Count size, lb, extent, tlb, textent;
    int rc = MPI_Type_size_x(t, &size);
    if (!rc) rc = MPI_Type_get_extent_x(t, &lb, &extent);
    if (!rc) rc = MPI_Type_get_true_extent_x(t, &tlb, &textent);
    if (rc) {
        r->rc = error_class(rc);
        return;
    }
    p.size = size, p.lb = lb, p.extent = extent, p.true_lb = tlb, p.true_extent = textent;
    p.packed = 0;
    /* The elements' data inside [data, data + data_bytes), the packed
     * bytes inside [out, out + out_bytes), both in the staging area. */
    int64_t first, last, need;
    int ok = p.count >= 0 && staged(p.data, p.data_bytes) && staged(p.out, p.out_bytes);
    if (ok && p.count > 0 && size > 0) {
        int64_t n1 = p.count - 1;
        ok = span_end(p.origin + tlb, extent < 0 ? n1 : 0, extent, 0, &first) &&
             span_end(p.origin + tlb, extent < 0 ? 0 : n1, extent, textent, &last) &&
             !__builtin_mul_overflow(p.count, size, &need) && first >= 0 &&
             (uint64_t)last <= p.data_bytes && (uint64_t)need <= p.out_bytes;
    }
    if (!ok) {
        r->rc = error_class(MPI_ERR_ARG);
        memcpy(&shared->packed, &p.packed, sizeof p - offsetof(struct mpcr_type_pack, packed));
        return;
    }
    if (p.count > 0 && size > 0) {
        const char *in = (const char *)staging(p.data) + p.origin;
#if LARGE
        MPI_Count pos = 0;
        rc =
            MPI_Pack_c(in, p.count, t, staging(p.out), (MPI_Count)p.out_bytes, &pos, MPI_COMM_SELF);
#else
        int pos = 0;
        if (p.count > INT_MAX || p.out_bytes > INT_MAX) {
            r->rc = error_class(MPI_ERR_COUNT);
            return;
        }
        rc = MPI_Pack(in, (int)p.count, t, staging(p.out), (int)p.out_bytes, &pos, MPI_COMM_SELF);
#endif
        p.packed = (uint64_t)pos;
    }
    r->rc = error_class(rc);
    memcpy(&shared->packed, &p.packed, sizeof p - offsetof(struct mpcr_type_pack, packed));
}

void real_type_release(MPI_Datatype *t)
{
    int ni, na, nt, combiner;
    if (*t != MPI_DATATYPE_NULL && !MPI_Type_get_envelope(*t, &ni, &na, &nt, &combiner) &&
        combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}
