/* mpcr-restore IMAGE: turns this freshly executed process into the one the
 * image describes, then jumps into it.
 *
 * Phase 1 checks everything while nothing has been changed, and on any
 * doubt exits non-zero with a message: header, footer and length, the
 * checksum of every table and every region's data, the machine (kernel
 * release, vDSO layout and text, CPU features and XSAVE size), that no
 * image address falls in the restorer's own zone, and that the files the
 * image maps are still the same files. `--check` stops there. The data is
 * checked last, in one pass that also maps and fills every region whose
 * place is free already (stream.c): the image is read once.
 *
 * Phase 2 cannot go back: it unmaps what the kernel gave this process
 * outside the zone, moves [vvar], [vvar_vclock] and [vdso] to the image's
 * addresses, maps and fills the regions that were in the way, sets the kernel's view of the
 * address space with PR_SET_MM_MAP, creates the threads and puts each on its
 * resume point inside the engine, which does the rest (docs/engine.md). */
#include <asm/prctl.h>
#include <linux/fcntl.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/stat.h>

#include "crc32c.h"
#include "file_trust.h"
#include "ident.h"
#include "restore.h"

#define ALLOC_BASE (MPCR_ZONE_START + 0x10000000ul)
#define PARK_BASE (MPCR_ZONE_START + 0x38000000ul)
#define TASK_END 0x7ffffffff000ul
#define EEXIST 17
#define POSIX_FADV_SEQUENTIAL 2
#define R_OK 4 /* faccessat modes (unistd.h is libc's) */
#define W_OK 2

static struct mpcr_handoff handoff;
static uint64_t alloc_next = ALLOC_BASE;
static int img = -1;
static const char *mpcr_image_path;
static uint64_t img_size;

#ifdef MPCR_RESTORE_FENCED
/* The restorer as mutation fuzzing runs it (mpcr-restore-checked): every
 * allocation ends right before a PROT_NONE page, so that a read past the
 * end of a table faults instead of reading the next allocation. */
void *zalloc(size_t len)
{
    uint64_t want = (len + 15) & ~15ul, pages = (want + MPCR_PAGE - 1) & ~(MPCR_PAGE - 1);
    if (!pages) pages = MPCR_PAGE;
    if (want > PARK_BASE - alloc_next || pages + MPCR_PAGE > PARK_BASE - alloc_next)
        die(1, "out of memory in the restorer's zone", (char *)0);
    long p = sc(mmap, alloc_next, pages + MPCR_PAGE, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p < 0) die(1, "mmap in the restorer's zone failed: ", errword(p), (char *)0);
    sc(mprotect, p + (long)pages, MPCR_PAGE, PROT_NONE);
    alloc_next += pages + MPCR_PAGE;
    return (char *)p + pages - want;
}
#else
void *zalloc(size_t len)
{
    if (len > PARK_BASE - alloc_next) die(1, "out of memory in the restorer's zone", (char *)0);
    len = (len + MPCR_PAGE - 1) & ~(MPCR_PAGE - 1);
    if (!len) len = MPCR_PAGE;
    if (len > PARK_BASE - alloc_next) die(1, "out of memory in the restorer's zone", (char *)0);
    long p = sc(mmap, alloc_next, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p < 0) die(1, "mmap in the restorer's zone failed: ", errword(p), (char *)0);
    alloc_next += len;
    return (void *)p;
}
#endif

static void pread_all(void *buf, uint64_t len, uint64_t off, const char *what)
{
    char *b = buf;
    while (len) {
        long n = sc(pread, img, b, len > (1ul << 30) ? (1ul << 30) : len, off);
        if (n <= 0) die(1, "the image is unreadable or truncated (reading ", what, ")", (char *)0);
        b += n, off += (uint64_t)n, len -= (uint64_t)n;
    }
}

/* ---- phase 1: verify ---------------------------------------------------- */

/* start + len, of something the image describes; a sum that wraps around
 * 2^64 would pass every later bounds check, so it is refused here. */
static uint64_t end_of(uint64_t start, uint64_t len, const char *what, const char *which)
{
    uint64_t end;
    if (__builtin_add_overflow(start, len, &end))
        die(1, "the image's ", what, which, ": ", hex(start), " + ", hex(len), " wraps around 2^64 (corrupt image)",
            (char *)0);
    return end;
}

