/* The job's profile (`mpcr run --profile`, docs/profile.md): for each MPI
 * function the program called, its calls, the time inside it and the bytes
 * it was given to send; the round trips to the proxy and how much of them
 * the proxy spent serving; the call sites. Counted in the program's memory,
 * so a checkpoint keeps them and a restarted job's profile is the whole
 * run's; written at MPI_Finalize into the directory MPCR_PROFILE names.
 *
 * Off (the variable unset), an entry point pays one load and one branch
 * at each end of the call: MPCR_PROFILED's scope. */
#ifndef MPCR_LIB_PROFILE_H
#define MPCR_LIB_PROFILE_H

#include <stdint.h>

#include "clock.h"

extern int mpcr_prof_on;

/* One call being timed; t0 is 0 when the profile is off. */
struct mpcr_prof_scope {
    uint64_t t0; /* mpcr_ticks() */
    uint64_t bytes;
    const void *site; /* the program's instruction after its call */
    unsigned epoch;   /* a call that a restart cut in two is counted without its time */
    int fn;           /* index in mpcr_prof_names (api_gen.c) */
};

void mpcr_prof_note(const struct mpcr_prof_scope *s);
extern unsigned mpcr_prof_epoch;
/* Set by a front end that calls the entry points for the program (the Open
 * MPI one, src/lib/ompi), so that the site is the program's, not its own;
 * `fronted` says that one does (a thread-local read costs a call into the
 * loader, which programs of MPICH's ABI need not pay). */
extern _Thread_local const void *mpcr_prof_site;
extern int mpcr_prof_fronted;

/* The start of a timed call: never 0 ("off"). */
static inline uint64_t mpcr_prof_start(void)
{
    return mpcr_ticks() | 1;
}

static inline void mpcr_prof_leave(struct mpcr_prof_scope *s)
{
    if (__builtin_expect(s->t0 != 0, 0)) mpcr_prof_note(s);
}

static inline const void *mpcr_prof_site_of(const void *own)
{
    if (!mpcr_prof_fronted) return own;
    const void *s = mpcr_prof_site;
    if (s) mpcr_prof_site = 0;
    return s ? s : own;
}

/* The first line of a generated entry point (gen_api.py): times the whole
 * call, the wait for the library's lock included. */
#define MPCR_PROFILED(index)                                                                      \
    __attribute__((cleanup(mpcr_prof_leave))) struct mpcr_prof_scope mpcr_prof_ = {0};            \
    if (__builtin_expect(mpcr_prof_on, 0))                                                         \
    mpcr_prof_ = (struct mpcr_prof_scope){mpcr_prof_start(), 0,                                    \
                                          mpcr_prof_site_of(__builtin_return_address(0)),          \
                                          mpcr_prof_epoch, (index)}
/* The bytes of a send buffer (count elements of a type), once the call's
 * arguments are checked. */
#define MPCR_PROFILED_BYTES(expr)                                                                 \
    do {                                                                                           \
        if (__builtin_expect(mpcr_prof_.t0 != 0, 0)) mpcr_prof_.bytes = (uint64_t)(expr);          \
    } while (0)
/* Front ends: the program's call site, before calling an entry point. */
#define MPCR_PROF_SITE()                                                                          \
    do {                                                                                           \
        if (__builtin_expect(mpcr_prof_on, 0))                                                     \
            mpcr_prof_fronted = 1, mpcr_prof_site = __builtin_return_address(0);                   \
    } while (0)

/* A round trip to the proxy (call.c), when the profile is on: its ticks. */
void mpcr_prof_round_trip(uint64_t ticks);

/* MPI_Init: reads MPCR_PROFILE and tells the proxy (it times its serving). */
void mpcr_prof_init(void);
/* MPI_Finalize: writes DIR/rank-R.prof (docs/profile.md has its format). */
void mpcr_prof_finalize(void);
/* The engine's hooks (restart.c), in its signal context: the time of the
 * piece before a restart is kept, the clock's new origin taken. */
void mpcr_prof_before_checkpoint(void);
void mpcr_prof_restarted(void);

/* The generated table of function names (api_gen.c). */
extern const char *const mpcr_prof_names[];
extern const int mpcr_prof_functions;

#endif
