/* sched_getcpu after a restart: glibc reads it from the thread's rseq area,
 * which the kernel only updates for a registered area; the engine registers
 * every restored thread again. Moving the thread between CPUs must show.
 * A thread pinned to one CPU before the checkpoint is still pinned after. */
#include <pthread.h>
#include <sched.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>

#include "zdtm.h"

static int kernel_cpu(void)
{
    unsigned cpu;
    syscall(SYS_getcpu, &cpu, NULL, NULL);
    return (int)cpu;
}

static int check_on(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s)) return 1; /* not allowed here: nothing to check */
    for (int i = 0; i < 100; i++)
        if (sched_getcpu() != cpu || kernel_cpu() != cpu) return 0;
    return 1;
}

static cpu_set_t pinned_before, pinned_after;
static volatile int is_pinned;

static void *pinned(void *arg)
{
    (void)arg;
    CPU_ZERO(&pinned_before);
    CPU_SET(get_nprocs() - 1, &pinned_before);
    sched_setaffinity(0, sizeof pinned_before, &pinned_before);
    is_pinned = 1;
    zdtm_wait();
    sched_getaffinity(0, sizeof pinned_after, &pinned_after);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    zdtm_wait();
    int ok = check_on(0) && (get_nprocs() < 2 || check_on(1));
    return (void *)(long)ok;
}

int main(void)
{
    pthread_t t, p;
    pthread_create(&t, NULL, worker, NULL);
    pthread_create(&p, NULL, pinned, NULL);
    while (!is_pinned) usleep(1000);
    zdtm_ready();
    zdtm_wait();
    CHECK(check_on(0), "main thread: sched_getcpu %d, kernel says %d", sched_getcpu(), kernel_cpu());
    if (get_nprocs() >= 2) CHECK(check_on(1), "main thread on cpu 1: sched_getcpu %d", sched_getcpu());
    void *ok;
    pthread_join(t, &ok);
    CHECK(ok, "second thread: sched_getcpu is stale");
    pthread_join(p, NULL);
    CHECK(CPU_EQUAL(&pinned_before, &pinned_after), "the pinned thread lost its affinity");
    zdtm_pass();
}
