/* The on-disk image format of one process, shared by the in-process writer
 * (libmpcr-engine.so) and the freestanding restorer (mpcr-restore). Plain
 * fixed-size little-endian structs, no pointers, no libc types. The layout is
 * documented in docs/image-format.md; any change that alters a byte on disk
 * bumps MPCR_IMG_VERSION.
 *
 * File:  [header, 4096 bytes]
 *        [region data streams, one per region with data, in table order]
 *        [tables: threads, regions, files, signal actions, strings]
 *        [footer, 16 bytes]
 */
#ifndef MPCR_IMAGE_H
#define MPCR_IMAGE_H

#include <stdint.h>

#define MPCR_IMG_MAGIC "MPCRIMG1"
#define MPCR_IMG_FOOTER_MAGIC "MPCREND1"
#define MPCR_IMG_VERSION 4
#define MPCR_IMG_HEADER_SIZE 4096
#define MPCR_PAGE 4096ul
#define MPCR_MAX_CHAIN 64 /* generations an increment may refer to (--full-every at most this) */

/* The restorer's own zone: its text, data, stacks and scratch live here, and
 * an image that uses any of it cannot be restored. The restarted engine
 * unmaps the whole zone once every thread has left it. */
#define MPCR_ZONE_START 0x100000000000ul
#define MPCR_ZONE_LEN 0x40000000ul

enum mpcr_table { MPCR_T_THREADS, MPCR_T_REGIONS, MPCR_T_FILES, MPCR_T_SIGACT, MPCR_T_STRINGS, MPCR_T_COUNT };

struct mpcr_img_table {
    uint64_t off;   /* file offset */
    uint64_t len;   /* bytes */
    uint32_t count; /* entries */
    uint32_t crc;   /* CRC32C of the bytes */
};

/* What prctl(PR_SET_MM_MAP) needs, as the kernel reported it at checkpoint. */
struct mpcr_img_mm {
    uint64_t start_code, end_code, start_data, end_data;
    uint64_t start_brk, brk, start_stack;
    uint64_t arg_start, arg_end, env_start, env_end;
    uint64_t auxv[64];
    uint32_t auxv_len; /* bytes used in auxv */
    uint32_t pad;
};

struct mpcr_img_vdso { /* addresses and sizes of the kernel's special mappings */
    uint64_t vvar, vvar_len, vclock, vclock_len, vdso, vdso_len;
    uint32_t vdso_crc; /* CRC32C of the [vdso] text: same kernel build */
    uint32_t pad;
};

struct mpcr_img_cpu {
    uint64_t xcr0;       /* enabled XSAVE features */
    uint32_t xsave_size; /* CPUID 0xD.0 EBX: XSAVE area size for xcr0 */
    uint32_t leaf1_ecx, leaf1_edx, leaf7_ebx, leaf7_ecx, leaf7_edx;
};

struct mpcr_img_header {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    char arch[16];    /* "x86_64" */
    char kernel[65];  /* uname release */
    char libc[31];    /* gnu_get_libc_version() of the image */
    uint64_t page_size;
    uint64_t generation;
    uint32_t rank;
    uint32_t nthreads;
    struct mpcr_img_cpu cpu;
    struct mpcr_img_vdso vdso;
    struct mpcr_img_mm mm;
    struct mpcr_img_table table[MPCR_T_COUNT];
    uint64_t rlimit[16][2];
    uint64_t itimer[3][4]; /* ITIMER_REAL/VIRTUAL/PROF: interval sec,usec, value sec,usec */
    uint64_t sig_pending;  /* process-wide pending signals, bit n-1 for signal n */
    uint32_t umask;
    uint32_t cwd_str;      /* offset in the string table */
    uint64_t total_len;    /* whole file, footer included */
    uint32_t header_crc;   /* CRC32C of the 4096 header bytes with this field 0 */
    uint32_t pad;
    uint64_t job_id;       /* the job's identity, drawn at `mpcr run` (0: an API image) */
    /* Incremental images (docs/incremental.md). A full image has chain_len 0;
     * an increment's extents of kind MPCR_EXT_REF name an index into chain[]. */
    uint32_t track;        /* how changed pages were found: MPCR_TRACK_* */
    uint32_t why_full;     /* for a full image: MPCR_FULL_* (why not an increment) */
    uint32_t chain_len;    /* generations this image refers to */
    uint32_t pad2;
    uint64_t chain[MPCR_MAX_CHAIN]; /* their numbers, oldest (the full image) first */
};
_Static_assert(sizeof(struct mpcr_img_header) <= MPCR_IMG_HEADER_SIZE, "header too large");

/* A thread's resume point inside the engine's signal handler: the callee-saved
 * registers of mpcr_ctx_save(). Everything else the thread had is in its
 * signal frame on its (restored) stack. */
