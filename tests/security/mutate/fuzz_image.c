/* Mutation fuzzing of the restorer's image reader (mutate.h): copies of a
 * valid image, damaged, are given to `mpcr-restore --check`, which reads
 * and checks everything (header, tables, every region's data stream) and
 * changes nothing. Besides plain damage, header fields, table entries and
 * data-stream extents are set to extreme values with every checksum made
 * right again (docs/image-format.md: a checksum guards against damage, not
 * a crafted file), so that the checks behind the checksums are tried.
 * Pinned cases (pin() below) replay, every run, what such damage once got
 * accepted: a page size of 1, mm.start_code below vm.mmap_min_addr, a
 * mapped file's path of length 0 or not the string its length says.
 *   fuzz_image RESTORER IMAGE SCRATCH_DIR   (MUTATE_ITERATIONS, MUTATE_SEED) */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "image.h"
#include "mutate.h"

enum kind { FLIP, TRUNCATE, RANDOM, HEADER, TABLE, EXTENT, RANDOM_FIXED, FLIP_FIXED, KINDS };
static const char *const kind_name[KINDS] = {"bit flips",      "truncated",     "random bytes",
                                             "header fields",  "table entries", "extents",
                                             "random bytes with checksums right",
                                             "bit flips with checksums right"};

#define F(type, field) {#field, offsetof(type, field), sizeof(((type *)0)->field)}
static const struct mutate_field header_fields[] = {
    F(struct mpcr_img_header, version),        F(struct mpcr_img_header, header_size),
    F(struct mpcr_img_header, page_size),      F(struct mpcr_img_header, generation),
    F(struct mpcr_img_header, rank),           F(struct mpcr_img_header, nthreads),
    F(struct mpcr_img_header, cpu.xcr0),       F(struct mpcr_img_header, cpu.xsave_size),
    F(struct mpcr_img_header, vdso.vvar),      F(struct mpcr_img_header, vdso.vvar_len),
    F(struct mpcr_img_header, vdso.vclock),    F(struct mpcr_img_header, vdso.vdso),
    F(struct mpcr_img_header, vdso.vdso_len),  F(struct mpcr_img_header, mm.start_code),
    F(struct mpcr_img_header, mm.end_code),    F(struct mpcr_img_header, mm.brk),
    F(struct mpcr_img_header, mm.arg_end),     F(struct mpcr_img_header, mm.auxv_len),
    F(struct mpcr_img_header, table[0].off),   F(struct mpcr_img_header, table[0].len),
    F(struct mpcr_img_header, table[0].count), F(struct mpcr_img_header, table[1].off),
    F(struct mpcr_img_header, table[1].len),   F(struct mpcr_img_header, table[1].count),
    F(struct mpcr_img_header, table[2].off),   F(struct mpcr_img_header, table[2].len),
    F(struct mpcr_img_header, table[2].count), F(struct mpcr_img_header, table[3].off),
    F(struct mpcr_img_header, table[3].len),   F(struct mpcr_img_header, table[3].count),
    F(struct mpcr_img_header, table[4].off),   F(struct mpcr_img_header, table[4].len),
    F(struct mpcr_img_header, table[4].count), F(struct mpcr_img_header, cwd_str),
    F(struct mpcr_img_header, total_len),      F(struct mpcr_img_header, umask),
    F(struct mpcr_img_header, rlimit[7][0]),   F(struct mpcr_img_header, itimer[0][1]),
    F(struct mpcr_img_header, sig_pending),    F(struct mpcr_img_header, job_id),
    F(struct mpcr_img_header, track),          F(struct mpcr_img_header, why_full),
    F(struct mpcr_img_header, chain_len),      F(struct mpcr_img_header, chain[0]),
};
static const struct mutate_field thread_fields[] = {
    F(struct mpcr_img_thread, ctx.rsp), F(struct mpcr_img_thread, ctx.rip),
    F(struct mpcr_img_thread, fs_base), F(struct mpcr_img_thread, old_tid),
    F(struct mpcr_img_thread, is_main),
};
static const struct mutate_field region_fields[] = {
    F(struct mpcr_img_region, start),    F(struct mpcr_img_region, end),
    F(struct mpcr_img_region, file_off), F(struct mpcr_img_region, data_off),
    F(struct mpcr_img_region, data_len), F(struct mpcr_img_region, f_size),
    F(struct mpcr_img_region, prot),     F(struct mpcr_img_region, kind),
    F(struct mpcr_img_region, flags),    F(struct mpcr_img_region, path_str),
    F(struct mpcr_img_region, path_len), F(struct mpcr_img_region, f_ctime_sec),
    F(struct mpcr_img_region, f_uid),    F(struct mpcr_img_region, f_mode),
    F(struct mpcr_img_region, f_ino),
};
static const struct mutate_field file_fields[] = {
    F(struct mpcr_img_file, fd),       F(struct mpcr_img_file, shares_with),
    F(struct mpcr_img_file, flags),    F(struct mpcr_img_file, pos),
    F(struct mpcr_img_file, path_str), F(struct mpcr_img_file, path_len),
    F(struct mpcr_img_file, mode),
};
#define COUNT(a) (sizeof a / sizeof a[0])
static const struct {
    const struct mutate_field *f;
    size_t n, entry;
} tables[] = {
    [MPCR_T_THREADS] = {thread_fields, COUNT(thread_fields), sizeof(struct mpcr_img_thread)},
    [MPCR_T_REGIONS] = {region_fields, COUNT(region_fields), sizeof(struct mpcr_img_region)},
    [MPCR_T_FILES] = {file_fields, COUNT(file_fields), sizeof(struct mpcr_img_file)},
};

