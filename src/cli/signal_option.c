/* See signal_option.h. */
#include "signal_option.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

void mpcr_signals_init(struct mpcr_signals *s)
{
    *s = (struct mpcr_signals){MPCR_DEFAULT_CHECKPOINT_SIGNAL, MPCR_DEFAULT_EXIT_SIGNAL, 0};
}

/* Signals that cannot ask for a checkpoint: uncatchable, the proxy's own
 * (SIGCHLD), faults, and the two the engine and the MPI library keep. */
static const char *unusable(int sig)
{
    if (sig == SIGKILL || sig == SIGSTOP) return "it cannot be caught";
    if (sig == SIGCHLD) return "the proxy needs it";
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP)
        return "it reports a fault";
    if (sig == SIGRTMAX) return "the checkpoint engine uses it";
    if (sig == SIGRTMAX - 1) return "it is left to the MPI library";
    return NULL;
}

static int parse_signal(const char *v)
{
    if (!strcasecmp(v, "none")) return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (!*end && end != v) return n >= 0 && n < NSIG ? (int)n : -1;
    if (!strncasecmp(v, "SIG", 3)) v += 3;
    for (int sig = 1; sig < NSIG; sig++) {
        const char *name = sigabbrev_np(sig);
        if (name && !strcasecmp(name, v)) return sig;
    }
    return -1;
}

int mpcr_signal_option(struct mpcr_signals *s, const char *opt, const char *value)
{
    int *slot = !strcmp(opt, "--checkpoint-signal") ? &s->checkpoint
                : !strcmp(opt, "--exit-signal")     ? &s->exit
                                                    : NULL;
    if (!slot) return 0;
    int sig = value ? parse_signal(value) : -1;
    const char *why = sig > 0 ? unusable(sig) : NULL;
    if (sig < 0 || why) {
        mpcr_err("%s %s: %s (a name such as USR1 or SIGTERM, a number, or none)", opt,
                 value ? value : "", why ? why : "no such signal");
        return -1;
    }
    *slot = sig;
    s->given = 1;
    return 1;
}

int mpcr_signals_check(const struct mpcr_signals *s)
{
    if (s->checkpoint && s->checkpoint == s->exit) {
        mpcr_err("--checkpoint-signal and --exit-signal name the same signal, %s; give two "
                 "different ones (or none for one of them)", sigabbrev_np(s->exit));
        return -1;
    }
    return 0;
}

void mpcr_signals_export(const struct mpcr_signals *s)
{
    char v[16];
    snprintf(v, sizeof v, "%d", s->checkpoint);
    setenv("MPCR_CHECKPOINT_SIGNAL", v, 1);
    snprintf(v, sizeof v, "%d", s->exit);
    setenv("MPCR_EXIT_SIGNAL", v, 1);
}

void mpcr_signals_ignore(const struct mpcr_signals *s)
{
    if (s->checkpoint) signal(s->checkpoint, SIG_IGN);
    if (s->exit) signal(s->exit, SIG_IGN);
}

void mpcr_signals_argv(const struct mpcr_signals *s, char **argv, int *k, char num[2][16])
{
    snprintf(num[0], 16, "%d", s->checkpoint);
    snprintf(num[1], 16, "%d", s->exit);
    argv[(*k)++] = "--checkpoint-signal", argv[(*k)++] = num[0];
    argv[(*k)++] = "--exit-signal", argv[(*k)++] = num[1];
}
