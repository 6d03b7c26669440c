/* The library's side of a call to the proxy: publish, then wait for the
 * reply, spinning briefly and sleeping after that (see channel.h). */
#include "channel.h"
#include "profile.h"
#include "runtime.h"

#include <errno.h>
#include <stddef.h>
#include "report.h"
#include <unistd.h>

_Noreturn void mpcr_proxy_lost(void)
{
    mpcr_report("rank %d: its proxy (pid %d) is gone; ending the program", mpcr.rank,
                (int)mpcr.proxy_pid);
    _exit(1);
}

static void wait_reply(struct mpcr_chan *ch, uint32_t seq)
{
    if (mpcr_spin(&ch->reply.seq, seq, 1, mpcr_yield_ns())) return;
    /* Sleep. The store of app_sleeping and the proxy's store of reply.seq are
     * both sequentially consistent, so one of us sees the other: either we
     * see the reply below, or the proxy sees app_sleeping and wakes us. */
    atomic_store(&ch->call.app_sleeping, 1);
    for (;;) {
        uint32_t cur = atomic_load(&ch->reply.seq);
        if (cur == seq) break;
        mpcr_futex_wait(&ch->reply.seq, cur, 500);
        if (getppid() != mpcr.proxy_pid) mpcr_proxy_lost(); /* after any wake-up: cheap here */
    }
    atomic_store_explicit(&ch->call.app_sleeping, 0, memory_order_relaxed);
}

const struct mpcr_reply *mpcr_call_finish(void)
{
    struct mpcr_chan *ch = mpcr.chan;
    uint32_t seq = ++mpcr.seq;
    uint64_t t0 = __builtin_expect(mpcr_prof_on, 0) ? mpcr_prof_start() : 0;
    mpcr_line_fill(&ch->call, &mpcr.draft, offsetof(struct mpcr_call, app_sleeping), sizeof ch->call);
    atomic_store(&ch->call.seq, seq); /* seq_cst: orders it before the load below */
    if (atomic_load(&ch->reply.proxy_sleeping)) {
        atomic_fetch_add(&ch->doorbell, 1);
        mpcr_futex_wake(&ch->doorbell);
    }
    wait_reply(ch, seq);
    if (__builtin_expect(t0 != 0, 0)) mpcr_prof_round_trip(mpcr_ticks() - t0);
    if (__builtin_expect(mpcr_posts_carried != 0, 0)) mpcr_posts_settle_carried();
    return &ch->reply;
}
