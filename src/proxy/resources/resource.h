/* What the proxy keeps for its program across a checkpoint, as one table of
 * kinds (docs/proxy-resources.md). The proxy is not checkpointed, yet some
 * of what it holds must outlive it: the communicators it made, creations and
 * non-blocking duplicates under way, the program's pending requests, the
 * messages a drain took out of the network. Each kind is one file of this
 * folder exporting one `struct proxy_resource`; the checkpoint (ckpt/ckpt.c)
 * and the state file (ckpt/state.c) only loop over `proxy_resources`.
 * Adding a kind (windows, open files) is one new file and one entry in
 * resources.c, whose order is the order of every loop. */
#ifndef MPCR_PROXY_RESOURCE_H
#define MPCR_PROXY_RESOURCE_H

#include <stddef.h>
#include <stdint.h>

/* A section of the state file as a kind's save writes it: pieces, copied
 * or referenced (section.c). */
struct section;
/* Appends n bytes, copied. 0, or -1 when out of memory. */
int section_put(struct section *s, const void *p, size_t n);
/* Appends n bytes that stay where they are until the file is written (the
 * drain cache's messages: no second copy of what may be gigabytes). */
int section_put_ref(struct section *s, const void *p, size_t n);
/* Appends zeros up to a multiple of 8 bytes. */
int section_align(struct section *s);
/* Appends the 8 bytes that open most sections: u32 count, u32 0. */
int section_put_count(struct section *s, uint32_t count);

/* Reading a section back (a kind's load): a cursor that never passes the
 * section's end, so that no count in it is trusted. */
struct section_in {
    const char *start, *p, *end;
};
static inline struct section_in section_cursor(const void *buf, size_t len)
{
    return (struct section_in){buf, buf, (const char *)buf + len};
}
/* Copies the next n bytes to dst: 0, or -1 when fewer are left. */
int section_get(struct section_in *in, void *dst, size_t n);
/* The next n bytes, in place (no alignment promised), skipped; NULL when
 * fewer are left. */
const void *section_take(struct section_in *in, size_t n);
/* Skips to a multiple of 8 bytes from the section's start: 0, or -1. */
int section_skip_align(struct section_in *in);
/* Reads what section_put_count wrote: 0, or -1. */
int section_get_count(struct section_in *in, uint32_t *count);

/* Every operation may be NULL: the kind has nothing to do then. */
struct proxy_resource {
    /* Its section's name in the state file (at most 15 characters), and the
     * version of that section's layout: bump it when the layout changes. */
    const char *name;
    uint32_t version;
    /* At every wait of the proxy, and by the idle proxy, outside an image. */
    void (*poll)(void);
    /* One step of a checkpoint's drain, repeated until the job's counts of
     * messages sent and received agree. */
    void (*drain)(void);
    /* A drain has lasted 10 s: say (mpcr_report) what this kind waits for. */
    void (*report_waiting)(void);
    /* Before the image: bring every entry to a state that save can write
     * (calls under way finished, sends completed, receives cancelled). */
    void (*settle)(void);
    /* Writes the section: 0, or -1 with a reason in err. */
    int (*save)(struct section *s, char *err, size_t cap);
    /* In a new proxy, in the table's order: rebuilds the kind from its
     * section (len bytes at buf, 8-aligned; its content not trusted). 0, or
     * -1 with a reason in err. */
    int (*load)(const void *buf, size_t len, char *err, size_t cap);
    /* Calls may be served again: after an image the program survives, or in
     * a new proxy once its program's channel is mapped. */
    void (*resume)(void);
};

extern const struct proxy_resource *const proxy_resources[];
extern const size_t proxy_resource_count;

/* One operation of every kind, in the table's order. */
void resources_poll(void);
void resources_drain(void);
void resources_report_waiting(void);
void resources_settle(void);
void resources_resume(void);

/* The kinds (one file each). */
extern const struct proxy_resource resource_comms;     /* record.c */
extern const struct proxy_resource resource_idups;     /* idup.c */
extern const struct proxy_resource resource_creations; /* creation.c */
extern const struct proxy_resource resource_requests;  /* requests.c */
extern const struct proxy_resource resource_drained;   /* drained.c */
extern const struct proxy_resource resource_files;     /* files.c */
extern const struct proxy_resource resource_windows;   /* windows.c */
extern const struct proxy_resource resource_win_attached; /* windows_attached.c */

#endif