static const char *const table_name[MPCR_T_COUNT] = {"thread", "region", "file", "signal action", "string"};

static const struct mpcr_img_header *check_header(void)
{
    static unsigned char block[MPCR_IMG_HEADER_SIZE];
    struct kstat st;
    if (sc(fstat, img, &st) < 0) die(1, "cannot stat the image", (char *)0);
    img_size = (uint64_t)st.size;
    if (img_size < MPCR_IMG_HEADER_SIZE + sizeof(struct mpcr_img_footer))
        die(1, "the image is truncated (", dec(img_size), " bytes)", (char *)0);
    pread_all(block, sizeof block, 0, "header");
    struct mpcr_img_header *h = (struct mpcr_img_header *)block;
    if (memcmp(h->magic, MPCR_IMG_MAGIC, 8)) die(1, "not an mpcr image (bad magic)", (char *)0);
    if (h->version != MPCR_IMG_VERSION)
        die(1, "image format version ", dec(h->version), " is not the supported version ", dec(MPCR_IMG_VERSION),
            (char *)0);
    uint32_t crc = h->header_crc;
    h->header_crc = 0;
    if (mpcr_crc32c(0, block, sizeof block) != crc) die(1, "the image header is corrupt (checksum mismatch)", (char *)0);
    h->header_crc = crc;
    if (h->chain_len > MPCR_MAX_CHAIN)
        die(1, "the image refers to ", dec(h->chain_len), " earlier generations, more than ", dec(MPCR_MAX_CHAIN),
            " (corrupt image)", (char *)0);
    mpcr_chain_len = h->chain_len;
    if (h->page_size != MPCR_PAGE)
        die(1, "the image's page size is ", dec(h->page_size), ", not ", dec(MPCR_PAGE), (char *)0);
    if (h->total_len != img_size)
        die(1, "the image is truncated or has trailing data: ", dec(img_size), " bytes, header says ",
            dec(h->total_len), (char *)0);
    struct mpcr_img_footer f;
    pread_all(&f, sizeof f, img_size - sizeof f, "footer");
    if (memcmp(f.magic, MPCR_IMG_FOOTER_MAGIC, 8) || f.total_len != img_size)
        die(1, "the image footer is corrupt", (char *)0);
    return h;
}

static void check_machine(const struct mpcr_img_header *h, const struct own_maps *m)
{
    struct { char f[6][65]; } u;
    sc(uname, &u);
    if (!streq(h->arch, u.f[4])) die(1, "the image is for architecture ", h->arch, ", this is ", u.f[4], (char *)0);
    if (!streq(h->kernel, u.f[2]))
        die(1, "the image was taken under kernel ", h->kernel, "; this is kernel ", u.f[2],
            ": restart it on a machine running the same kernel", (char *)0);
    struct mpcr_img_cpu cpu;
    mpcr_cpu_ident(&cpu);
    const char *missing = mpcr_cpu_incompatible(&h->cpu, &cpu);
    if (missing) die(1, "the image was taken on a CPU with other features: ", missing, " differ", (char *)0);
    const struct mpcr_img_vdso *v = &h->vdso;
    if (v->vvar_len != m->vvar_len || v->vclock_len != m->vclock_len || v->vdso_len != m->vdso_len)
        die(1, "the kernel's vDSO layout differs from the image's (another kernel build)", (char *)0);
    if (mpcr_crc32c(0, (void *)m->vdso, m->vdso_len) != v->vdso_crc)
        die(1, "the kernel's vDSO code differs from the image's (another kernel build)", (char *)0);
}

static const void *load_table(const struct mpcr_img_header *h, enum mpcr_table t, uint64_t entry_size)
{
    const struct mpcr_img_table *d = &h->table[t];
    if (d->off < MPCR_IMG_HEADER_SIZE || end_of(d->off, d->len, table_name[t], " table") > img_size - sizeof(struct mpcr_img_footer) ||
        (entry_size && d->len != entry_size * d->count))
        die(1, "the image's table ", dec(t), " is out of bounds (corrupt image)", (char *)0);
    void *p = zalloc(d->len + 1);
    pread_all(p, d->len, d->off, "a table");
    if (mpcr_crc32c(0, p, d->len) != d->crc) die(1, "the image's table ", dec(t), " is corrupt (checksum mismatch)", (char *)0);
    return p;
}

