/* MPI_Pack, MPI_Unpack and their sizes (MPI 4.0 section 5.2), and the
 * portable "external32" representation (section 5.2.3): the packed form
 * with every basic value big-endian. The packed form is typemap's
 * (data in type-map order, no header), as MPICH's on one machine. */
#include "api_gen.h"
#include "comm/comm.h"
#include "dtype.h"
#include "env/errors.h"
#include "typemap.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of `count` elements of t, or -1 when that overflows. */
static int64_t packed_bytes(MPI_Count count, const struct mpcr_type *t)
{
    int64_t bytes;
    return __builtin_mul_overflow(count, t->size, &bytes) ? -1 : bytes;
}

int mpcr_impl_Pack_size(MPI_Count incount, const struct mpcr_type *t, struct mpcr_comm *comm,
                        MPI_Count *size)
{
    (void)comm;
    int64_t bytes = packed_bytes(incount, t);
    if (bytes < 0) return MPI_ERR_COUNT;
    *size = bytes;
    return MPI_SUCCESS;
}

/* Where `bytes` fit at *position in a buffer of `size` bytes. */
static int fits(MPI_Count position, int64_t bytes, MPI_Count size)
{
    return bytes >= 0 && position >= 0 && position <= size && bytes <= size - position;
}

int mpcr_impl_Pack(const void *inbuf, MPI_Count incount, const struct mpcr_type *t, void *outbuf,
                   MPI_Count outsize, MPI_Count *position, struct mpcr_comm *comm)
{
    (void)comm;
    int64_t bytes = packed_bytes(incount, t);
    if (!fits(*position, bytes, outsize)) return MPI_ERR_TRUNCATE;
    *position += mpcr_type_pack((char *)outbuf + *position, inbuf, incount, t, 0, bytes);
    return MPI_SUCCESS;
}

int mpcr_impl_Unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                     MPI_Count outcount, const struct mpcr_type *t, struct mpcr_comm *comm)
{
    (void)comm;
    int64_t bytes = packed_bytes(outcount, t);
    if (!fits(*position, bytes, insize)) return MPI_ERR_TRUNCATE;
    *position += mpcr_type_unpack(outbuf, (const char *)inbuf + *position, outcount, t, 0, bytes);
    return MPI_SUCCESS;
}

/* ---- external32 ---- */

/* The basic values of one element in type-map order, as runs of `n`
 * values of `unit` native bytes, each `ext` bytes big-endian in external32
 * (MPI_LONG: 8 and 4), sign-extended when `sign`. A run's kind is packed in
 * one integer: unit | ext << 8 | sign << 16. */
struct run {
    int64_t kind, n;
};
struct runs {
    struct run *v;
    int64_t len, cap;
};
#define KIND(unit, ext, sign) ((unit) | (ext) << 8 | (int64_t)(sign) << 16)
#define UNIT(k)               ((k)&0xff)
#define EXT(k)                (((k) >> 8) & 0xff)
#define SIGNED(k)             ((k) >> 16)
/* More runs than this for one element: the type is refused. */
#define MAX_RUNS (1 << 20)

static void append(struct runs *r, int64_t kind, int64_t n)
{
    if (n == 0) return;
    if (r->len && r->v[r->len - 1].kind == kind) {
        r->v[r->len - 1].n += n;
        return;
    }
    if (r->len == r->cap) {
        if (r->cap >= MAX_RUNS)
            mpcr_unsupported_feature("MPI_Pack_external of a type of over 2^20 mixed-size runs");
        r->cap = r->cap ? 2 * r->cap : 16;
        r->v = realloc(r->v, (size_t)r->cap * sizeof *r->v);
        if (!r->v) mpcr_fatal("out of memory packing for external32");
    }
    r->v[r->len++] = (struct run){kind, n};
}

/* The kind of every basic value of t, 0 when it has none, -1 when they
 * differ. Ends the job for the MINLOC pairs (MPICH cannot pack them in
 * external32 either). */
static int64_t common_kind(const struct mpcr_type *t)
{
    if (t->size == 0) return 0;
    MPI_Datatype h = mpcr_type_predefined_handle(t);
    if (h != MPI_DATATYPE_NULL) {
        int ext32;
        int64_t unit = mpcr_type_builtin_unit(h, &ext32);
        if (!unit) mpcr_unsupported_feature("external32 with the pair types (MPI_DOUBLE_INT...)");
        return KIND(unit, unit * ext32 / t->size, h == MPI_LONG);
    }
    int64_t kind = 0;
    for (int64_t i = 0; i < t->ntypes; i++) {
        int64_t k = common_kind(t->types[i]);
        if (k < 0 || (k && kind && k != kind)) return -1;
        if (k) kind = k;
    }
    return kind;
}

