/* Real datatypes in the proxy, the library's side (docs/datatypes.md,
 * "Real datatypes in the proxy"). A datatype is defined in the proxy by
 * its constructor tree, as the library keeps it (typemap.h: each type's
 * combiner, integer and address arguments and old types), down to
 * predefined types named by their MPICH handles; shared parts are sent
 * once. The proxy builds the real MPI's type with the real constructors and
 * keeps it under the handle until the handle is destroyed (FORGET).
 *
 * Which proxy has a definition: the handle object records the proxy's
 * process id it was sent to (struct mpcr_dtype: real_proxy). After a
 * restart the new proxy has none, and mpcr.proxy_pid differs: the library
 * sends the definition again the first time the type is needed. Where a
 * new proxy has the old one's process id (another host), the proxy answers
 * MPCR_TYPE_UNKNOWN and the caller redefines. So nothing of this is in the
 * proxy's state file.
 *
 * MPCR_CHECK_REAL_TYPES=1 checks the equivalence at every commit. */
#include "real_type.h"
#include "channel.h"
#include "env/errors.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "runtime/handle.h"
#include "typemap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert((int)MPCR_TYPE_DARRAY == (int)MPCR_COMBINER_DARRAY &&
                   (int)MPCR_TYPE_STRUCT == (int)MPCR_COMBINER_STRUCT &&
                   (int)MPCR_TYPE_NAMED == (int)MPCR_COMBINER_NAMED,
               "the channel's constructors are numbered as the library's");

/* ---- the definition ---- */

/* The nodes of a definition: every type of the tree once, parts before
 * the types made of them (a hash of the types seen gives each its index). */
struct ser {
    const struct mpcr_type **node;
    uint32_t n, cap;
    const struct mpcr_type **key; /* open addressing, hcap a power of two */
    uint32_t *index, hcap;
    uint64_t words;
};

static uint32_t hash_slot(const struct ser *s, const struct mpcr_type *t)
{
    uintptr_t v = (uintptr_t)t;
    v ^= v >> 17, v *= 0x9e3779b97f4a7c15ull, v ^= v >> 29;
    return (uint32_t)v & (s->hcap - 1);
}

static int64_t seen(const struct ser *s, const struct mpcr_type *t)
{
    if (!s->hcap) return -1;
    for (uint32_t i = hash_slot(s, t);; i = (i + 1) & (s->hcap - 1)) {
        if (!s->key[i]) return -1;
        if (s->key[i] == t) return s->index[i];
    }
}

static int remember(struct ser *s, const struct mpcr_type *t)
{
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 16;
        const struct mpcr_type **n = realloc(s->node, cap * sizeof *n);
        if (!n) return -1;
        s->node = n, s->cap = cap;
    }
    if (2 * (s->n + 1) > s->hcap) { /* rehash at half full */
        uint32_t hcap = s->hcap ? 2 * s->hcap : 32;
        const struct mpcr_type **key = calloc(hcap, sizeof *key);
        uint32_t *index = calloc(hcap, sizeof *index);
        if (!key || !index) {
            free(key), free(index);
            return -1;
        }
        free(s->key), free(s->index);
        s->key = key, s->index = index, s->hcap = hcap;
        for (uint32_t j = 0; j < s->n; j++) {
            uint32_t i = hash_slot(s, s->node[j]);
            while (s->key[i])
                i = (i + 1) & (hcap - 1);
            s->key[i] = s->node[j], s->index[i] = j;
        }
    }
    uint32_t i = hash_slot(s, t);
    while (s->key[i])
        i = (i + 1) & (s->hcap - 1);
    s->key[i] = t, s->index[i] = s->n;
    s->node[s->n++] = t;
    return 0;
}

/* Whether t travels as a predefined type: *id its handle. The F90 types
 * (MPI_Type_create_f90_*) are the sized type they were made from. */
