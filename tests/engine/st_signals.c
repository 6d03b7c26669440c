/* Signal state: handlers (with SA_SIGINFO and a handler mask), an ignored
 * signal, per-thread masks, signals pending at the checkpoint on a thread
 * and on the process (each delivered once, when unblocked after the
 * restart), an alternate signal stack that a handler still runs on, and an
 * interval timer still counting down. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#include "zdtm.h"

static volatile sig_atomic_t got_usr1, got_usr2, got_pwr, on_alt;
static void on_pwr(int sig) { (void)sig; got_pwr++; }
static char altstack[64 << 10];
static pthread_barrier_t bar;
static sigset_t thread_mask_after;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
    (void)si, (void)uc;
    if (sig == SIGUSR1) got_usr1++;
}

static void on_usr2(int sig)
{
    (void)sig;
    char here;
    on_alt = (uintptr_t)&here >= (uintptr_t)altstack && (uintptr_t)&here < (uintptr_t)altstack + sizeof altstack;
    got_usr2++;
}

static void *masked_thread(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGWINCH);
    sigaddset(&s, SIGURG);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    pthread_sigmask(SIG_SETMASK, NULL, &thread_mask_after);
    return NULL;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = on_usr1;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaddset(&sa.sa_mask, SIGTERM);
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");
    struct sigaction sa2 = {0};
    sa2.sa_handler = on_usr2;
    sa2.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa2, NULL);
    signal(SIGHUP, SIG_IGN);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    signal(SIGPWR, on_pwr);
    sigset_t pwr;
    sigemptyset(&pwr);
    sigaddset(&pwr, SIGPWR);
    pthread_sigmask(SIG_BLOCK, &pwr, NULL); /* the thread below inherits it: blocked everywhere */
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, masked_thread, NULL);
    pthread_barrier_wait(&bar);
    raise(SIGUSR1);            /* pending on this thread */
    kill(getpid(), SIGPWR);    /* pending on the process */
    struct itimerval it = {{0, 0}, {1000, 0}};
    setitimer(ITIMER_REAL, &it, NULL);
    CHECK(got_usr1 == 0, "delivered while blocked");
    zdtm_ready();
    zdtm_wait();

    struct sigaction now;
    sigaction(SIGUSR1, NULL, &now);
    CHECK(now.sa_sigaction == on_usr1 && (now.sa_flags & SA_SIGINFO) && sigismember(&now.sa_mask, SIGTERM),
          "SIGUSR1 action");
    sigaction(SIGHUP, NULL, &now);
    CHECK(now.sa_handler == SIG_IGN, "SIGHUP no longer ignored");
    sigset_t mine;
    pthread_sigmask(SIG_SETMASK, NULL, &mine);
    CHECK(sigismember(&mine, SIGUSR1) && !sigismember(&mine, SIGWINCH), "main thread mask");
    sigset_t pend;
    sigpending(&pend);
    CHECK(sigismember(&pend, SIGUSR1), "the pending SIGUSR1 was lost");
    CHECK(got_usr1 == 0, "delivered while blocked");
    pthread_sigmask(SIG_UNBLOCK, &block, NULL);
    CHECK(got_usr1 == 1, "pending SIGUSR1 delivered %d times", (int)got_usr1);
    CHECK(sigismember(&pend, SIGPWR), "the process-wide pending SIGPWR was lost");
    pthread_sigmask(SIG_UNBLOCK, &pwr, NULL);
    CHECK(got_pwr == 1, "pending SIGPWR delivered %d times", (int)got_pwr);
    getitimer(ITIMER_REAL, &it);
    CHECK(it.it_value.tv_sec > 900 && it.it_value.tv_sec <= 1000, "ITIMER_REAL lost: %ld s left", (long)it.it_value.tv_sec);
    raise(SIGUSR2);
    CHECK(got_usr2 == 1 && on_alt, "SIGUSR2 not on the alternate stack");
    stack_t cur;
    sigaltstack(NULL, &cur);
    CHECK(cur.ss_sp == altstack && cur.ss_size == sizeof altstack, "sigaltstack");
    pthread_barrier_wait(&bar);
    pthread_join(t, NULL);
    CHECK(sigismember(&thread_mask_after, SIGWINCH) && sigismember(&thread_mask_after, SIGURG), "thread mask lost");
    zdtm_pass();
}
