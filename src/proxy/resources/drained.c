/* The drain cache as a resource (resource.h: resource_drained; the cache
 * itself is cache.c): a checkpoint's drain takes every message that has
 * arrived, on every communicator and collective context, out of the real
 * MPI into the cache, and the cache is saved with the image; a new proxy
 * starts with the saved messages, so that no message in flight at the
 * checkpoint is lost. */
#include "cache.h"
#include "proxy.h"
#include "report.h"
#include "resource.h"
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Receives into the cache every message that has arrived. */
static void drain(void)
{
    uint32_t n = map_comm_slots();
    for (uint32_t i = 0; i < 2 * n; i++) {
        uint32_t vid = i < n ? i : (i - n) | MPCR_COLL_CONTEXT;
        MPI_Comm comm = real_comm(vid);
        if (comm == MPI_COMM_NULL) continue;
        for (;;) {
            int flag = 0;
            MPI_Message msg;
            MPI_Status st;
            if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &msg, &st) != MPI_SUCCESS ||
                !flag)
                break;
            uint64_t bytes = status_bytes(&st);
            void *data = malloc(bytes ? bytes : 1);
            if (!data) {
                mpcr_report("rank %d: out of memory for a drained message of %llu bytes",
                            proxy.rank, (unsigned long long)bytes);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            int source = neutral_source(st.MPI_SOURCE), tag = neutral_tag(st.MPI_TAG);
            int rc = real_mrecv(data, bytes, &msg, &st);
            /* A failed receive still took the message: the program's
             * receive of it reports the failure. */
            if (cache_add(vid, source, tag, error_class(rc), bytes, data)) {
                mpcr_report("rank %d: out of memory for the drain cache", proxy.rank);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            proxy.received++;
            stats_count(STAT_DRAINED);
        }
    }
}

/* ---- the state file's section: u32 count, u32 0, then for each message
 * a struct saved_msg and its bytes, padded to 8 ---- */

struct saved_msg {
    uint32_t comm;
    int32_t source, tag, rc; /* rc: how the drain received it (error class) */
    uint64_t bytes;
};
_Static_assert(sizeof(struct saved_msg) == 24, "a saved message's layout changed: bump its section's version");

static int save(struct section *out, char *err, size_t cap)
{
    (void)err, (void)cap; /* only memory can fail: the caller's reason */
    if (section_put_count(out, ncache)) return -1;
    for (uint32_t i = 0; i < ncache; i++) {
        const struct cached_msg *m = &cache[i];
        struct saved_msg s = {m->comm, m->source, m->tag, m->rc, m->bytes};
        /* the data by reference: the cache holds it until the file is written */
        if (section_put(out, &s, sizeof s) || section_put_ref(out, m->data, m->bytes) ||
            section_align(out))
            return -1;
    }
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t n;
    if (section_get_count(&in, &n)) return snprintf(err, cap, "%zu bytes, too short for its count (damaged)", len), -1;
    for (uint32_t i = 0; i < n; i++) {
        struct saved_msg m;
        const void *bytes;
        if (section_get(&in, &m, sizeof m))
            return snprintf(err, cap, "it counts %u messages and holds %u (damaged)", n, i), -1;
        if (m.bytes > (uint64_t)(in.end - in.p) || !(bytes = section_take(&in, (size_t)m.bytes)) ||
            section_skip_align(&in))
            return snprintf(err, cap, "message %u says %llu bytes, more than are left (damaged)", i,
                            (unsigned long long)m.bytes),
                   -1;
        void *data = malloc(m.bytes ? m.bytes : 1);
        if (!data) return snprintf(err, cap, "out of memory for message %u", i), -1;
        memcpy(data, bytes, m.bytes);
        if (cache_add(m.comm, m.source, m.tag, m.rc, m.bytes, data)) {
            free(data);
            return snprintf(err, cap, "out of memory for message %u", i), -1;
        }
    }
    if (in.p != in.end) return snprintf(err, cap, "bytes after its last message (damaged)"), -1;
    return 0;
}

const struct proxy_resource resource_drained = {
    .name = "drained",
    .version = 1,
    .drain = drain,
    .save = save,
    .load = load,
};
