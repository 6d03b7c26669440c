/* The job's profile: the counters, and the rank's file at MPI_Finalize
 * (profile.h; docs/profile.md). Counters are added to with relaxed atomics:
 * under MPI_THREAD_MULTIPLE a call's scope ends after the library's lock is
 * let go. */
#include "profile.h"
#include "channel.h"
#include "runtime.h"
#include "report.h"

#include "atomic_file.h"
#include "clock.h"
#include "path.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mpcr_prof_on, mpcr_prof_fronted;
unsigned mpcr_prof_epoch;
_Thread_local const void *mpcr_prof_site;

/* Times are counted in ticks (clock.h) during a piece of the run, and
 * folded into ns at a restart (the next piece may run on another host, at
 * another rate) and when written. */
struct fn_count {
    uint64_t calls, ticks, bytes, ns;
};

/* Call sites: (site, function) pairs in an open-addressed table; a pair
 * that finds it full is counted in `sites_lost` (said in the report). */
#define SITES 4096
struct site_count {
    const void *_Atomic site;
    _Atomic int fn; /* its index + 1; 0 while the slot is being taken */
    uint64_t calls, ticks, ns;
};

static struct {
    char dir[PATH_MAX];
    struct fn_count *fns; /* mpcr_prof_functions of them */
    struct site_count sites[SITES];
    uint64_t sites_lost;
    uint64_t trips, trip_ticks, trip_ns, serve_ns;
    uint64_t wall_before; /* ns of the pieces of the run before the last restart */
    uint64_t start_ns, start_ticks, ckpt_ns, ckpt_ticks;
} prof;

/* Under MPI_THREAD_MULTIPLE a call's scope ends after the library's lock is
 * let go, so two threads may count at once; below, calls never overlap. */
static void add(uint64_t *counter, uint64_t v)
{
    if (mpcr.thread_level == MPI_THREAD_MULTIPLE)
        __atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
    else
        *counter += v;
}

static struct site_count *site_slot(const void *site, int fn)
{
    uintptr_t h = ((uintptr_t)site >> 2) * 0x9E3779B97F4A7C15u ^ (uintptr_t)fn;
    for (unsigned probe = 0; probe < 64; probe++) {
        struct site_count *s = &prof.sites[(h + probe) % SITES];
        const void *cur = atomic_load_explicit(&s->site, memory_order_acquire);
        if (!cur) {
            const void *none = NULL;
            if (atomic_compare_exchange_strong(&s->site, &none, site)) {
                atomic_store_explicit(&s->fn, fn + 1, memory_order_release);
                return s;
            }
            cur = none;
        }
        /* a slot just taken by another thread: its fn may not be there yet */
        while (cur == site && atomic_load_explicit(&s->fn, memory_order_acquire) == 0)
            ;
        if (cur == site && atomic_load_explicit(&s->fn, memory_order_relaxed) == fn + 1) return s;
    }
    return NULL;
}

void mpcr_prof_note(const struct mpcr_prof_scope *s)
{
    /* A restart in the middle of the call: the counters before and after
     * are not comparable (another boot, another host). */
    uint64_t ticks = s->epoch == mpcr_prof_epoch ? mpcr_ticks() - s->t0 : 0;
    struct fn_count *f = &prof.fns[s->fn];
    add(&f->calls, 1);
    add(&f->ticks, ticks);
    add(&f->bytes, s->bytes);
    struct site_count *site = site_slot(s->site, s->fn);
    if (!site) {
        add(&prof.sites_lost, 1);
        return;
    }
    add(&site->calls, 1);
    add(&site->ticks, ticks);
}

void mpcr_prof_round_trip(uint64_t ticks)
{
    prof.trips++; /* under the library's lock, or on its only thread */
    prof.trip_ticks += ticks;
}