static int overlaps(uint64_t a, uint64_t b, uint64_t c, uint64_t d) { return a < d && c < b; }

/* Maps region r at its address, writable until it is filled. With may_defer,
 * returns 0 when something of the restorer's own is there still (the
 * kernel's stack, the vDSO): phase 2 maps it once those are gone. */
static int map_region(const struct mpcr_img_region *r, uint32_t i, const char *str, int may_defer)
{
    uint64_t len = r->end - r->start;
    long fd = -1, flags = MAP_FIXED_NOREPLACE, prot = PROT_READ | PROT_WRITE;
    switch (r->kind) {
    case MPCR_R_ANON: flags |= MAP_PRIVATE | MAP_ANONYMOUS | (r->flags & MPCR_RF_STACK ? MAP_GROWSDOWN : 0); break;
    case MPCR_R_ANON_SHARED: flags |= MAP_SHARED | MAP_ANONYMOUS; break;
    case MPCR_R_FILE_PRIVATE: flags |= MAP_PRIVATE; break;
    case MPCR_R_FILE_SHARED: flags |= MAP_SHARED; prot = r->prot; break;
    default: die(127, "region of unknown kind ", dec(r->kind), (char *)0);
    }
    if (r->kind == MPCR_R_FILE_PRIVATE || r->kind == MPCR_R_FILE_SHARED) {
        int rw = r->kind == MPCR_R_FILE_SHARED && (r->prot & PROT_WRITE);
        fd = sc(openat, AT_FDCWD, str + r->path_str, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) die(may_defer ? 1 : 127, "cannot open ", str + r->path_str, ": ", errword(fd), (char *)0);
        trust_same_file(i, fd, str + r->path_str, may_defer ? 1 : 127);
    }
    long p = sc(mmap, r->start, len, prot, flags, fd, r->file_off);
    if (fd >= 0) sc(close, fd);
    if (p == -EEXIST && may_defer) return 0;
    if (p != (long)r->start)
        die(may_defer ? 1 : 127, "cannot map region ", hex(r->start), "-", hex(r->end), ": ", errword(p),
            (char *)0);
    return 1;
}

/* Reads region r's data stream once: checks it and, when r is mapped, fills
 * it and gives it its protection. `code` is the exit status of a mismatch. */
static void protect(const struct mpcr_img_region *r)
{
    if (r->kind != MPCR_R_FILE_SHARED && r->prot != (PROT_READ | PROT_WRITE))
        sc(mprotect, r->start, r->end - r->start, r->prot);
}

/* An increment's regions keep their write access until the pages it refers
 * to in earlier generations are in (chain.c): protected afterwards. */
static void load_region(const struct mpcr_img_header *h, const struct mpcr_img_region *r, uint32_t i, int placed, int code)
{
    int fill = placed && r->kind != MPCR_R_FILE_SHARED;
    uint32_t crc = r->data_len ? mpcr_restore_stream(img, r, i, fill) : 0;
    if (crc != r->data_crc) die(code, "the data of region ", hex(r->start), " is corrupt (checksum mismatch)", (char *)0);
    if (fill && !h->chain_len) protect(r);
}