struct mpcr_ctx {
    uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

struct mpcr_img_thread {
    struct mpcr_ctx ctx;
    uint64_t fs_base;
    uint32_t old_tid;
    uint32_t is_main; /* the thread whose tid was the pid */
};

enum mpcr_region_kind {
    MPCR_R_ANON = 1,      /* private anonymous: present pages stored */
    MPCR_R_ANON_SHARED,   /* MAP_SHARED anonymous (memfd, /dev/zero): pages stored */
    MPCR_R_FILE_PRIVATE,  /* private file map: re-mapped from the file, COW'd pages stored */
    MPCR_R_FILE_SHARED,   /* shared file map: re-mapped from the file, nothing stored */
};
#define MPCR_RF_STACK 1u /* the main stack: MAP_GROWSDOWN */
#define MPCR_RF_HEAP 2u  /* the program break area */
#define MPCR_RF_HASHED 4u /* f_sha256 holds the mapped file's SHA-256 */

struct mpcr_img_region {
    uint64_t start, end;
    uint64_t file_off;               /* in the mapped file */
    uint64_t data_off, data_len;     /* the stream in the image; 0 len: none */
    uint64_t f_dev, f_ino, f_size;   /* identity of the mapped file: its owner cannot forge these */
    int64_t f_ctime_sec, f_ctime_nsec; /* (ctime, unlike mtime, only the kernel sets) */
    uint32_t f_uid, f_mode;
    unsigned char f_sha256[32];      /* its contents, for a private map (MPCR_RF_HASHED) */
    uint32_t data_crc;
    uint32_t prot;                   /* PROT_* */
    uint32_t kind, flags;
    uint32_t path_str, path_len;     /* in the string table; 0 len: none */
};

enum mpcr_track { MPCR_TRACK_NONE, MPCR_TRACK_UFFD_WP };
enum mpcr_why_full {
    MPCR_FULL_INCREMENT,   /* not full: an increment */
    MPCR_FULL_OFF,         /* not asked: an API image, MPCR_INCR=0, --full-every 1 */
    MPCR_FULL_NO_TRACKING, /* the kernel offers no change tracking (userfaultfd WP_ASYNC, PAGEMAP_SCAN) */
    MPCR_FULL_FIRST,       /* the first of this run (or since a restart, or since tracking was lost) */
    MPCR_FULL_EVERY,       /* the chain reached --full-every */
    MPCR_FULL_BASE_GONE,   /* a generation of the chain is missing or incomplete */
    MPCR_FULL_SCAN_FAILED, /* the page scan failed or went wrong: tracking starts over */
    MPCR_FULL_COUNT
};

/* A region's data stream is a list of extents ended by page == ~0: each says
 * `count` pages from page index `page` of the region are zero (no bytes
 * follow), stored (count*4096 bytes follow), or, in an increment, as the
 * image of generation chain[index] holds them at the same addresses (no
 * bytes follow; kind MPCR_EXT_REF | index << 8). Pages in no extent were
 * not present: untouched anonymous memory or unchanged file pages. */
#define MPCR_EXT_DATA 0u
#define MPCR_EXT_ZERO 1u
#define MPCR_EXT_REF 2u
#define MPCR_EXT_KIND(k) ((k) & 0xffu)
#define MPCR_EXT_INDEX(k) ((k) >> 8)
struct mpcr_img_extent {
    uint64_t page;
    uint32_t count;
    uint32_t zero; /* the kind: MPCR_EXT_DATA (0), MPCR_EXT_ZERO (1), MPCR_EXT_REF | index << 8 */
};

struct mpcr_img_file {
    int32_t fd;
    int32_t shares_with; /* lower fd of the same open file, or -1 */
    uint32_t flags;      /* open flags from fdinfo */
    uint32_t cloexec;
    uint64_t pos;
    uint32_t path_str, path_len;
    uint32_t mode;       /* st_mode */
    uint32_t pad;
};

struct mpcr_img_sigact { /* the kernel's struct sigaction for rt_sigaction */
    uint64_t handler, flags, restorer, mask;
};

struct mpcr_img_footer {
    char magic[8];
    uint64_t total_len;
};

/* Hand-off from the restorer to the restarted engine: mpcr_ctx_save() returns
 * a pointer to this (inside the restorer's zone) in every restored thread. */
#define MPCR_HANDOFF_MAGIC 0x6d706372686f6666ull
struct mpcr_handoff {
    uint64_t magic;
    const struct mpcr_img_header *hdr;
    const void *table[MPCR_T_COUNT];
    uint64_t zone_start, zone_len;
    char image_path[4096];
    uint64_t triggers; /* the restart's checkpoint signals (MPCR_ENV_*_SIGNAL below), bit n-1 for signal n */
    uint32_t trust_others_files; /* MPCR_TRUST_OTHERS_FILES=1 (file_trust.h): the engine's reopened files too */
    uint32_t pad;
};

/* The signals that ask a job for checkpoints (numbers, 0: none; set by `mpcr
 * run`, `exec`, `restart` for the proxies, src/cli/signal_option.c). The
 * proxy starts its program, or the restorer, with them ignored; the engine
 * keeps that so across a restart (src/engine/signals.c). */
#define MPCR_ENV_CHECKPOINT_SIGNAL "MPCR_CHECKPOINT_SIGNAL"
#define MPCR_ENV_EXIT_SIGNAL "MPCR_EXIT_SIGNAL"

#endif
