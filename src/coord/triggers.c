/* See triggers.h. The handler only counts; the coordinator's loop, which
 * wakes at least every 50 ms, reads the counts (mpcr_triggers_poll). */
#include "triggers.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

const char *const mpcr_trigger_word[MPCR_TRIGGER_KINDS] = {"checkpoint", "exit"};

static int own_signo[MPCR_TRIGGER_KINDS];
static volatile sig_atomic_t delivered[MPCR_TRIGGER_KINDS];

static void on_signal(int sig)
{
    for (int k = 0; k < MPCR_TRIGGER_KINDS; k++)
        if (own_signo[k] == sig) delivered[k]++;
}

const char *mpcr_signal_name(int signo, char *buf, unsigned cap)
{
    const char *abbrev = signo > 0 ? sigabbrev_np(signo) : NULL;
    if (abbrev) return abbrev;
    snprintf(buf, cap, "%d", signo);
    return buf;
}

void mpcr_triggers_install(struct mpcr_triggers *t, int continue_signal, int exit_signal)
{
    memset(t, 0, sizeof *t);
    t->signo[MPCR_TRIGGER_CONTINUE] = continue_signal;
    t->signo[MPCR_TRIGGER_EXIT] = exit_signal;
    for (int k = 0; k < MPCR_TRIGGER_KINDS; k++) {
        t->ended[k] = -1e9;
        own_signo[k] = t->signo[k];
        delivered[k] = 0;
        if (!t->signo[k]) continue;
        struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
        sigaction(t->signo[k], &sa, NULL);
    }
}

void mpcr_triggers_note(struct mpcr_triggers *t, enum mpcr_trigger_kind kind, const char *from,
                        double now)
{
    if (kind >= MPCR_TRIGGER_KINDS || t->pending[kind] || t->busy[kind] ||
        now - t->ended[kind] < MPCR_TRIGGER_MERGE_S)
        return; /* the same request, told by another process */
    snprintf(t->from[kind], sizeof t->from[kind], "%s", from);
    t->pending[kind] = 1;
}

void mpcr_triggers_poll(struct mpcr_triggers *t, double now)
{
    for (int k = 0; k < MPCR_TRIGGER_KINDS; k++) {
        unsigned long count = (unsigned long)delivered[k];
        if (count == t->own[k]) continue;
        t->own[k] = count;
        mpcr_triggers_note(t, (enum mpcr_trigger_kind)k, "the coordinator's process", now);
    }
}

int mpcr_triggers_take(struct mpcr_triggers *t)
{
    int k = t->pending[MPCR_TRIGGER_EXIT] ? MPCR_TRIGGER_EXIT
            : t->pending[MPCR_TRIGGER_CONTINUE] ? MPCR_TRIGGER_CONTINUE
                                                : -1;
    if (k < 0) return -1;
    t->pending[k] = 0, t->busy[k] = 1;
    if (k == MPCR_TRIGGER_EXIT && t->pending[MPCR_TRIGGER_CONTINUE]) /* answered by this one */
        t->pending[MPCR_TRIGGER_CONTINUE] = 0, t->busy[MPCR_TRIGGER_CONTINUE] = 1;
    return k;
}

void mpcr_triggers_done(struct mpcr_triggers *t, int kind, double now)
{
    for (int k = 0; k < MPCR_TRIGGER_KINDS; k++)
        if (k == kind || (kind == MPCR_TRIGGER_EXIT && t->busy[k])) t->busy[k] = 0, t->ended[k] = now;
}

void mpcr_triggers_drop(struct mpcr_triggers *t)
{
    for (int k = 0; k < MPCR_TRIGGER_KINDS; k++)
        t->pending[k] = 0;
}