static int leaf(const struct mpcr_type *t, uint32_t *id)
{
    MPI_Datatype h = MPI_DATATYPE_NULL;
    switch (t->combiner) {
    case MPCR_COMBINER_NAMED:
        h = mpcr_type_predefined_handle(t);
        break;
    case MPCR_COMBINER_F90_REAL:
        h = t->size == 4 ? MPI_REAL4 : MPI_REAL8;
        break;
    case MPCR_COMBINER_F90_COMPLEX:
        h = t->size == 8 ? MPI_COMPLEX8 : MPI_COMPLEX16;
        break;
    case MPCR_COMBINER_F90_INTEGER:
        h = t->size == 1   ? MPI_INTEGER1
            : t->size == 2 ? MPI_INTEGER2
            : t->size == 4 ? MPI_INTEGER4
                           : MPI_INTEGER8;
        break;
    default:
        return 0;
    }
    *id = (uint32_t)h;
    return 1;
}

/* Adds t and its parts (first). -1: no memory, or a type without a name. */
static int collect(struct ser *s, const struct mpcr_type *t)
{
    uint32_t id;
    if (seen(s, t) >= 0) return 0;
    if (leaf(t, &id)) {
        if (id == (uint32_t)MPI_DATATYPE_NULL) return -1;
    } else {
        for (int64_t j = 0; j < t->ntypes; j++)
            if (collect(s, t->types[j])) return -1;
        s->words += (uint64_t)(t->nints + t->naddrs + t->ntypes);
    }
    return remember(s, t);
}

static void ser_free(struct ser *s)
{
    free(s->node), free(s->key), free(s->index);
}

/* The definition written at p (room checked by the caller). */
static void write_def(const struct ser *s, char *p)
{
    struct mpcr_type_def head = {.nodes = s->n};
    memcpy(p, &head, sizeof head);
    p += sizeof head;
    for (uint32_t i = 0; i < s->n; i++) {
        const struct mpcr_type *t = s->node[i];
        struct mpcr_type_node n = {.lb = t->lb, .extent = t->extent};
        uint32_t id;
        if (leaf(t, &id)) {
            n.kind = MPCR_TYPE_NAMED, n.named = id;
        } else {
            n.kind = (uint32_t)t->combiner;
            n.nints = (uint32_t)t->nints, n.naddrs = (uint32_t)t->naddrs,
            n.ntypes = (uint32_t)t->ntypes;
        }
        memcpy(p, &n, sizeof n);
        p += sizeof n;
        if (n.kind == MPCR_TYPE_NAMED) continue;
        memcpy(p, t->ints, (size_t)t->nints * 8);
        p += t->nints * 8;
        memcpy(p, t->addrs, (size_t)t->naddrs * 8);
        p += t->naddrs * 8;
        for (int64_t j = 0; j < t->ntypes; j++) {
            uint64_t k = (uint64_t)seen(s, t->types[j]);
            memcpy(p, &k, 8);
            p += 8;
        }
    }
}

int mpcr_real_type_def(const struct mpcr_type *t, char **out, uint64_t *bytes)
{
    struct ser s = {0};
    int err = collect(&s, t) ? MPI_ERR_TYPE : MPI_SUCCESS;
    uint64_t n = sizeof(struct mpcr_type_def) + (uint64_t)s.n * sizeof(struct mpcr_type_node) +
                 s.words * 8;
    char *p = err ? NULL : malloc(n);
    if (!err && !p) err = MPI_ERR_NO_MEM;
    if (!err) {
        write_def(&s, p);
        *out = p, *bytes = n;
    }
    ser_free(&s);
    return err;
}

/* A line of the check's (a summary, a refusal, a difference): on stderr,
 * or appended to the file MPCR_CHECK_REAL_TYPES_SUMMARY names (a test
 * suite that judges a program's output: scripts/check_real_types.sh). */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    char line[1536];
    int n = snprintf(line, sizeof line, "mpcr: rank %d (%s): ", mpcr.rank,
                     program_invocation_short_name);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    const char *path = getenv("MPCR_CHECK_REAL_TYPES_SUMMARY");
    int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : 2;
    if (fd < 0) fd = 2;
    while (write(fd, line, (size_t)n) < 0 && errno == EINTR) {
    }
    if (fd != 2) close(fd);
}

/* A difference: noted (where the summary goes to a file), then the job ends. */
static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *path = getenv("MPCR_CHECK_REAL_TYPES_SUMMARY");
    if (path && *path) note("%s", msg);
    mpcr_fatal("%s", msg);
}

/* The proxy's explanation of a refusal (at most this long). */
#define MESSAGE_ROOM 256

static char refusal[MESSAGE_ROOM];

