/* Declarations shared by the files of the engine (libmpcr-engine.so). Not
 * installed; the public API is include/mpcr/engine.h. Everything here runs
 * inside the checkpoint signal handler: raw system calls and static memory
 * only, never malloc or stdio (a frozen thread may hold their locks). */
#ifndef MPCR_ENGINE_INTERNAL_H
#define MPCR_ENGINE_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "atomic_file.h"
#include "image.h"
#include "parse.h"

#define MPCR_MAX_THREADS 1024
#define MPCR_MAX_EXCLUDE 32
#define MPCR_MAX_REGIONS 65536
#define MPCR_MAX_FILES 4096

/* One thread as seen at the checkpoint; lives in the engine's .bss, so it is
 * part of the image and the restarted thread finds it again. */
struct mpcr_thr {
    struct mpcr_ctx ctx;
    int tid, new_tid;
    uint64_t fs_base;
    void *tid_addr;
    void *robust_head;
    size_t robust_len;
    stack_t altstack;
    uint64_t pending; /* signals pending on this thread only */
    char name[16];    /* PR_GET_NAME */
    uint64_t affinity[16]; /* sched_getaffinity, up to 1024 CPUs */
    int affinity_len;
    int tid_field_ok; /* glibc's cached tid found where expected */
    int parked;       /* it saved its state and waits (set by the thread) */
    int gone;         /* it exited before it could stop: not in the image */
};

/* A run of pages of one region in an incremental plan (incr.c): stored
 * (MPCR_EXT_DATA) or as an earlier generation holds them (MPCR_EXT_REF | i << 8). */
struct mpcr_run {
    uint64_t page; /* index in the region */
    uint32_t count;
    uint32_t kind;
};
struct mpcr_scan_entry { /* PAGEMAP_SCAN's struct page_region */
    uint64_t start, end, categories;
};

/* Working memory of one checkpoint, mapped when it starts and unmapped when
 * it ends; never part of an image. */
struct mpcr_scratch {
    char maps[8 << 20];
    size_t maps_len;
    struct mpcr_img_region regions[MPCR_MAX_REGIONS];
    uint32_t nregions;
    struct mpcr_img_file files[MPCR_MAX_FILES];
    uint32_t nfiles;
    struct mpcr_img_sigact sigact[64];
    struct mpcr_img_thread threads[MPCR_MAX_THREADS];
    char strings[2 << 20];
    uint32_t strings_len;
    uint64_t pagemap[4096];
    unsigned char io[1 << 20];     /* pages read from /proc/self/mem */
    unsigned char wbuf[1 << 20];   /* buffered writes to the image */
    size_t wbuf_len;
    struct mpcr_atomic_file out;   /* the image being written (out.fd), published by commit */
    uint64_t off;                  /* its length so far */
    uint64_t writeback_from;       /* the disk was started on bytes before this */
    uint32_t crc;                  /* running CRC32C of the current stream */
    struct mpcr_img_header hdr;
    /* The incremental plan (incr.c): with `planned`, region i's pages are
     * runs[run_first[i] .. run_first[i+1]) when tracked[i]; other regions
     * are written as before. runs is a mapping of its own (runs_len bytes). */
    int planned, incr_touched;
    uint64_t gen;
    struct mpcr_run *runs;
    size_t nruns, runs_cap, runs_len;
    uint32_t cur_region;
    uint32_t run_first[MPCR_MAX_REGIONS + 1];
    unsigned char tracked[MPCR_MAX_REGIONS];
    struct mpcr_scan_entry scan[1024];
};

extern struct mpcr_thr mpcr_thr[MPCR_MAX_THREADS];
extern int mpcr_nthr;  /* slots used; slot 0 is the leader */
extern int mpcr_nlive; /* of them, threads that did not exit meanwhile */
extern char mpcr_errmsg[512];
struct mpcr_range {
    uintptr_t start, end;
};
extern struct mpcr_range mpcr_exclude[MPCR_MAX_EXCLUDE];
extern int mpcr_nexclude;
#define MPCR_MAX_EXCLUDE_FDS 16
extern int mpcr_exclude_fd[MPCR_MAX_EXCLUDE_FDS]; /* -1: free slot */
extern long mpcr_tid_offset; /* of glibc's cached tid in the thread block, or -1 */