static struct mpcr_img_header *header(unsigned char *img)
{
    return (struct mpcr_img_header *)img;
}

/* Whether [off, off + len) lies inside the copy. */
static int inside(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* Makes every checksum that can be computed right again: each region's
 * data, each table, the header (in that order: each covers the one before). */
static void fix_checksums(unsigned char *img, size_t size)
{
    struct mpcr_img_header *h = header(img);
    struct mpcr_img_table *rt = &h->table[MPCR_T_REGIONS];
    if (inside(rt->off, rt->len, size)) /* (a damaged offset need not be aligned: copies) */
        for (uint64_t at = rt->off; at + sizeof(struct mpcr_img_region) <= rt->off + rt->len;
             at += sizeof(struct mpcr_img_region)) {
            struct mpcr_img_region r;
            memcpy(&r, img + at, sizeof r);
            if (r.data_len && inside(r.data_off, r.data_len, size))
                r.data_crc = mpcr_crc32c(0, img + r.data_off, r.data_len);
            memcpy(img + at, &r, sizeof r);
        }
    for (int t = 0; t < MPCR_T_COUNT; t++)
        if (inside(h->table[t].off, h->table[t].len, size))
            h->table[t].crc = mpcr_crc32c(0, img + h->table[t].off, h->table[t].len);
    h->header_crc = 0;
    h->header_crc = mpcr_crc32c(0, img, MPCR_IMG_HEADER_SIZE);
}

/* Sets a field of an entry of the thread, region or file table. */
static void mutate_table(struct mutate_rng *g, unsigned char *img, size_t size, char *what,
                         size_t cap)
{
    int t = (int)mutate_below(g, 3);
    const struct mpcr_img_table *d = &header(img)->table[t];
    if (!inside(d->off, d->len, size) || d->len < tables[t].entry) return;
    uint64_t i = mutate_below(g, d->len / tables[t].entry);
    char where[64];
    snprintf(where, sizeof where, "table %d entry %llu: ", t, (unsigned long long)i);
    mutate_set_field(g, img + d->off + i * tables[t].entry, &tables[t].f[mutate_below(g, tables[t].n)],
              what, cap, where);
}

/* Sets a field of one extent of a region's data stream. */
static void mutate_extent(struct mutate_rng *g, unsigned char *img, size_t size, char *what,
                          size_t cap)
{
    const struct mpcr_img_table *rt = &header(img)->table[MPCR_T_REGIONS];
    if (!inside(rt->off, rt->len, size)) return;
    size_t n = rt->len / sizeof(struct mpcr_img_region), with_data = 0;
    struct mpcr_img_region r;
    for (size_t i = 0; i < n; i++) {
        memcpy(&r, img + rt->off + i * sizeof r, sizeof r);
        with_data += r.data_len != 0;
    }
    if (!with_data) return;
    uint64_t pick = mutate_below(g, with_data), i = 0;
    for (;; i++) {
        memcpy(&r, img + rt->off + i * sizeof r, sizeof r);
        if (r.data_len && !pick--) break;
    }
    uint64_t at[64], nat = 0, off = r.data_off, end = r.data_off + r.data_len;
    while (nat < 64 && off + sizeof(struct mpcr_img_extent) <= end && end <= size) {
        struct mpcr_img_extent e;
        memcpy(&e, img + off, sizeof e);
        at[nat++] = off;
        if (e.page == ~0ull) break;
        off += sizeof e + (e.zero != MPCR_EXT_DATA ? 0 : (uint64_t)e.count * MPCR_PAGE); /* zero, ref: no bytes */
    }
    if (!nat) return;
    static const struct mutate_field ext[] = {F(struct mpcr_img_extent, page),
                                       F(struct mpcr_img_extent, count),
                                       F(struct mpcr_img_extent, zero)};
    uint64_t e = at[mutate_below(g, nat)];
    char where[64];
    snprintf(where, sizeof where, "region %llu extent at %#llx: ", (unsigned long long)i,
             (unsigned long long)e);
    mutate_set_field(g, img + e, &ext[mutate_below(g, 3)], what, cap, where);
}

static void damage(struct mutate_rng *g, int kind, unsigned char *img, size_t len, size_t *size,
                   char *what, size_t cap)
{
    switch ((enum kind)kind) {
    case FLIP:
    case FLIP_FIXED: mutate_flip_bits(g, img, len); break;
    case RANDOM:
    case RANDOM_FIXED: mutate_random_bytes(g, img, len); break;
    case TRUNCATE: mutate_truncate(g, img, len, size, 1, what, cap); break; /* or trailing bytes */
    case HEADER:
        mutate_set_field(g, img, &header_fields[mutate_below(g, COUNT(header_fields))], what, cap,
                         "header ");
        break;
    case TABLE: mutate_table(g, img, len, what, cap); break;
    case EXTENT: mutate_extent(g, img, len, what, cap); break;
    case KINDS: break;
    }
}

static void fix(unsigned char *img, size_t size)
{
    if (size >= MPCR_IMG_HEADER_SIZE) fix_checksums(img, size);
}

/* The pinned cases: what the drawn damage once got accepted (docs/reliability.md,
 * 2026-12-01), checksums made right (the driver does), each to be refused. */
static uint64_t min_addr(void)
{
    unsigned long long v = 65536; /* the restorer's own fallback */
    FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");
    if (f) {
        if (fscanf(f, "%llu", &v) != 1) v = 65536;
        fclose(f);
    }
    return v;
}

/* The first region that maps a file, with a path; NULL when none. */
static struct mpcr_img_region *file_region(unsigned char *img, size_t size, uint64_t *i)
{
    const struct mpcr_img_table *rt = &header(img)->table[MPCR_T_REGIONS];
    if (!inside(rt->off, rt->len, size) || rt->off % 8) return NULL;
    struct mpcr_img_region *r = (struct mpcr_img_region *)(img + rt->off);
    for (*i = 0; *i < rt->len / sizeof *r; ++*i)
        if ((r[*i].kind == MPCR_R_FILE_PRIVATE || r[*i].kind == MPCR_R_FILE_SHARED) &&
            r[*i].path_len > 1)
            return &r[*i];
    return NULL;
}

/* The first extent of the first region with pages; NULL when none. */
static struct mpcr_img_extent *first_extent(unsigned char *img, size_t size)
{
    const struct mpcr_img_table *rt = &header(img)->table[MPCR_T_REGIONS];
    if (!inside(rt->off, rt->len, size)) return NULL;
    for (uint64_t at = rt->off; at + sizeof(struct mpcr_img_region) <= rt->off + rt->len;
         at += sizeof(struct mpcr_img_region)) {
        struct mpcr_img_region r;
        memcpy(&r, img + at, sizeof r);
        if (r.data_len > sizeof(struct mpcr_img_extent) && inside(r.data_off, r.data_len, size) && r.data_off % 8 == 0 &&
            ((struct mpcr_img_extent *)(img + r.data_off))->page != ~0ull) /* not just the end mark */
            return (struct mpcr_img_extent *)(img + r.data_off);
    }
    return NULL;
}

enum pinned {
    CHAIN_TOO_LONG,   /* an increment's chain longer than MPCR_MAX_CHAIN */
    REF_NO_CHAIN,     /* a ref extent in a full image */
    REF_BASE_MISSING, /* a ref to a generation whose image is not there */
    EXTENT_KIND,      /* an extent of no known kind */
    PAGE_SIZE_1,
    START_CODE_1,
    START_CODE_BELOW,
    PATH_EMPTY,
    PATH_SHORTER,
    PATH_SHIFTED,
    PINNED
};

static int pin(int c, unsigned char *img, size_t len, size_t *size, char *what, size_t cap)
{
    struct mpcr_img_header *h = header(img);
    *size = len;
    struct mpcr_img_extent *e = first_extent(img, len);
    switch ((enum pinned)c) {
    case CHAIN_TOO_LONG:
        snprintf(what, cap, "header chain_len = %d (was %u)", MPCR_MAX_CHAIN + 1, h->chain_len);
        h->chain_len = MPCR_MAX_CHAIN + 1;
        return 0;
    case REF_NO_CHAIN:
    case REF_BASE_MISSING:
    case EXTENT_KIND:
        if (!e) return snprintf(what, cap, "no region has data"), -1;
        if (c == REF_BASE_MISSING) h->chain_len = 1, h->chain[0] = h->generation + 1000;
        snprintf(what, cap, "first extent's kind = %#x (was %#x)%s", c == EXTENT_KIND ? 3u : MPCR_EXT_REF, e->zero,
                 c == REF_NO_CHAIN ? ", a ref in a full image" : c == REF_BASE_MISSING ? ", a ref to a missing generation" : "");
        e->zero = c == EXTENT_KIND ? 3u : MPCR_EXT_REF;
        return 0;
    case PAGE_SIZE_1:
        snprintf(what, cap, "header page_size = 1 (was %llu)", (unsigned long long)h->page_size);
        h->page_size = 1;
        return 0;
    case START_CODE_1:
    case START_CODE_BELOW: {
        uint64_t v = c == START_CODE_1 ? 1 : min_addr() - 1;
        snprintf(what, cap, "header mm.start_code = %#llx (was %#llx), below vm.mmap_min_addr",
                 (unsigned long long)v, (unsigned long long)h->mm.start_code);
        h->mm.start_code = v;
        return 0;
    }
    case PATH_EMPTY:
    case PATH_SHORTER:
    case PATH_SHIFTED: {
        uint64_t i;
        struct mpcr_img_region *r = file_region(img, len, &i);
        if (!r) return snprintf(what, cap, "no region maps a file"), -1;
        if (c == PATH_SHIFTED) {
            snprintf(what, cap,
                     "region %llu (a mapped file) path_str = %u (was %u), its length kept",
                     (unsigned long long)i, r->path_str + 1, r->path_str);
            r->path_str++;
        } else {
            uint32_t v = c == PATH_EMPTY ? 0 : r->path_len - 1;
            snprintf(what, cap, "region %llu (a mapped file) path_len = %u (was %u)",
                     (unsigned long long)i, v, r->path_len);
            r->path_len = v;
        }
        return 0;
    }
    case PINNED:
        break;
    }
    return -1;
}

static char *check_argv[4]; /* RESTORER --check DAMAGED */

static void run(const unsigned char *img, size_t size, struct mutate_outcome *o)
{
    if (mutate_write_file(check_argv[2], img, size)) {
        perror("fuzz_image: writing the damaged copy");
        exit(2);
    }
    mutate_run(check_argv, 60, o);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fuzz_image RESTORER IMAGE SCRATCH_DIR\n");
        return 2;
    }
    mpcr_crc32c_init();
    size_t len;
    unsigned char *orig = mutate_read_file(argv[2], &len);
    if (!orig || len < MPCR_IMG_HEADER_SIZE) {
        fprintf(stderr, "fuzz_image: cannot read the image %s\n", argv[2]);
        return 2;
    }
    static char path[4200];
    snprintf(path, sizeof path, "%s/damaged.img", argv[3]);
    check_argv[0] = argv[1], check_argv[1] = "--check", check_argv[2] = path;
    static const struct mutate_driver d = {"fuzz_image (mpcr-restore --check)", kind_name, KINDS,
                                           HEADER, 200, damage, fix, run, PINNED, pin};
    int rc = mutate_drive(&d, orig, len, argv[3]);
    free(orig);
    return rc;
}