/* Sends d's definition. MPI_SUCCESS, or the proxy's error class with its
 * explanation in `refusal`. */
static int define(struct mpcr_dtype *d)
{
    struct ser s = {0};
    refusal[0] = 0;
    if (collect(&s, d->t)) {
        ser_free(&s);
        snprintf(refusal, sizeof refusal, "no memory, or a part without a name");
        return MPI_ERR_NO_MEM;
    }
    uint64_t bytes = sizeof(struct mpcr_type_def) + (uint64_t)s.n * sizeof(struct mpcr_type_node) +
                     s.words * 8,
             off;
    if (bytes < MESSAGE_ROOM) bytes = MESSAGE_ROOM;
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) {
        ser_free(&s);
        return err;
    }
    write_def(&s, mpcr_staging_ptr(off));
    ser_free(&s);
    pid_t to = mpcr.proxy_pid; /* a restart during the call: sent again later, no harm */
    struct mpcr_call *c = mpcr_call_begin(MPCR_OP_TYPE_DEFINE);
    c->token = mpcr_obj_handle(d), c->offset = off, c->bytes = bytes;
    const struct mpcr_reply *r = mpcr_call_finish();
    err = r->rc;
    if (err) {
        const char *msg = mpcr_staging_ptr(off);
        snprintf(refusal, sizeof refusal, "%.*s", (int)strnlen(msg, MESSAGE_ROOM - 1), msg);
    } else {
        d->real_proxy = to;
    }
    mpcr_staging_free(off);
    return err;
}

static void describe(const struct mpcr_type *t, char **p, char *end, int depth);

/* A refusal, on stderr (a program whose types this MPI cannot build,
 * Open MPI's int counts, learns why). */
static void report_refusal(MPI_Datatype h, int err)
{
    char made[400] = "", *at = made;
    const struct mpcr_type *t = mpcr_type_get(h);
    if (t) describe(t, &at, made + sizeof made, 0);
    note("MPCR real datatypes: the proxy cannot build datatype 0x%x (%s): %s (error class %d)",
         (unsigned)h, made, refusal[0] ? refusal : "(no reason given)", err);
}

int mpcr_real_type_redefine(MPI_Datatype h)
{
    struct mpcr_dtype *d = mpcr_dtype_get(h);
    if (!d) return MPI_ERR_TYPE;
    int err = define(d);
    if (err) report_refusal(h, err);
    return err;
}

/* Definitions sent again: to a new proxy (a restart), or to one that let
 * the type go (MPCR_REAL_TYPES_MAX); counted for MPCR_CHECK_REAL_TYPES. */
static unsigned long defined_again;

int mpcr_real_type_id(MPI_Datatype h, uint32_t *id)
{
    *id = (uint32_t)h;
    if (mpcr_type_is_predefined(h)) return mpcr_type_get(h) ? MPI_SUCCESS : MPI_ERR_TYPE;
    struct mpcr_dtype *d = mpcr_dtype_get(h);
    if (!d) return MPI_ERR_TYPE;
    if (d->real_proxy == mpcr.proxy_pid) return MPI_SUCCESS;
    if (d->real_proxy) defined_again++;
    return mpcr_real_type_redefine(h);
}

void mpcr_real_type_forget(struct mpcr_dtype *d)
{
    if (!d->real_proxy || d->real_proxy != mpcr.proxy_pid || !mpcr.initialized || mpcr.finalized)
        return;
    d->real_proxy = 0;
    struct mpcr_call *c = mpcr_call_begin(MPCR_OP_TYPE_FORGET);
    c->token = mpcr_obj_handle(d);
    mpcr_call_finish();
}

/* ---- MPCR_CHECK_REAL_TYPES ---- */

static struct {
    int mode; /* -1: not read yet */
    unsigned long types, packs, refused, large, true_bounds;
} check = {-1, 0, 0, 0, 0, 0};

static void summary(void)
{
    note("MPCR_CHECK_REAL_TYPES: %lu datatypes built by the proxy, %lu packs equal to the "
         "library's, %lu refused, %lu too large to pack, %lu with other true bounds, %lu defined "
         "again",
         check.types, check.packs, check.refused, check.large, check.true_bounds, defined_again);
}