static void check_regions(const struct mpcr_img_header *h, const struct mpcr_img_region *r, const char *str)
{
    uint32_t n = h->table[MPCR_T_REGIONS].count;
    uint64_t data_end = h->table[0].off;
    for (int t = 1; t < MPCR_T_COUNT; t++)
        if (h->table[t].off < data_end) data_end = h->table[t].off;
    for (uint32_t i = 0; i < n; i++) {
        if (r[i].start >= r[i].end || (r[i].start | r[i].end) & (MPCR_PAGE - 1) || r[i].end > TASK_END)
            die(1, "region ", dec(i), " has a bad address range (corrupt image)", (char *)0);
        if (overlaps(r[i].start, r[i].end, MPCR_ZONE_START, MPCR_ZONE_START + MPCR_ZONE_LEN))
            die(1, "the image uses memory at ", hex(r[i].start), ", inside the restorer's own zone", (char *)0);
        if (r[i].data_off < MPCR_IMG_HEADER_SIZE || end_of(r[i].data_off, r[i].data_len, "data of region ", dec(i)) > data_end)
            die(1, "region ", dec(i), " data is out of bounds (corrupt image)", (char *)0);
        /* mmap refuses an offset past 2^63 only when it is called: in phase 2 that is too late. */
        if ((r[i].kind == MPCR_R_FILE_PRIVATE || r[i].kind == MPCR_R_FILE_SHARED) &&
            (r[i].file_off & (MPCR_PAGE - 1) ||
             end_of(r[i].file_off, r[i].end - r[i].start, "file range of region ", dec(i)) > (uint64_t)INT64_MAX))
            die(1, "region ", dec(i), " has a bad file offset (corrupt image)", (char *)0);
        if (r[i].path_len && (uint64_t)r[i].path_str + r[i].path_len >= h->table[MPCR_T_STRINGS].len)
            die(1, "region ", dec(i), " has a bad path (corrupt image)", (char *)0);
        /* A file is known by its path: one that is not the string the table says it is, or
         * none at all, would name another file (or the working directory). */
        if ((r[i].kind == MPCR_R_FILE_PRIVATE || r[i].kind == MPCR_R_FILE_SHARED) &&
            (!r[i].path_len || strlen(str + r[i].path_str) != r[i].path_len))
            die(1, "region ", dec(i), " has a bad path (corrupt image)", (char *)0);
        if (r[i].kind < MPCR_R_ANON || r[i].kind > MPCR_R_FILE_SHARED)
            die(1, "region ", dec(i), " is of an unknown kind (corrupt image)", (char *)0);
        if (r[i].kind == MPCR_R_FILE_PRIVATE || r[i].kind == MPCR_R_FILE_SHARED) {
            const char *path = str + r[i].path_str;
            /* Whose it is, and for a private map, which gets the file's pages under the stored
             * ones, that it is the checkpoint's file or has its contents (trust.c). A shared map
             * is the file, as an open descriptor is: its current contents are the right ones. */
            trust_check_mapped(i, &r[i], path);
            int rw = r[i].kind == MPCR_R_FILE_SHARED && (r[i].prot & PROT_WRITE);
            if (sc(faccessat, AT_FDCWD, path, rw ? R_OK | W_OK : R_OK) < 0)
                die(1, "the mapped file ", path, " cannot be opened ", rw ? "for writing" : "for reading", (char *)0);
        }
    }
}

/* Reads every region's data once, after all the cheaper checks. Unless only
 * checking, each region whose place is free already is mapped and filled in
 * the same pass (placed[i] = 1): that changes nothing the restorer needs, and
 * on a refusal the process just exits. The others wait for phase 2. */
static void load_regions(const struct mpcr_img_header *h, const struct mpcr_img_region *r, const char *str,
                         int check_only, unsigned char *placed)
{
    for (uint32_t i = 0; i < h->table[MPCR_T_REGIONS].count; i++) {
        placed[i] = !check_only && map_region(&r[i], i, str, 1);
        load_region(h, &r[i], i, placed[i], 1);
    }
    mpcr_chain_apply(h, r, mpcr_image_path, !check_only, 1);
    if (h->chain_len)
        for (uint32_t i = 0; i < h->table[MPCR_T_REGIONS].count; i++)
            if (placed[i]) protect(&r[i]);
    mpcr_restore_stream_done();
}

static void check_files(const struct mpcr_img_header *h, const struct mpcr_img_file *f, const char *str)
{
    for (uint32_t i = 0; i < h->table[MPCR_T_FILES].count; i++) {
        if (f[i].fd <= 2 || f[i].shares_with >= 0) continue;
        if ((uint64_t)f[i].path_str + f[i].path_len >= h->table[MPCR_T_STRINGS].len || !f[i].path_len ||
            strlen(str + f[i].path_str) != f[i].path_len)
            die(1, "file ", dec(i), " has a bad path (corrupt image)", (char *)0);
        struct kstat st;
        const char *path = str + f[i].path_str;
        if (sc(newfstatat, AT_FDCWD, path, &st, 0) < 0)
            die(1, "the open file ", path, " (descriptor ", dec((uint64_t)f[i].fd), ") is gone", (char *)0);
        trust_owner(&st, "the open file ", path); /* the engine checks again what it reopens */
        uint32_t acc = f[i].flags & O_ACCMODE;
        long mode = acc == O_RDWR ? R_OK | W_OK : acc == O_WRONLY ? W_OK : R_OK;
        if (sc(faccessat, AT_FDCWD, path, mode) < 0)
            die(1, "the open file ", path, " (descriptor ", dec((uint64_t)f[i].fd), ") cannot be opened as before",
                (char *)0);
    }
}

