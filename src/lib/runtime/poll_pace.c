/* Pacing of polls that keep finding nothing (MPI_Iprobe, MPI_Improbe,
 * MPI_Test, Testany/Testsome/Testall, MPI_Request_get_status).
 *
 * A program that spins on MPI_Iprobe until a message comes would, under
 * mpcr, hand its core to its proxy and back at every call: on a shared
 * core that is a scheduler hand-off (10-20 us on some machines) for an
 * answer that is almost always "nothing yet". MPI lets a poll say "nothing
 * yet" whenever it likes, provided a poll repeated often enough sees a
 * message once it has been sent (MPI 4.0 section 3.8.1, and the progress
 * rule of 2.9). So after the proxy has answered a question negatively, the
 * same question (same call and arguments: struct mpcr_poll_question,
 * filled by each caller) is answered "nothing yet" here, without the
 * proxy, for as long as that answer took to come back, at most
 * LONGEST_PACE_NS; the next poll after that asks the proxy again. A spinning program then spends about half its time asking, the
 * delay before it sees a message grows by at most one round trip, and with
 * a core each (a round trip well under a microsecond) nothing changes.
 *
 * The answer holds only while the program makes no other call to the
 * proxy, and no poll finds something: a program that polls, synchronises
 * with the sender (a barrier, a message it receives or a poll sees) and
 * polls again is asked afresh, as a program that relies on the message
 * having arrived by then expects.
 *
 * Each question has its own deadline, so a program alternating polls of
 * two sources still asks about both. A question whose slot another one
 * took is simply asked again. The deadline is a CLOCK_MONOTONIC time: one
 * further away than LONGEST_PACE_NS (an image restarted on another host,
 * whose clock started elsewhere) counts as passed.
 *
 * MPCR_POLL_PACE_NS sets the pace instead of the round trip's own length;
 * 0 asks the proxy at every poll. */
#include "channel.h"
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

#define LONGEST_PACE_NS 50000u
#define PACE_SLOTS      16u /* distinct questions polled at once, a power of 2 */

struct paced {
    struct mpcr_poll_question q;
    uint64_t until;  /* a poll before this time answers "nothing yet" */
    uint32_t others; /* other_calls() at the answer */
};
static struct paced slots[PACE_SLOTS];
static uint32_t polls_asked; /* calls to the proxy made by paced polls */

/* How many calls to the proxy other than paced polls' the program has made
 * (mpcr.seq counts every call; a restart's new channel starts it again,
 * which counts as a change too). */
static uint32_t other_calls(void)
{
    return mpcr.seq - polls_asked;
}

/* The pace set by MPCR_POLL_PACE_NS, or -1: the round trip's own length. */
static int64_t pace_setting(void)
{
    static int64_t setting = -2;
    if (setting == -2) {
        const char *s = getenv("MPCR_POLL_PACE_NS");
        setting = s && *s ? (int64_t)strtoull(s, NULL, 10) : -1;
        if (setting > (int64_t)LONGEST_PACE_NS) setting = LONGEST_PACE_NS;
    }
    return setting;
}

static struct paced *slot_of(const struct mpcr_poll_question *q)
{
    uint32_t h = (q->op * 0x9e3779b1u) ^ (q->comm * 0x85ebca6bu) ^
                 ((uint32_t)q->peer * 0xc2b2ae35u) ^ (uint32_t)q->tag;
    return &slots[(h ^ (h >> 16)) & (PACE_SLOTS - 1)];
}

static int same(const struct mpcr_poll_question *a, const struct mpcr_poll_question *b)
{
    return a->op == b->op && a->comm == b->comm && a->peer == b->peer && a->tag == b->tag;
}

int mpcr_poll_paced(const struct mpcr_poll_question *q)
{
    struct paced *s = slot_of(q);
    if (!s->until || !same(&s->q, q)) return 0;
    if (s->others != other_calls()) return s->until = 0;
    uint64_t now = mpcr_now_ns();
    if (now < s->until && s->until - now <= LONGEST_PACE_NS) return 1;
    s->until = 0;
    return 0;
}

void mpcr_poll_answered(const struct mpcr_poll_question *q, int found, uint64_t asked_ns)
{
    struct paced *s = slot_of(q);
    int64_t setting = pace_setting();
    if (!found) polls_asked++; /* a call that found something counts as another call */
    if (found || setting == 0) {
        if (same(&s->q, q)) s->until = 0;
        return;
    }
    uint64_t now = mpcr_now_ns();
    uint64_t pace = setting > 0 ? (uint64_t)setting : now - asked_ns;
    if (pace > LONGEST_PACE_NS) pace = LONGEST_PACE_NS;
    s->q = *q;
    s->until = now + pace;
    s->others = other_calls();
}