int mpcr_real_type_checking(void)
{
    if (check.mode < 0) {
        const char *v = getenv("MPCR_CHECK_REAL_TYPES");
        check.mode = v && *v && strcmp(v, "0") != 0;
        if (check.mode) atexit(summary);
    }
    return check.mode;
}

/* Elements packed at most in a check: larger spans are checked by their
 * bounds only. */
#define CHECK_SPAN_MAX (64ull << 20)

/* A pattern no displacement error packs alike: xorshift bytes. */
static void fill(unsigned char *p, uint64_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

/* The x87 long doubles: of each 16 bytes, 10 hold the value and 6 are
 * padding, which MPICH's pack (yaksa copies long double values) does not
 * carry. The check compares values: the padding's places in the packed
 * form are found by walking the type signature, as pack.c's external32
 * conversion does (every constructor but struct repeats its old type's
 * signature; a struct, each block's). */
static int ld_parts(uint32_t id)
{
    if (id == (uint32_t)MPI_LONG_DOUBLE || id == (uint32_t)MPI_REAL16 ||
        id == (uint32_t)MPI_LONG_DOUBLE_INT)
        return 1;
    if (id == (uint32_t)MPI_C_LONG_DOUBLE_COMPLEX || id == (uint32_t)MPI_CXX_LONG_DOUBLE_COMPLEX ||
        id == (uint32_t)MPI_COMPLEX32)
        return 2;
    return 0;
}

static int has_ld(const struct mpcr_type *t)
{
    uint32_t id;
    if (leaf(t, &id)) return ld_parts(id) > 0;
    for (int64_t i = 0; i < t->ntypes; i++)
        if (has_ld(t->types[i])) return 1;
    return 0;
}

/* Marks in m the padding bytes of `reps` elements of t packed from *pos. */
static void ld_mask(const struct mpcr_type *t, int64_t reps, unsigned char *m, uint64_t *pos)
{
    uint32_t id;
    if (t->size == 0 || !has_ld(t)) {
        *pos += (uint64_t)(reps * t->size);
        return;
    }
    if (leaf(t, &id)) {
        for (int64_t r = 0; r < reps; r++, *pos += (uint64_t)t->size)
            for (int k = 0; k < ld_parts(id); k++)
                memset(m + *pos + 16 * k + 10, 1, 6);
        return;
    }
    for (int64_t r = 0; r < reps; r++) {
        if (t->combiner == MPCR_COMBINER_STRUCT)
            for (int64_t i = 0; i < t->ntypes; i++)
                ld_mask(t->types[i], t->ints[1 + i], m, pos);
        else
            ld_mask(t->types[0], t->size / t->types[0]->size, m, pos);
    }
}

/* The first packed byte where a and b differ in value, or n. */
static uint64_t first_difference(const struct mpcr_type *t, int64_t count, const unsigned char *a,
                                 const unsigned char *b, uint64_t n)
{
    unsigned char *pad = has_ld(t) ? calloc(n + 16, 1) : NULL;
    uint64_t pos = 0, at = 0;
    if (pad) ld_mask(t, count, pad, &pos);
    while (at < n && (a[at] == b[at] || (pad && pad[at])))
        at++;
    free(pad);
    return at;
}

/* How t was made, as far as `room` goes: "vector(3, 1, 2, MPI_INT)". */
static const char *const combiner_name[] = {
    [MPCR_COMBINER_NAMED] = "named",
    [MPCR_COMBINER_DUP] = "dup",
    [MPCR_COMBINER_CONTIGUOUS] = "contiguous",
    [MPCR_COMBINER_VECTOR] = "vector",
    [MPCR_COMBINER_HVECTOR] = "hvector",
    [MPCR_COMBINER_INDEXED] = "indexed",
    [MPCR_COMBINER_HINDEXED] = "hindexed",
    [MPCR_COMBINER_INDEXED_BLOCK] = "indexed_block",
    [MPCR_COMBINER_HINDEXED_BLOCK] = "hindexed_block",
    [MPCR_COMBINER_STRUCT] = "struct",
    [MPCR_COMBINER_RESIZED] = "resized",
    [MPCR_COMBINER_SUBARRAY] = "subarray",
    [MPCR_COMBINER_DARRAY] = "darray",
    [MPCR_COMBINER_F90_REAL] = "f90_real",
    [MPCR_COMBINER_F90_COMPLEX] = "f90_complex",
    [MPCR_COMBINER_F90_INTEGER] = "f90_integer",
};

static void describe(const struct mpcr_type *t, char **p, char *end, int depth)
{
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (*p < end) *p += snprintf(*p, (size_t)(end - *p), __VA_ARGS__);                         \
        if (*p > end) *p = end;                                                                    \
    } while (0)
    uint32_t id;
    if (t->combiner == MPCR_COMBINER_NAMED && leaf(t, &id)) {
        const char *name = mpcr_type_builtin_name((MPI_Datatype)id);
        PUT("%s", name ? name : "?");
        return;
    }
    PUT("%s(", combiner_name[t->combiner]);
    int64_t shown = 0;
    for (int64_t i = 0; i < t->nints && shown < 8; i++, shown++)
        PUT("%s%lld", shown ? ", " : "", (long long)t->ints[i]);
    for (int64_t i = 0; i < t->naddrs && shown < 12; i++, shown++)
        PUT("%s%lld B", shown ? ", " : "", (long long)t->addrs[i]);
    if (t->nints + t->naddrs > shown) PUT(", ...");
    for (int64_t i = 0; i < t->ntypes && i < 3; i++) {
        PUT(", ");
        if (depth < 4)
            describe(t->types[i], p, end, depth + 1);
        else
            PUT("...");
    }
    if (t->ntypes > 3) PUT(", ...");
    PUT(")");
#undef PUT
}