/* ---- phase 2: become the image ------------------------------------------ */

static void move_special(uint64_t from, uint64_t len, uint64_t to, const char *name)
{
    if (!len) return;
    long r = sc(mremap, from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    if (r < 0) die(127, "moving ", name, " failed: ", errword(r), (char *)0);
}

/* The lowest address the kernel lets a process map (and PR_SET_MM_MAP take):
 * vm.mmap_min_addr, 65536 where it cannot be read. */
static uint64_t mmap_min_addr(void)
{
    char buf[32];
    long fd = sc(openat, AT_FDCWD, "/proc/sys/vm/mmap_min_addr", O_RDONLY | O_CLOEXEC);
    long n = fd < 0 ? -1 : sc(read, fd, buf, sizeof buf - 1);
    if (fd >= 0) sc(close, fd);
    uint64_t v = 0;
    for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
        v = v * 10 + (uint64_t)(buf[i] - '0');
    return n > 0 && v ? v : 65536;
}

/* PR_SET_MM_MAP exists only in kernels built with checkpoint/restore, and
 * the kernel checks the layout only when it is applied: both are checked
 * here, while a refusal still leaves nothing changed. */
static void check_mm(const struct mpcr_img_header *h)
{
    unsigned int size = 0;
    if (sc(prctl, PR_SET_MM, PR_SET_MM_MAP_SIZE, &size, 0, 0) < 0 || size != sizeof(struct prctl_mm_map))
        die(1, "this kernel has no prctl(PR_SET_MM_MAP) (CONFIG_CHECKPOINT_RESTORE): cannot restore here", (char *)0);
    const struct mpcr_img_mm *m = &h->mm;
    const uint64_t *f = &m->start_code, lowest = mmap_min_addr();
    for (int i = 0; i < 11; i++)
        if (f[i] >= TASK_END || f[i] < lowest)
            die(1, "the image's address-space layout is out of range (corrupt image)", (char *)0);
    if (!(m->start_code < m->end_code && m->start_data <= m->end_data && m->start_brk <= m->brk &&
          m->arg_start <= m->arg_end && m->env_start <= m->env_end && m->auxv_len <= sizeof m->auxv))
        die(1, "the image's address-space layout is inconsistent (corrupt image)", (char *)0);
}

/* Where [vvar], [vvar_vclock] and [vdso] are to be moved: mremap with
 * MREMAP_FIXED replaces whatever is at the destination, and fails only in
 * phase 2, so each place is checked now: page-aligned, inside the user
 * address space, outside the restorer's zone and every region. */
static void check_vdso(const struct mpcr_img_header *h, const struct mpcr_img_region *r)
{
    const struct mpcr_img_vdso *v = &h->vdso;
    const uint64_t at[3] = {v->vvar, v->vclock, v->vdso}, len[3] = {v->vvar_len, v->vclock_len, v->vdso_len};
    static const char *const name[3] = {"[vvar]", "[vvar_vclock]", "[vdso]"};
    for (int k = 0; k < 3; k++) {
        if (!len[k]) continue;
        uint64_t end = end_of(at[k], len[k], name[k], "");
        if (at[k] & (MPCR_PAGE - 1) || end > TASK_END || !at[k])
            die(1, "the image's ", name[k], " address ", hex(at[k]), " is out of range (corrupt image)", (char *)0);
        if (overlaps(at[k], end, MPCR_ZONE_START, MPCR_ZONE_START + MPCR_ZONE_LEN))
            die(1, "the image's ", name[k], " lies in the restorer's own zone", (char *)0);
        for (uint32_t i = 0; i < h->table[MPCR_T_REGIONS].count; i++)
            if (overlaps(at[k], end, r[i].start, r[i].end))
                die(1, "the image's ", name[k], " at ", hex(at[k]), " overlaps its region ", dec(i),
                    " (corrupt image)", (char *)0);
    }
}

static void set_mm(const struct mpcr_img_header *h)
{
    struct prctl_mm_map m = {
        .start_code = h->mm.start_code, .end_code = h->mm.end_code,
        .start_data = h->mm.start_data, .end_data = h->mm.end_data,
        .start_brk = h->mm.start_brk, .brk = h->mm.brk, .start_stack = h->mm.start_stack,
        .arg_start = h->mm.arg_start, .arg_end = h->mm.arg_end,
        .env_start = h->mm.env_start, .env_end = h->mm.env_end,
        .auxv = (__u64 *)h->mm.auxv, .auxv_size = h->mm.auxv_len, .exe_fd = (uint32_t)-1,
    };
    long r = sc(prctl, PR_SET_MM, PR_SET_MM_MAP, &m, sizeof m, 0);
    if (r < 0) die(127, "prctl(PR_SET_MM_MAP) failed: ", errword(r), (char *)0);
}

/* The bit (n-1) of signal n when env is "NAME=n" (name is "NAME="), else 0:
 * the restart's checkpoint signals, for the engine (src/engine/signals.c). */
static uint64_t signal_bit(const char *env, const char *name)
{
    for (; *name; name++, env++)
        if (*env != *name) return 0;
    uint64_t sig = 0;
    for (; *env >= '0' && *env <= '9' && sig <= 64; env++) sig = sig * 10 + (uint64_t)(*env - '0');
    return !*env && sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;
}

void restore_main(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    /* --check: everything, the data too; --check-layout: all but the data's
     * checksums (the restore itself checks those before it changes anything). */
    int layout_only = argc > 2 && streq(argv[1], "--check-layout");
    int check_only = layout_only || (argc > 2 && streq(argv[1], "--check"));
    if (argc != 2 + check_only) die(2, "usage: mpcr-restore [--check | --check-layout] IMAGE", (char *)0);
    const char *path = argv[argc - 1];

    for (char **env = argv + argc + 1; *env; env++) {
        if (streq(*env, "MPCR_RESTORE_SIMPLE=1")) mpcr_restore_simple = 1;
        if (streq(*env, MPCR_ENV_TRUST_OTHERS_FILES "=1")) handoff.trust_others_files = 1;
        handoff.triggers |= signal_bit(*env, MPCR_ENV_CHECKPOINT_SIGNAL "=") |
                            signal_bit(*env, MPCR_ENV_EXIT_SIGNAL "=");
    }

    /* Open without blocking (a FIFO in the image's place would hold the
     * restorer forever) and take only a regular file. Signals stay
     * deliverable until the point of no return: until then a restorer that
     * is told to stop just ends, having changed nothing. */
    img = (int)sc(openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (img < 0) die(1, "cannot open the image ", path, ": ", errword(img), (char *)0);
    struct kstat st;
    long rc = sc(fstat, img, &st);
    if (rc < 0) die(1, "cannot stat the image ", path, ": ", errword(rc), (char *)0);
    if ((st.mode & S_IFMT) != S_IFREG)
        die(1, path, (st.mode & S_IFMT) == S_IFDIR ? " is a directory, not an image (give gen-K/rank-R.img)"
                     : (st.mode & S_IFMT) == S_IFIFO ? " is a FIFO, not an image file"
                                                     : " is not a regular file, so not an image",
            (char *)0);
    mpcr_image_named = path;
    mpcr_image_path = path;
    sc(fadvise64, img, 0, 0, POSIX_FADV_SEQUENTIAL); /* a larger read-ahead: the data is read in order */
    const struct mpcr_img_header *h = check_header();
    struct own_maps m;
    if (read_own_maps(&m)) die(1, "cannot read /proc/self/maps", (char *)0);
    check_machine(h, &m);
    const void *t[MPCR_T_COUNT];
    t[MPCR_T_THREADS] = load_table(h, MPCR_T_THREADS, sizeof(struct mpcr_img_thread));
    t[MPCR_T_REGIONS] = load_table(h, MPCR_T_REGIONS, sizeof(struct mpcr_img_region));
    t[MPCR_T_FILES] = load_table(h, MPCR_T_FILES, sizeof(struct mpcr_img_file));
    t[MPCR_T_SIGACT] = load_table(h, MPCR_T_SIGACT, sizeof(struct mpcr_img_sigact));
    t[MPCR_T_STRINGS] = load_table(h, MPCR_T_STRINGS, 0);
    const char *str = t[MPCR_T_STRINGS];
    if (h->table[MPCR_T_THREADS].count != h->nthreads || !h->nthreads || h->table[MPCR_T_SIGACT].count != 64 ||
        h->cwd_str >= h->table[MPCR_T_STRINGS].len || h->table[MPCR_T_STRINGS].len == 0)
        die(1, "the image's tables are inconsistent (corrupt image)", (char *)0);
    ((char *)str)[h->table[MPCR_T_STRINGS].len] = 0;
    trust_init(h->table[MPCR_T_REGIONS].count, (int)handoff.trust_others_files);
    check_regions(h, t[MPCR_T_REGIONS], str);
    check_files(h, t[MPCR_T_FILES], str);
    check_mm(h);
    check_vdso(h, t[MPCR_T_REGIONS]);
    const struct mpcr_img_thread *th = t[MPCR_T_THREADS];
    int mains = 0;
    for (uint32_t i = 0; i < h->nthreads; i++) mains += th[i].is_main != 0;
    if (mains != 1) die(1, "the image has no main thread", (char *)0);
    unsigned char *placed = zalloc(h->table[MPCR_T_REGIONS].count);
    if (!check_only) { /* everything but the data is checked: from here on, nothing may
                        * interrupt the restore halfway; blocked before the helper thread
                        * that fills memory starts, so that it has them blocked too */
        uint64_t all = ~0ull;
        sc(rt_sigprocmask, 0 /* SIG_BLOCK */, &all, 0, 8);
    }
    if (!layout_only) load_regions(h, t[MPCR_T_REGIONS], str, check_only, placed);
    if (check_only) {
        mpcr_image_named = 0;
        say(path, ": image is complete and can be restored here (", dec(h->table[MPCR_T_REGIONS].count),
            " regions, ", dec(h->nthreads), " threads)", (char *)0);
        sc(exit_group, 0);
    }

    /* ---- no way back from here ---- */
    handoff.magic = MPCR_HANDOFF_MAGIC;
    handoff.hdr = h;
    for (int i = 0; i < MPCR_T_COUNT; i++) handoff.table[i] = t[i];
    handoff.zone_start = MPCR_ZONE_START;
    handoff.zone_len = MPCR_ZONE_LEN;
    size_t plen = strlen(path);
    if (plen >= sizeof handoff.image_path) plen = sizeof handoff.image_path - 1;
    memcpy(handoff.image_path, path, plen);

    for (int i = 0; i < m.nother; i++) sc(munmap, m.other_start[i], m.other_end[i] - m.other_start[i]);
    /* Park all three first: a destination may be where another one is now. */
    move_special(m.vvar, m.vvar_len, PARK_BASE, "[vvar]");
    move_special(m.vclock, m.vclock_len, PARK_BASE + 0x100000, "[vvar_vclock]");
    move_special(m.vdso, m.vdso_len, PARK_BASE + 0x200000, "[vdso]");
    const struct mpcr_img_vdso *v = &h->vdso;
    move_special(PARK_BASE, m.vvar_len, v->vvar, "[vvar]");
    move_special(PARK_BASE + 0x100000, m.vclock_len, v->vclock, "[vvar_vclock]");
    move_special(PARK_BASE + 0x200000, m.vdso_len, v->vdso, "[vdso]");

    const struct mpcr_img_region *r = t[MPCR_T_REGIONS];
    for (uint32_t i = 0; i < h->table[MPCR_T_REGIONS].count; i++)
        if (!placed[i] && map_region(&r[i], i, str, 0)) load_region(h, &r[i], i, 1, 127);
    mpcr_chain_apply(h, r, mpcr_image_path, 1, 127);
    if (h->chain_len)
        for (uint32_t i = 0; i < h->table[MPCR_T_REGIONS].count; i++)
            if (!placed[i]) protect(&r[i]);
    mpcr_restore_stream_done();
    mpcr_chain_close();
    set_mm(h);
    sc(close, img);

    const unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                                CLONE_SETTLS;
    const struct mpcr_img_thread *main_thread = 0;
    for (uint32_t i = 0; i < h->nthreads; i++) {
        if (th[i].is_main) {
            main_thread = &th[i];
            continue;
        }
        char *stack = zalloc(64 << 10);
        long tid = mpcr_clone_jump(flags, stack + (64 << 10), th[i].fs_base, &th[i].ctx, &handoff);
        if (tid < 0) die(127, "cannot create thread: ", errword(tid), (char *)0);
    }
    sc(arch_prctl, ARCH_SET_FS, main_thread->fs_base);
    mpcr_jump(&main_thread->ctx, &handoff);
}