static void collect(struct runs *r, const struct mpcr_type *t)
{
    int64_t kind = common_kind(t);
    if (kind >= 0) {
        if (kind) append(r, kind, t->size / UNIT(kind));
        return;
    }
    if (t->combiner == MPCR_COMBINER_STRUCT) { /* ints: count, blocklengths... */
        for (int64_t i = 0; i < t->ntypes; i++)
            for (int64_t k = 0; k < t->ints[1 + i]; k++)
                collect(r, t->types[i]);
        return;
    }
    /* One old type, repeated: size(t) = copies * size(old). */
    const struct mpcr_type *old = t->types[0];
    for (int64_t k = 0; k < t->size / old->size; k++)
        collect(r, old);
}

/* One element's runs (whole elements merged when t has one kind), and the
 * external32 bytes of an element. */
static struct runs runs_of(const struct mpcr_type *t, int64_t *ext_size)
{
    struct runs r = {0};
    collect(&r, t);
    *ext_size = 0;
    for (int64_t i = 0; i < r.len; i++)
        *ext_size += EXT(r.v[i].kind) * r.v[i].n;
    return r;
}

/* Converts `count` elements between the native packed form and external32
 * (to_ext: native -> external32). Values keep their low-order bytes when
 * narrowed and are extended (with the sign, for MPI_LONG) when widened. */
static void convert(unsigned char *dst, const unsigned char *src, MPI_Count count,
                    const struct runs *r, bool to_ext)
{
    for (MPI_Count e = 0; e < count; e++)
        for (int64_t i = 0; i < r->len; i++) {
            int64_t k = r->v[i].kind, u = UNIT(k), x = EXT(k);
            int64_t from = to_ext ? u : x, to = to_ext ? x : u;
            for (int64_t v = 0; v < r->v[i].n; v++, src += from, dst += to) {
                /* little-endian native bytes b[0..u), big-endian ext bytes */
                for (int64_t j = 0; j < to; j++) {
                    int64_t sig = to_ext ? to - 1 - j : j; /* significance of byte j of dst */
                    int64_t at = to_ext ? sig : from - 1 - sig;
                    unsigned char fill =
                        SIGNED(k) && (to_ext ? src[u - 1] : src[0]) & 0x80 ? 0xff : 0;
                    dst[j] = sig < (to_ext ? u : x) ? src[at] : fill;
                }
            }
        }
}

/* external32 bytes of `count` elements of t, or -1 on overflow. */
static int64_t ext_bytes(MPI_Count count, const struct mpcr_type *t, struct runs *r)
{
    int64_t each, bytes;
    *r = runs_of(t, &each);
    return __builtin_mul_overflow(count, each, &bytes) ? -1 : bytes;
}

static int external32(const char *datarep)
{
    return datarep && !strcmp(datarep, "external32");
}

int mpcr_impl_Pack_external_size(const char *datarep, MPI_Count incount, const struct mpcr_type *t,
                                 MPI_Count *size)
{
    if (!external32(datarep)) return MPI_ERR_ARG;
    struct runs r;
    int64_t bytes = ext_bytes(incount, t, &r);
    free(r.v);
    if (bytes < 0) return MPI_ERR_COUNT;
    *size = bytes;
    return MPI_SUCCESS;
}

int mpcr_impl_Pack_external(const char *datarep, const void *inbuf, MPI_Count incount,
                            const struct mpcr_type *t, void *outbuf, MPI_Count outsize,
                            MPI_Count *position)
{
    if (!external32(datarep)) return MPI_ERR_ARG;
    struct runs r;
    int64_t bytes = ext_bytes(incount, t, &r), native = packed_bytes(incount, t);
    int err = fits(*position, bytes, outsize) && native >= 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    unsigned char *tmp = err || !native ? NULL : malloc((size_t)native);
    if (!err && native && !tmp) err = MPI_ERR_NO_MEM;
    if (!err && native) {
        mpcr_type_pack(tmp, inbuf, incount, t, 0, native);
        convert((unsigned char *)outbuf + *position, tmp, incount, &r, true);
    }
    if (!err) *position += bytes;
    free(tmp);
    free(r.v);
    return err;
}

int mpcr_impl_Unpack_external(const char datarep[], const void *inbuf, MPI_Count insize,
                              MPI_Count *position, void *outbuf, MPI_Count outcount,
                              const struct mpcr_type *t)
{
    if (!external32(datarep)) return MPI_ERR_ARG;
    struct runs r;
    int64_t bytes = ext_bytes(outcount, t, &r), native = packed_bytes(outcount, t);
    int err = fits(*position, bytes, insize) && native >= 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    unsigned char *tmp = err || !native ? NULL : malloc((size_t)native);
    if (!err && native && !tmp) err = MPI_ERR_NO_MEM;
    if (!err && native) {
        convert(tmp, (const unsigned char *)inbuf + *position, outcount, &r, false);
        mpcr_type_unpack(outbuf, tmp, outcount, t, 0, native);
    }
    if (!err) *position += bytes;
    free(tmp);
    free(r.v);
    return err;
}
