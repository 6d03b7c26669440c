/* See state.h. Layout, version 6 (little-endian; docs/proxy-resources.md):
 *   header  { magic "MPCRPST1", u32 version, rank, size, nsections, 0, 0 }  32 bytes
 *   nsections x section, one per resource kind, in the table's order:
 *     { char name[16] (NUL-padded), u32 version, u32 0, u64 bytes }         32 bytes
 *     its bytes, padded with zeros to a multiple of 8
 *   identity { u64 job id, u64 generation }                                  16 bytes
 *   u32 CRC32C of everything before it
 * What each section holds is its kind's business (resources/: the kind's
 * save and load), and so is its version. The identity binds the file to
 * its slot: a restart refuses a state file of another job or generation.
 * The coordinator reads the header's version and rank and the trailer
 * (src/coord/binding.c): those places do not move.
 * A reader trusts no count in it: the CRC tells damage, not a crafted or
 * foreign file. A section unknown to this mpcr, one missing, one twice or
 * of another version is refused by name, and so is one its kind's load
 * refuses. */
#include "state.h"
#include "proxy.h"
#include "resource.h"
#include "section.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "crc32c.h"
#include "path.h"
#include "state_format.h"

struct header {
    char magic[8];
    uint32_t version, rank, size, nsections, reserved[2];
};
struct section_header {
    char name[16];
    uint32_t version, reserved;
    uint64_t bytes;
};
struct identity {
    uint64_t job_id, generation;
};
_Static_assert(sizeof(struct header) == 32 && sizeof(struct section_header) == 32 &&
                   sizeof(struct identity) == 16,
               "the state file's layout changed: bump MPCR_STATE_VERSION and the comment above");

static size_t padding(uint64_t n)
{
    return (size_t)(-n & 7);
}

/* The atomic file's writer, keeping the running checksum; the first error
 * sticks. */
struct out {
    struct mpcr_atomic_file f;
    uint32_t crc;
    int failed; /* -errno */
};
static void put(struct out *o, const void *p, size_t n)
{
    o->crc = mpcr_crc32c(o->crc, p, n);
    if (!o->failed) o->failed = mpcr_atomic_write(&o->f, p, n);
}

/* Every kind's section, made before the file is opened (a kind that cannot
 * save fails the checkpoint without a file begun). */
static int save_sections(struct section *s, char *err, size_t cap)
{
    for (size_t k = 0; k < proxy_resource_count; k++) {
        const struct proxy_resource *r = proxy_resources[k];
        char why[200] = "out of memory";
        if (r->save && r->save(&s[k], why, sizeof why))
            return snprintf(err, cap, "saving the proxy's %s: %s", r->name, why), -1;
    }
    return 0;
}

static void write_sections(struct out *o, const struct section *s)
{
    static const char zeros[8];
    for (size_t k = 0; k < proxy_resource_count; k++) {
        const struct proxy_resource *r = proxy_resources[k];
        struct section_header h = {.version = r->version, .bytes = s[k].bytes};
        memcpy(h.name, r->name, strnlen(r->name, sizeof h.name)); /* NUL-padded, not ended */
        put(o, &h, sizeof h);
        for (size_t i = 0; i < s[k].npieces; i++)
            put(o, s[k].pieces[i].data, s[k].pieces[i].len);
        put(o, zeros, padding(s[k].bytes));
    }
}

int state_save(unsigned long gen, char *err, size_t cap)
{
    const char *dir = getenv("MPCR_CKPT_DIR");
    if (!dir) return snprintf(err, cap, "MPCR_CKPT_DIR is not set"), -1;
    char path[PATH_MAX];
    if (mpcr_path_printf(path, sizeof path, "%s/gen-%lu/rank-%d.state", dir, gen, proxy.rank))
        return snprintf(err, cap, "the checkpoint directory's path is too long: %s", dir), -1;
    struct section *s = calloc(proxy_resource_count, sizeof *s);
    int rc = -1;
    if (!s) return snprintf(err, cap, "out of memory for the proxy's state"), -1;
    if (save_sections(s, err, cap)) goto out;
    /* Never through a planted link, never into a file already there (the
     * atomic writer: a temporary left by a killed proxy is removed, itself). */
    struct out o = {.crc = 0};
    int made = mpcr_atomic_open(&o.f, path, 0600);
    if (made) {
        snprintf(err, cap, "cannot create %s.tmp: %s", path, strerror(-made));
        goto out;
    }
    struct header h = {MPCR_STATE_MAGIC, MPCR_STATE_VERSION, (uint32_t)proxy.rank,
                       (uint32_t)proxy.size, (uint32_t)proxy_resource_count, {0, 0}};
    put(&o, &h, sizeof h);
    write_sections(&o, s);
    const char *job = getenv("MPCR_JOB_ID");
    struct identity id = {job ? strtoull(job, NULL, 16) : 0, gen};
    put(&o, &id, sizeof id);
    uint32_t crc = o.crc;
    put(&o, &crc, sizeof crc);
    if (o.failed) mpcr_atomic_abort(&o.f);
    else o.failed = mpcr_atomic_commit(&o.f);
    if (o.failed) {
        snprintf(err, cap, "writing %s: %s", path, strerror(-o.failed));
        goto out;
    }
    rc = 0;
out:
    for (size_t k = 0; k < proxy_resource_count; k++)
        section_free(&s[k]);
    free(s);
    return rc;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf), fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return buf;
}

/* Checks what binds the file to this proxy: magic, checksum, version, rank,
 * job and generation. 0, or -1 with a reason in err. */
