/* MPI_Pack, MPI_Unpack and their sizes (MPI 4.0 section 5.2), and the
 * portable "external32" representation (section 5.2.3): the packed form
 * with every basic value big-endian. The packed form is typemap's
 * (data in type-map order, no header), as MPICH's on one machine. */
#include "api_gen.h"
#include "dtype.h"

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
 * values of `unit` bytes (swapped as one). */
struct run {
    int64_t unit, n;
};
struct runs {
    struct run *v;
    int64_t len, cap;
};
/* More runs than this for one element: the type is refused. */
#define MAX_RUNS (1 << 20)

static void append(struct runs *r, int64_t unit, int64_t n)
{
    if (n == 0) return;
    if (r->len && r->v[r->len - 1].unit == unit) {
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
    r->v[r->len++] = (struct run){unit, n};
}

/* The swap unit shared by every basic value of t, 0 when it has none, -1
 * when they differ. Ends the job for a basic type whose external32 size is
 * not its native one (MPI_LONG, MPI_WCHAR...) or that MPICH cannot pack
 * in external32 (the MINLOC pairs). */
static int64_t common_unit(const struct mpcr_type *t)
{
    if (t->size == 0) return 0;
    MPI_Datatype h = mpcr_type_predefined_handle(t);
    if (h != MPI_DATATYPE_NULL) {
        int same;
        int unit = mpcr_type_builtin_unit(h, &same);
        if (!unit || !same)
            mpcr_unsupported_feature("external32 with a basic type whose external32 size is not "
                                     "its native size (MPI_LONG, MPI_WCHAR, the pair types)");
        return unit;
    }
    int64_t unit = 0;
    for (int64_t i = 0; i < t->ntypes; i++) {
        int64_t u = common_unit(t->types[i]);
        if (u < 0 || (u && unit && u != unit)) return -1;
        if (u) unit = u;
    }
    return unit;
}

static void collect(struct runs *r, const struct mpcr_type *t)
{
    int64_t unit = common_unit(t);
    if (unit >= 0) {
        if (unit) append(r, unit, t->size / unit);
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

/* Reverses the byte order of every basic value in `count` packed elements. */
static void swap_packed(unsigned char *p, MPI_Count count, const struct mpcr_type *t)
{
    struct runs r = {0};
    collect(&r, t);
    if (r.len == 1) { /* one unit throughout: the elements are one run */
        r.v[0].n *= count;
        count = 1;
    }
    for (MPI_Count e = 0; e < count; e++)
        for (int64_t i = 0; i < r.len; i++) {
            int64_t u = r.v[i].unit;
            for (int64_t k = 0; k < r.v[i].n; k++, p += u)
                for (int64_t a = 0, b = u - 1; a < b; a++, b--) {
                    unsigned char c = p[a];
                    p[a] = p[b], p[b] = c;
                }
        }
    free(r.v);
}

static int external32(const char *datarep)
{
    return datarep && !strcmp(datarep, "external32");
}

int mpcr_impl_Pack_external_size(const char *datarep, MPI_Count incount, const struct mpcr_type *t,
                                 MPI_Count *size)
{
    if (!external32(datarep)) return MPI_ERR_ARG;
    if (t->size) common_unit(t); /* refuses the types whose sizes differ */
    int64_t bytes = packed_bytes(incount, t);
    if (bytes < 0) return MPI_ERR_COUNT;
    *size = bytes;
    return MPI_SUCCESS;
}

int mpcr_impl_Pack_external(const char *datarep, const void *inbuf, MPI_Count incount,
                            const struct mpcr_type *t, void *outbuf, MPI_Count outsize,
                            MPI_Count *position)
{
    if (!external32(datarep)) return MPI_ERR_ARG;
    int64_t bytes = packed_bytes(incount, t);
    if (!fits(*position, bytes, outsize)) return MPI_ERR_TRUNCATE;
    unsigned char *dst = (unsigned char *)outbuf + *position;
    mpcr_type_pack(dst, inbuf, incount, t, 0, bytes);
    if (bytes) swap_packed(dst, incount, t);
    *position += bytes;
    return MPI_SUCCESS;
}

int mpcr_impl_Unpack_external(const char datarep[], const void *inbuf, MPI_Count insize,
                              MPI_Count *position, void *outbuf, MPI_Count outcount,
                              const struct mpcr_type *t)
{
    if (!external32(datarep)) return MPI_ERR_ARG;
    int64_t bytes = packed_bytes(outcount, t);
    if (!fits(*position, bytes, insize)) return MPI_ERR_TRUNCATE;
    if (bytes) {
        unsigned char *tmp = malloc((size_t)bytes);
        if (!tmp) return MPI_ERR_NO_MEM;
        memcpy(tmp, (const unsigned char *)inbuf + *position, (size_t)bytes);
        swap_packed(tmp, outcount, t);
        mpcr_type_unpack(outbuf, tmp, outcount, t, 0, bytes);
        free(tmp);
    }
    *position += bytes;
    return MPI_SUCCESS;
}
