/* See state.h. Layout (little-endian, natural alignment of each record):
 *   header { magic "MPCRPST1", u32 version, rank, size, record_bytes, nreqs, ncache }  32 bytes
 *   record_bytes of communicators: the creation in progress (creation.c),
 *     the pending MPI_Comm_idup duplicates (idup.c), then the live
 *     communicators (record_form.c)
 *   nreqs   x struct saved_req (slots that are not free, with their token)       72 bytes each
 *   ncache  x { struct saved_msg, then its bytes }                               24 bytes + bytes
 *   identity { u64 job id, u64 generation }                                      16 bytes
 *   u32 CRC32C of everything before it
 * The identity binds the file to its slot: a restart refuses a state file
 * of another job or generation (the header names the rank).
 * Written to NAME.tmp, fsync'ed and renamed, as the engine writes images.
 * A reader trusts no count in it: the CRC tells damage, not a crafted or
 * foreign file, so every count is bounded by the bytes that are left and
 * every token by MAX_TOKEN before anything is sized by it. */
#include "state.h"
#include "cache.h"
#include "proxy.h"
#include "creation.h"
#include "idup.h"
#include "record.h"
#include "requests.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "state_format.h"

#define STATE_MAGIC   MPCR_STATE_MAGIC
#define STATE_VERSION MPCR_STATE_VERSION

struct header {
    char magic[8];
    uint32_t version, rank, size, record_bytes, nreqs, ncache;
};
struct saved_req {
    uint32_t token;
    uint8_t state, kind, pad[2];
    uint32_t comm;
    int32_t peer, tag;
    uint64_t offset, bytes, posted;
    struct req_status done;
};
struct identity {
    uint64_t job_id, generation;
};
struct saved_msg {
    uint32_t comm;
    int32_t source, tag, rc; /* rc: how the drain received it (error class) */
    uint64_t bytes;
};
_Static_assert(sizeof(struct header) == 32 && sizeof(struct saved_req) == 72 &&
                   sizeof(struct saved_msg) == 24 && sizeof(struct identity) == 16,
               "the state file's layout changed: bump STATE_VERSION and the comment above");

/* Request tokens index the proxy's table, sized by the largest one on a
 * restart: a bound keeps a hostile token from asking for gigabytes. One
 * million requests pending at once in one rank is far beyond real programs;
 * state_save refuses a checkpoint above it, so that what it writes is read. */
#define MAX_TOKEN (1u << 20)

/* A buffered writer that keeps the running checksum. */
struct out {
    int fd;
    uint32_t crc;
    int failed;
};
static void put(struct out *o, const void *p, size_t n)
{
    o->crc = mpcr_crc32c(o->crc, p, n);
    const char *c = p;
    while (n && !o->failed) {
        ssize_t w = write(o->fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            o->failed = errno ? errno : EIO;
            return;
        }
        c += w, n -= (size_t)w;
    }
}