static int check_identity(const char *path, const char *gen_dir, const char *buf, size_t len,
                          struct header *h, char *err, size_t cap)
{
    uint32_t crc;
    struct identity id;
    if (len < sizeof *h + sizeof id + sizeof crc || memcmp(buf, MPCR_STATE_MAGIC, 8))
        return snprintf(err, cap, "%s is not a proxy state file", path), -1;
    memcpy(h, buf, sizeof *h);
    memcpy(&crc, buf + len - sizeof crc, sizeof crc);
    if (mpcr_crc32c(0, buf, len - sizeof crc) != crc)
        return snprintf(err, cap, "%s is damaged (checksum mismatch)", path), -1;
    memcpy(&id, buf + len - sizeof crc - sizeof id, sizeof id);
    if (h->version != MPCR_STATE_VERSION || h->rank != (uint32_t)proxy.rank ||
        h->size != (uint32_t)proxy.size)
        return snprintf(err, cap, "%s is of version %u, rank %u of %u; this is rank %d of %d", path,
                        h->version, h->rank, h->size, proxy.rank, proxy.size),
               -1;
    const char *job = getenv("MPCR_JOB_ID"), *slash = strrchr(gen_dir, '/');
    unsigned long long want_job = job ? strtoull(job, NULL, 16) : 0, want_gen = 0;
    if (slash) sscanf(slash + 1, "gen-%llu", &want_gen);
    if (id.job_id != want_job || id.generation != want_gen)
        return snprintf(err, cap, "%s belongs to job %016llx, generation %llu, not to job %016llx, "
                        "generation %llu", path, (unsigned long long)id.job_id,
                        (unsigned long long)id.generation, want_job, want_gen),
               -1;
    return 0;
}

/* Finds every kind's section in [p, end): at[k], len[k]. 0, or -1 with a
 * reason in err naming the section. */
static int find_sections(const char *path, const char *p, const char *end, uint32_t nsections,
                         const char **at, size_t *len, char *err, size_t cap)
{
    for (uint32_t i = 0; i < nsections; i++) {
        struct section_header sh;
        if ((size_t)(end - p) < sizeof sh)
            return snprintf(err, cap, "%s is damaged: it announces %u sections, and holds %u", path,
                            nsections, i),
                   -1;
        memcpy(&sh, p, sizeof sh);
        p += sizeof sh;
        char name[sizeof sh.name + 1];
        memcpy(name, sh.name, sizeof sh.name);
        name[sizeof sh.name] = 0;
        for (char *c = name; *c; c++)
            if (*c < 0x20 || *c > 0x7e) *c = '?'; /* a damaged name is shown, not sent raw */
        size_t k = 0;
        while (k < proxy_resource_count && strcmp(proxy_resources[k]->name, name))
            k++;
        if (k == proxy_resource_count)
            return snprintf(err, cap, "%s: section '%s' is unknown to this mpcr", path, name), -1;
        if (at[k]) return snprintf(err, cap, "%s is damaged: section '%s' appears twice", path, name), -1;
        if (sh.version != proxy_resources[k]->version)
            return snprintf(err, cap, "%s: section '%s' is of version %u; this mpcr reads version %u",
                            path, name, sh.version, proxy_resources[k]->version),
                   -1;
        uint64_t left = (uint64_t)(end - p);
        if (sh.bytes > left || padding(sh.bytes) > left - sh.bytes)
            return snprintf(err, cap, "%s: section '%s' is damaged: it says %llu bytes, more than "
                            "the file holds", path, name, (unsigned long long)sh.bytes),
                   -1;
        at[k] = p, len[k] = (size_t)sh.bytes;
        p += sh.bytes + padding(sh.bytes);
    }
    if (p != end) return snprintf(err, cap, "%s is damaged: bytes after its last section", path), -1;
    for (size_t k = 0; k < proxy_resource_count; k++)
        if (!at[k])
            return snprintf(err, cap, "%s lacks section '%s'", path, proxy_resources[k]->name), -1;
    return 0;
}

int state_load(const char *gen_dir, char *err, size_t cap)
{
    char path[PATH_MAX];
    if (mpcr_path_printf(path, sizeof path, "%s/rank-%d.state", gen_dir, proxy.rank))
        return snprintf(err, cap, "the generation's path is too long: %s", gen_dir), -1;
    size_t len;
    char *buf = read_all(path, &len);
    if (!buf) return snprintf(err, cap, "cannot read %s: %s", path, strerror(errno)), -1;
    const char **at = calloc(proxy_resource_count, sizeof *at);
    size_t *lens = calloc(proxy_resource_count, sizeof *lens);
    struct header h;
    int rc = -1;
    if (!at || !lens) {
        snprintf(err, cap, "out of memory reading %s", path);
        goto out;
    }
    if (check_identity(path, gen_dir, buf, len, &h, err, cap) ||
        find_sections(path, buf + sizeof h, buf + len - sizeof(struct identity) - sizeof(uint32_t),
                      h.nsections, at, lens, err, cap))
        goto out;
    for (size_t k = 0; k < proxy_resource_count; k++) {
        const struct proxy_resource *r = proxy_resources[k];
        char why[200];
        if (r->load && r->load(at[k], lens[k], why, sizeof why)) {
            snprintf(err, cap, "%s: section '%s': %s", path, r->name, why);
            goto out;
        }
    }
    rc = 0;
out:
    free(at), free(lens), free(buf);
    return rc;
}