/* The proxy packs `count` elements (0: only its bounds, in *res) of type
 * id, one element's data lying in [lo1, hi1) (the union of the library's
 * and the real type's true bounds); the library compares its own pack and
 * the bounds that must be equal (size, lb, extent). A difference ends the
 * job; an MPI error class where the check could not be made. */
static int check_count(MPI_Datatype h, uint32_t id, const struct mpcr_type *t, int64_t count,
                       int64_t lo1, int64_t hi1, struct mpcr_type_pack *res)
{
    int64_t n1 = count > 0 ? count - 1 : 0, step = n1 * t->extent;
    int64_t lo = lo1 + (step < 0 ? step : 0), hi = hi1 + (step > 0 ? step : 0);
    uint64_t span = t->size && count ? (uint64_t)(hi - lo) : 0,
             packed = (uint64_t)(count * t->size);
    uint64_t args = (sizeof(struct mpcr_type_pack) + 63) / 64 * 64, data_at = args,
             out_at = data_at + (span + 63) / 64 * 64, off;
    int err = mpcr_staging_alloc(out_at + packed + 1, &off);
    if (err) return err;
    char *base = mpcr_staging_ptr(off);
    fill((unsigned char *)base + data_at, span, (uint64_t)h * 3 + (uint64_t)count);
    memset(base + out_at, 0, packed);
    struct mpcr_type_pack p = {.data = off + data_at,
                               .data_bytes = span,
                               .origin = span ? -lo : 0,
                               .count = span ? count : 0,
                               .out = off + out_at,
                               .out_bytes = packed};
    memcpy(base, &p, sizeof p);
    unsigned char *mine = malloc(packed + 1);
    if (!mine) {
        mpcr_staging_free(off);
        return MPI_ERR_NO_MEM;
    }
    if (span) mpcr_type_pack(mine, base + data_at + p.origin, count, t, 0, INT64_MAX);
    const struct mpcr_reply *r = NULL;
    for (int tries = 0; tries < 2; tries++) {
        struct mpcr_call *c = mpcr_call_begin(MPCR_OP_TYPE_PACK);
        c->token = id, c->offset = off, c->bytes = sizeof p;
        r = mpcr_call_finish();
        if (!(r->rc && r->value == MPCR_TYPE_UNKNOWN) || tries) break;
        defined_again++; /* the proxy let it go (MPCR_REAL_TYPES_MAX), or a restart */
        if (mpcr_real_type_redefine(h)) break;
    }
    base = mpcr_staging_ptr(off); /* a redefinition may have moved the area */
    err = r->rc;
    memcpy(&p, base, sizeof p);
    *res = p;
    const char *what = NULL;
    uint64_t at = 0;
    if (err == MPI_SUCCESS || err == MPI_ERR_ARG) { /* the proxy's bounds came back */
        if (p.size != t->size)
            what = "size";
        else if (p.lb != t->lb || p.extent != t->extent)
            what = "lb or extent";
    }
    if (!what && err) {
        free(mine);
        mpcr_staging_free(off);
        fail("MPCR_CHECK_REAL_TYPES: the proxy could not pack %lld elements of datatype "
             "0x%x: error class %d",
             (long long)p.count, (unsigned)h, err);
    }
    if (!what && p.packed != (span ? packed : 0)) what = "number of bytes packed";
    if (!what && span &&
        (at = first_difference(t, count, mine, (unsigned char *)base + out_at, packed)) < packed)
        what = "packed bytes";
    if (what) {
        const struct mpcr_dtype *d = mpcr_dtype_get(h);
        char made[400], *at_made = made;
        describe(t, &at_made, made + sizeof made, 0);
        fail("MPCR_CHECK_REAL_TYPES: datatype 0x%x (%s, %s): the proxy's real datatype "
             "differs from the library's in its %s, %lld element(s): real size %lld lb %lld "
             "extent %lld true lb %lld true extent %lld packed %llu; library size %lld lb %lld "
             "extent %lld true lb %lld true extent %lld packed %llu; first packed byte "
             "differing: %llu",
             (unsigned)h, d && d->name[0] ? d->name : "unnamed", made, what, (long long)count,
             (long long)p.size, (long long)p.lb, (long long)p.extent, (long long)p.true_lb,
             (long long)p.true_extent, (unsigned long long)p.packed, (long long)t->size,
             (long long)t->lb, (long long)t->extent, (long long)t->true_lb,
             (long long)(t->true_ub - t->true_lb), (unsigned long long)(span ? packed : 0),
             (unsigned long long)at);
    }
    if (span) check.packs++;
    free(mine);
    mpcr_staging_free(off);
    return MPI_SUCCESS;
}