int state_save(unsigned long gen, char *err, size_t cap)
{
    const char *dir = getenv("MPCR_CKPT_DIR");
    if (!dir) return snprintf(err, cap, "MPCR_CKPT_DIR is not set"), -1;
    char path[4200], tmp[4210];
    snprintf(path, sizeof path, "%s/gen-%lu/rank-%d.state", dir, gen, proxy.rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    for (uint32_t i = MAX_TOKEN; i < nreqs; i++)
        if (reqs[i].state != REQ_FREE)
            return snprintf(err, cap, "request %u is pending, beyond the %u pending requests a checkpoint can hold",
                            i + 1, MAX_TOKEN), -1;
    size_t record_bytes, live_bytes, creation_bytes, idup_bytes;
    void *live = record_save(&live_bytes), *creation = creation_save(&creation_bytes),
         *idup = idup_save(&idup_bytes);
    char *rec = live && creation && idup ? malloc(creation_bytes + idup_bytes + live_bytes) : NULL;
    if (rec) {
        memcpy(rec, creation, creation_bytes);
        memcpy(rec + creation_bytes, idup, idup_bytes);
        memcpy(rec + creation_bytes + idup_bytes, live, live_bytes);
    }
    free(live), free(creation), free(idup);
    record_bytes = creation_bytes + idup_bytes + live_bytes;
    if (!rec || record_bytes > UINT32_MAX) {
        free(rec);
        return snprintf(err, cap, "out of memory for the record of %u communicators",
                        record_count()), -1;
    }
    /* Never through a planted link, never into a file already there
     * (a temporary left by a killed proxy is removed, itself). */
    unlink(tmp);
    struct out o = {open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), 0, 0};
    if (o.fd < 0) {
        free(rec);
        return snprintf(err, cap, "cannot create %s: %s", tmp, strerror(errno)), -1;
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < nreqs; i++)
        used += reqs[i].state != REQ_FREE;
    struct header h = {
        STATE_MAGIC, STATE_VERSION, (uint32_t)proxy.rank, (uint32_t)proxy.size,
        (uint32_t)record_bytes, used, ncache};
    put(&o, &h, sizeof h);
    put(&o, rec, record_bytes);
    free(rec);
    for (uint32_t i = 0; i < nreqs; i++) {
        const struct req *q = &reqs[i];
        if (q->state == REQ_FREE) continue;
        struct saved_req s = {i + 1,  q->state,  q->kind,  {0},       q->comm, q->peer,
                              q->tag, q->offset, q->bytes, q->posted, q->done};
        put(&o, &s, sizeof s);
    }
    for (uint32_t i = 0; i < ncache; i++) {
        const struct cached_msg *m = &cache[i];
        struct saved_msg s = {m->comm, m->source, m->tag, m->rc, m->bytes};
        put(&o, &s, sizeof s);
        put(&o, m->data, m->bytes);
    }
    const char *job = getenv("MPCR_JOB_ID");
    struct identity id = {job ? strtoull(job, NULL, 16) : 0, gen};
    put(&o, &id, sizeof id);
    uint32_t crc = o.crc;
    put(&o, &crc, sizeof crc);
    if (!o.failed && fsync(o.fd)) o.failed = errno;
    if (close(o.fd) && !o.failed) o.failed = errno;
    if (!o.failed && rename(tmp, path)) o.failed = errno;
    if (o.failed) {
        unlink(tmp);
        return snprintf(err, cap, "writing %s: %s", path, strerror(o.failed)), -1;
    }
    return 0;
}

/* A reader over the whole file in memory. */
struct in {
    const char *p, *end;
};
static int get(struct in *in, void *dst, size_t n)
{
    if ((size_t)(in->end - in->p) < n) return -1;
    memcpy(dst, in->p, n);
    in->p += n;
    return 0;
}