void mpcr_prof_init(void)
{
    const char *dir = getenv("MPCR_PROFILE");
    if (!dir || !*dir) return;
    /* relative: to where the program started (it may change directory) */
    char cwd[PATH_MAX] = "";
    if (dir[0] != '/' && !getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    if (cwd[0] ? mpcr_path_join(prof.dir, sizeof prof.dir, cwd, dir)
               : mpcr_path_cat(prof.dir, sizeof prof.dir, "", dir)) {
        mpcr_report("MPCR_PROFILE is too long a path (%zu bytes); no profile is taken", strlen(dir));
        return;
    }
    prof.fns = calloc((size_t)mpcr_prof_functions, sizeof *prof.fns);
    if (!prof.fns) return;
    prof.start_ns = mpcr_now_ns(), prof.start_ticks = mpcr_ticks();
    atomic_store(&mpcr.chan->profile, 1); /* the proxy times what it serves */
    mpcr_prof_on = 1;
}

/* ticks as ns at the rate of the piece from (start_ns, start_ticks) to
 * (ns, t); no floating point: it runs in the engine's signal context too. */
static uint64_t to_ns(uint64_t ticks, uint64_t ns, uint64_t t)
{
    uint64_t dns = ns - prof.start_ns, dt = t - prof.start_ticks;
    return dt ? (uint64_t)((unsigned __int128)ticks * dns / dt) : 0;
}

/* Every count of ticks of this piece into ns, at its rate up to (ns, t). */
static void fold(uint64_t ns, uint64_t t)
{
    for (int i = 0; i < mpcr_prof_functions; i++)
        prof.fns[i].ns += to_ns(prof.fns[i].ticks, ns, t), prof.fns[i].ticks = 0;
    for (int i = 0; i < SITES; i++)
        prof.sites[i].ns += to_ns(prof.sites[i].ticks, ns, t), prof.sites[i].ticks = 0;
    prof.trip_ns += to_ns(prof.trip_ticks, ns, t), prof.trip_ticks = 0;
    prof.serve_ns += to_ns(atomic_exchange(&mpcr.chan->proxy_serve_ticks, 0), ns, t);
    prof.wall_before += ns - prof.start_ns;
}

void mpcr_prof_before_checkpoint(void)
{
    prof.ckpt_ns = mpcr_now_ns(), prof.ckpt_ticks = mpcr_ticks();
}

void mpcr_prof_restarted(void)
{
    /* not mpcr_prof_on: exported, so read through the GOT, which the
     * signal-safety check (engine.signal_safe_mpi) cannot vouch for */
    if (!prof.fns) return;
    fold(prof.ckpt_ns, prof.ckpt_ticks);
    prof.start_ns = mpcr_now_ns(), prof.start_ticks = mpcr_ticks();
    mpcr_prof_epoch++;
}

/* Where a call site lies: its object and the offset the object's own
 * addresses use (what addr2line reads), and the symbol before it. */
static void put_site(FILE *f, const struct site_count *s)
{
    Dl_info info;
    const char *object = "?", *symbol = "";
    static char self[PATH_MAX]; /* the program's own path: dladdr gives it as it was started */
    uintptr_t offset = (uintptr_t)s->site, sym_offset = 0;
    if (dladdr(s->site, &info) && info.dli_fname) {
        object = info.dli_fname;
        if (object[0] != '/') {
            ssize_t n = self[0] ? 0 : readlink("/proc/self/exe", self, sizeof self - 1);
            if (n > 0) self[n] = 0;
            if (self[0]) object = self;
        }
        /* a position-dependent executable's addresses are its own already */
        const Elf64_Ehdr *elf = info.dli_fbase;
        offset = (uintptr_t)s->site - (elf->e_type == ET_EXEC ? 0 : (uintptr_t)info.dli_fbase);
        if (info.dli_sname) symbol = info.dli_sname, sym_offset = (uintptr_t)s->site - (uintptr_t)info.dli_saddr;
    }
    /* the return address is the instruction after the call: one byte back is in the call */
    char where[300] = "";
    if (*symbol) snprintf(where, sizeof where, "%s+%#llx", symbol, (unsigned long long)sym_offset);
    fprintf(f, "site\t%s\t%llu\t%llu\t%#llx\t%s\t%s\n", mpcr_prof_names[atomic_load(&s->fn) - 1],
            (unsigned long long)s->calls, (unsigned long long)s->ns, (unsigned long long)(offset - 1), where,
            object);
}

static int write_profile(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return -ENOMEM;
    fold(mpcr_now_ns(), mpcr_ticks());
    fprintf(f, "mpcr-profile\t1\nrank\t%d\nsize\t%d\n", mpcr.rank, mpcr.size);
    fprintf(f, "wall\t%llu\n", (unsigned long long)prof.wall_before);
    fprintf(f, "trips\t%llu\t%llu\t%llu\n", (unsigned long long)prof.trips, (unsigned long long)prof.trip_ns,
            (unsigned long long)prof.serve_ns);
    for (int i = 0; i < mpcr_prof_functions; i++) {
        const struct fn_count *c = &prof.fns[i];
        if (c->calls)
            fprintf(f, "fn\t%s\t%llu\t%llu\t%llu\n", mpcr_prof_names[i], (unsigned long long)c->calls,
                    (unsigned long long)c->ns, (unsigned long long)c->bytes);
    }
    for (int i = 0; i < SITES; i++)
        if (prof.sites[i].site && prof.sites[i].calls) put_site(f, &prof.sites[i]);
    fprintf(f, "sites_lost\t%llu\n", (unsigned long long)prof.sites_lost);
    if (fclose(f)) return free(text), -ENOMEM;
    int err = mpcr_atomic_write_file(path, text, len, 0644);
    free(text);
    return err;
}

void mpcr_prof_finalize(void)
{
    if (!mpcr_prof_on) return;
    mpcr_prof_on = 0; /* what follows (the report, MPI_Finalize's round trip) is not the program's */
    char path[PATH_MAX];
    int err = mpcr_path_printf(path, sizeof path, "%s/rank-%d.prof", prof.dir, mpcr.rank);
    if (!err && mkdir(prof.dir, 0755) && errno != EEXIST) err = -errno;
    if (!err) err = write_profile(path);
    if (err)
        mpcr_report("rank %d: cannot write its profile into %s: %s", mpcr.rank, prof.dir, strerror(-err));
}