int mpcr_real_type_check(MPI_Datatype h)
{
    const struct mpcr_type *t = mpcr_type_get(h);
    if (!t) return MPI_ERR_TYPE;
    if (mpcr_type_is_predefined(h)) return MPI_SUCCESS;
    uint32_t id;
    int err = mpcr_real_type_id(h, &id);
    if (err == MPI_ERR_COUNT) { /* an MPI without large counts: reported, not an error of mpcr */
        check.refused++;
        return MPI_SUCCESS;
    }
    if (err)
        fail("MPCR_CHECK_REAL_TYPES: the proxy refused datatype 0x%x: %s", (unsigned)h, refusal);
    check.types++;
    /* The real type's bounds first: where its true bounds differ (MPICH
     * 4.0.2 counts an empty part's displacement in a struct's true extent:
     * MPICH's datatype/struct_derived_zeros), the data staged covers both,
     * and the difference is noted, not fatal: the type map is the same
     * when the packed bytes are. */
    struct mpcr_type_pack real;
    if ((err = check_count(h, id, t, 0, 0, 0, &real))) return err;
    int64_t lo1 = t->true_lb, hi1 = t->true_ub;
    if (t->size && (real.true_lb != t->true_lb || real.true_extent != t->true_ub - t->true_lb)) {
        check.true_bounds++;
        note("MPCR_CHECK_REAL_TYPES: datatype 0x%x: the real datatype's true bounds [%lld, %lld) "
             "are not the library's [%lld, %lld)",
             (unsigned)h, (long long)real.true_lb, (long long)(real.true_lb + real.true_extent),
             (long long)t->true_lb, (long long)t->true_ub);
        if (real.true_lb < lo1) lo1 = real.true_lb;
        if (real.true_lb + real.true_extent > hi1) hi1 = real.true_lb + real.true_extent;
    }
    for (int64_t count = 1; count <= 3; count++) {
        int64_t step = (count - 1) * (t->extent < 0 ? -t->extent : t->extent);
        if ((uint64_t)(hi1 - lo1) + (uint64_t)step > CHECK_SPAN_MAX ||
            (uint64_t)(count * t->size) > CHECK_SPAN_MAX) {
            if (count == 1) check.large++; /* checked by its bounds only */
            break;
        }
        if ((err = check_count(h, id, t, count, lo1, hi1, &real))) break;
    }
    return err;
}