/* Whether `count` records of `size` bytes can still follow in the file. */
static int fits(const struct in *in, uint64_t count, size_t size)
{
    uint64_t bytes;
    return !__builtin_mul_overflow(count, size, &bytes) && bytes <= (uint64_t)(in->end - in->p);
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

int state_load(const char *gen_dir, char *err, size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/rank-%d.state", gen_dir, proxy.rank);
    size_t len;
    char *buf = read_all(path, &len);
    if (!buf) return snprintf(err, cap, "cannot read %s: %s", path, strerror(errno)), -1;
    int rc = -1;
    struct in in = {buf, buf + len};
    struct header h;
    uint32_t crc;
    struct identity id;
    if (len < sizeof h + sizeof id + sizeof crc || get(&in, &h, sizeof h) ||
        memcmp(h.magic, STATE_MAGIC, 8)) {
        snprintf(err, cap, "%s is not a proxy state file", path);
        goto out;
    }
    memcpy(&crc, buf + len - sizeof crc, sizeof crc);
    if (mpcr_crc32c(0, buf, len - sizeof crc) != crc) {
        snprintf(err, cap, "%s is damaged (checksum mismatch)", path);
        goto out;
    }
    in.end -= sizeof crc + sizeof id;
    memcpy(&id, in.end, sizeof id);
    if (h.version != STATE_VERSION || h.rank != (uint32_t)proxy.rank ||
        h.size != (uint32_t)proxy.size) {
        snprintf(err, cap, "%s is of version %u, rank %u of %u; this is rank %d of %d", path,
                 h.version, h.rank, h.size, proxy.rank, proxy.size);
        goto out;
    }
    const char *job = getenv("MPCR_JOB_ID"), *slash = strrchr(gen_dir, '/');
    unsigned long long want_job = job ? strtoull(job, NULL, 16) : 0, want_gen = 0;
    if (slash) sscanf(slash + 1, "gen-%llu", &want_gen);
    if (id.job_id != want_job || id.generation != want_gen) {
        snprintf(err, cap, "%s belongs to job %016llx, generation %llu, not to job %016llx, "
                 "generation %llu", path, (unsigned long long)id.job_id,
                 (unsigned long long)id.generation, want_job, want_gen);
        goto out;
    }
    if (!fits(&in, h.record_bytes, 1) || !fits(&in, h.nreqs, sizeof(struct saved_req)) ||
        !fits(&in, h.ncache, sizeof(struct saved_msg)) || h.nreqs > MAX_TOKEN) {
        snprintf(err, cap, "%s is damaged: it counts %u bytes of communicators, %u requests and %u cached "
                 "messages, more than its %zu bytes hold", path, h.record_bytes, h.nreqs, h.ncache, len);
        goto out;
    }
    char why[200];
    size_t creation_bytes = creation_saved_size(in.p, h.record_bytes),
           idup_bytes = creation_bytes ? idup_saved_size(in.p + creation_bytes,
                                                         h.record_bytes - creation_bytes) : 0;
    if (!creation_bytes || !idup_bytes) {
        snprintf(err, cap, "%s: its creation record is damaged", path);
        goto out;
    }
    size_t made_bytes = creation_bytes + idup_bytes;
    if (record_rebuild(in.p + made_bytes, h.record_bytes - made_bytes, why, sizeof why) ||
        creation_load(in.p, creation_bytes, why, sizeof why) ||
        idup_load(in.p + creation_bytes, idup_bytes, why, sizeof why)) {
        snprintf(err, cap, "%s: %s", path, why);
        goto out;
    }
    in.p += h.record_bytes;
    for (uint32_t i = 0; i < h.nreqs; i++) {
        struct saved_req s;
        if (get(&in, &s, sizeof s) || s.token == 0 || s.token > MAX_TOKEN) {
            snprintf(err, cap, "%s is damaged: request token %u is outside 1..%u", path, s.token, MAX_TOKEN);
            goto out;
        }
        if (req_table_reserve(s.token) || reqs[s.token - 1].state != REQ_FREE) {
            snprintf(err, cap, "%s: request token %u %s", path, s.token,
                     s.token <= nreqs ? "appears twice (damaged file)" : "cannot be reserved (out of memory)");
            goto out;
        }
        reqs[s.token - 1] = (struct req){s.state,  s.kind,  s.comm,   s.peer, s.tag,
                                         s.offset, s.bytes, s.posted, s.done, MPI_REQUEST_NULL};
        req_slot_used(s.token);
        /* Sends complete and receives are cancelled; only a duplicate not yet
         * entered by all its members is still active. */
        if (s.kind > REQ_IDUP || (s.state == REQ_ACTIVE && (s.kind != REQ_IDUP || !idup_requested(s.token)))) {
            snprintf(err, cap, "%s: a request was still active", path);
            goto out;
        }
    }
    for (uint32_t i = 0; i < h.ncache; i++) {
        struct saved_msg m;
        void *data = NULL;
        if (get(&in, &m, sizeof m) || !fits(&in, m.bytes, 1) || !(data = malloc(m.bytes ? m.bytes : 1)) ||
            get(&in, data, m.bytes) || cache_add(m.comm, m.source, m.tag, m.rc, m.bytes, data)) {
            free(data);
            snprintf(err, cap, "%s: bad drain cache", path);
            goto out;
        }
    }
    rc = 0;
out:
    free(buf);
    return rc;
}