/* Saves the callee-saved registers; returns 0, or, when a restored thread
 * resumes here, the restorer's hand-off block. */
struct mpcr_handoff *mpcr_ctx_save(struct mpcr_ctx *ctx) __attribute__((returns_twice));

/* Formats into mpcr_errmsg (mpcr_vfmt: async-signal-safe; strerror is
 * not, use mpcr_strerror) and returns err (negative errno). */
int mpcr_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* String table of the image being written; returns its offset. */
uint32_t mpcr_str_add(struct mpcr_scratch *s, const char *str, uint32_t len);

/* Buffered, checksummed output to the image (writer.c). */
int mpcr_w_put(struct mpcr_scratch *s, const void *p, size_t n);
int mpcr_w_flush(struct mpcr_scratch *s);
/* Tables, footer and header, then the image is published (s->out). */
int mpcr_w_image(struct mpcr_scratch *s);

/* Memory (memory.c): regions[] from the maps, then their streams. */
int mpcr_mem_read_maps(struct mpcr_scratch *s);
int mpcr_mem_plan(struct mpcr_scratch *s);      /* regions[] (no data yet) */
int mpcr_mem_forkable(struct mpcr_scratch *s);  /* 1: a forked copy may write them (shared memory copied) */
int mpcr_mem_use_snapshots(void);               /* in the copy: those copies replace the shared memory */
void mpcr_mem_drop_snapshots(void);             /* in the process, after the fork */
int mpcr_mem_dump(struct mpcr_scratch *s);      /* the streams, filling data_* */

/* Incremental images (incr.c). init: MPCR_FULL_EVERY at start-up. plan:
 * after mpcr_mem_plan, while every thread is stopped and before any fork:
 * finds the changed pages, resets the tracking, fills the plan and the
 * header's track, why_full, chain (gen 0, an API image: nothing, a full
 * image). done: the image is written or handed to a forked writer (ok), or
 * failed. area: the holder map's mapping, never in an image. forget: after
 * a restart (none of it was restored). */
void mpcr_incr_init(int full_every);
int mpcr_incr_plan(struct mpcr_scratch *s, uint64_t gen, const char *dir, unsigned rank);
void mpcr_incr_done(struct mpcr_scratch *s, int ok);
void mpcr_incr_area(uintptr_t *start, uintptr_t *end);
void mpcr_incr_forget(void);
/* Before the descriptors are listed: the tracking descriptor is still ours. */
void mpcr_incr_check(void);

/* Process state (proc.c, files.c, signals.c). */
int mpcr_proc_refuse(struct mpcr_scratch *s); /* children, timers: refuse */
int mpcr_proc_save(struct mpcr_scratch *s);   /* mm, rlimits, umask, cwd, itimers */
int mpcr_files_save(struct mpcr_scratch *s);
/* SHA-256 of the whole file open as fd (fstat st, named path in messages),
 * read through buf; cached by (device, inode, ctime, size). file_hash.c */
struct stat;
int mpcr_file_sha256(int fd, const struct stat *st, const char *path, unsigned char *buf, size_t buflen,
                     unsigned char out[32]);
void mpcr_signals_init(void); /* at start-up: the run's checkpoint signals, from the environment */
int mpcr_signals_save(struct mpcr_scratch *s);
int mpcr_proc_restore(const struct mpcr_handoff *h);
int mpcr_files_restore(const struct mpcr_handoff *h);
int mpcr_signals_restore(const struct mpcr_handoff *h);
void mpcr_signals_reraise(const struct mpcr_img_header *hdr);

void mpcr_proc_init(void);                     /* at start-up: what may not be asked in the handler */
/* Per-thread kernel state (threads.c). */
void mpcr_thr_affinity_init(void); /* notes the run's launch affinity */
void mpcr_thr_capture(struct mpcr_thr *t);
/* The leader (the thread that took the checkpoint) notes the restart's
 * launch affinity first. */
void mpcr_thr_restore(struct mpcr_thr *t, int leader);

/* ld.so's recursive locks held across a restart (locks.c): their range is
 * found at start-up; after a restart, once every thread has its new id,
 * owners that are old ids get the new ones. Returns how many. */
void mpcr_locks_init(void);
int mpcr_locks_restore(void);

/* Small helpers without libc locks (util.c). */
long mpcr_read_file(const char *path, char *buf, size_t cap);

#endif
