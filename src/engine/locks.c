/* The dynamic loader's own locks across a restart.
 *
 * ld.so guards thread creation and exit (the static TLS of a new thread),
 * dlopen and dlclose with recursive mutexes in `_rtld_global`. A recursive
 * glibc mutex records its owner as a thread id, and only that thread may
 * unlock it (any other gets EPERM, which ld.so ignores). A thread stopped by
 * a checkpoint while it held one (inside pthread_create, a thread's exit,
 * dlopen) comes back after a restart with another thread id: its unlock is
 * refused, the lock stays held for ever, and the next pthread_create in the
 * process blocks (found as a rare hang of engine.generations).
 *
 * So after a restart, once every thread knows its new id, every mutex in
 * `_rtld_global` whose owner is a thread id of this process before the
 * restart gets that thread's new id. A mutex is recognised by its shape, not
 * by glibc-version offsets: the x86-64 layout of pthread_mutex_t (lock,
 * count, owner, nusers, kind: five ints at an 8-byte boundary), held (lock
 * 1 or 2; a recursive one's count >= 1), of the recursive or error-checking
 * kind, its owner exactly one of the old ids; a false match in ld.so's few
 * kilobytes of state is not to be expected.
 *
 * Robust and priority-inheritance mutexes keep the owner's id in the lock
 * word itself, where the kernel reads it; ld.so has none, and they are left
 * alone. The program's own recursive mutexes are not searched for: that
 * limit is written down in docs/engine.md. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>

#include "internal.h"

/* Found at start-up (dlsym and dladdr1 are not async-signal-safe); ld.so
 * is at the same address in a restored process (the image holds its
 * mappings), so the range stays right in every generation. */
static uintptr_t rtld_start;
static size_t rtld_len;

void mpcr_locks_init(void)
{
    void *p = dlsym(RTLD_DEFAULT, "_rtld_global");
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!p || !dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) return;
    rtld_start = (uintptr_t)p;
    rtld_len = sym->st_size;
}

/* glibc's struct __pthread_mutex_s on x86-64, as far as it matters here. */
struct mutex_words {
    int lock;
    unsigned count;
    int owner;
    unsigned nusers;
    int kind;
};
#define KIND_TYPE_MASK 3 /* PTHREAD_MUTEX_KIND_MASK_NP */
#define KIND_RECURSIVE 1
#define KIND_ERRORCHECK 2
#define KIND_ROBUST_PI_PSHARED (16 | 32 | 64 | 128)

/* The thread's new id, or 0 when tid is no thread of this process's image. */
static int new_id_of(int tid)
{
    for (int i = 0; i < mpcr_nthr; i++)
        if (!mpcr_thr[i].gone && mpcr_thr[i].tid == tid) return mpcr_thr[i].new_tid;
    return 0;
}

int mpcr_locks_restore(void)
{
    int fixed = 0;
    uintptr_t first = (rtld_start + 7) & ~(uintptr_t)7;
    for (uintptr_t a = first; a + sizeof(struct mutex_words) <= rtld_start + rtld_len; a += 8) {
        struct mutex_words *m = (struct mutex_words *)a;
        int type = m->kind & KIND_TYPE_MASK;
        if ((m->lock != 1 && m->lock != 2) || m->owner <= 0 || (m->kind & KIND_ROBUST_PI_PSHARED) ||
            !(type == KIND_ERRORCHECK || (type == KIND_RECURSIVE && m->count >= 1)))
            continue;
        int now = new_id_of(m->owner);
        if (now && now != m->owner) m->owner = now, fixed++;
    }
    return fixed;
}
