/* See triggers.h. The handler counts and rings the channel's doorbell, so
 * that a proxy asleep waiting for a call looks at once (ckpt_poll). */
#include "triggers.h"
#include "proxy.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

static const struct {
    const char *env, *word;
} kinds[] = {{"MPCR_CHECKPOINT_SIGNAL", "checkpoint"}, {"MPCR_EXIT_SIGNAL", "exit"}};
#define KINDS (sizeof kinds / sizeof kinds[0])

static int signo[KINDS];
static _Atomic unsigned delivered[KINDS], any;
static unsigned told[KINDS];

static int signal_of(unsigned k)
{
    const char *s = getenv(kinds[k].env);
    int v = s ? atoi(s) : 0;
    return v > 0 && v < NSIG ? v : 0;
}

static void on_signal(int sig)
{
    for (unsigned k = 0; k < KINDS; k++)
        if (signo[k] == sig) atomic_fetch_add(&delivered[k], 1);
    atomic_store(&any, 1);
    if (proxy.chan) {
        atomic_fetch_add(&proxy.chan->doorbell, 1);
        mpcr_futex_wake(&proxy.chan->doorbell);
    }
}

void triggers_catch(void)
{
    for (unsigned k = 0; k < KINDS; k++) {
        signo[k] = signal_of(k);
        struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
        if (signo[k]) sigaction(signo[k], &sa, NULL);
    }
}

void triggers_ignore(void)
{
    for (unsigned k = 0; k < KINDS; k++)
        if (signal_of(k)) signal(signal_of(k), SIG_IGN);
}

const char *triggers_take(void)
{
    if (!atomic_load_explicit(&any, memory_order_acquire)) return NULL;
    atomic_store(&any, 0);
    for (unsigned k = 0; k < KINDS; k++) {
        unsigned n = atomic_load(&delivered[k]);
        if (n != told[k]) {
            told[k] = n;
            atomic_store(&any, 1); /* another kind may be waiting too */
            return kinds[k].word;
        }
    }
    return NULL;
}
