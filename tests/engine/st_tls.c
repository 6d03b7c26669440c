/* __thread variables of the main thread and 8 threads survive, each
 * thread keeps its own, glibc calls that use its cached thread id
 * (pthread_kill) keep working, and every thread keeps its name. */
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "zdtm.h"

#define N 8
static __thread long tls_value;
static __thread char tls_buf[256];
static __thread int tls_zero; /* .tbss */
static pthread_barrier_t ready, go;
static int failed[N + 1];

static void set(long id)
{
    tls_value = id * 1000 + 7;
    for (int i = 0; i < 256; i++) tls_buf[i] = (char)(id + i);
    tls_zero = 0;
}

static int check(long id)
{
    if (tls_value != id * 1000 + 7 || tls_zero) return 0;
    for (int i = 0; i < 256; i++)
        if (tls_buf[i] != (char)(id + i)) return 0;
    return 1;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%ld", id);
    pthread_setname_np(pthread_self(), name);
    set(id);
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&go);
    failed[id] = !check(id);
    /* glibc's own per-thread data: its cached tid must be the new one */
    failed[id] |= pthread_kill(pthread_self(), 0) != 0;
    char now[16] = "";
    pthread_getname_np(pthread_self(), now, sizeof now);
    failed[id] |= strcmp(now, name) != 0;
    return (void *)(id * 3);
}

int main(void)
{
    pthread_t t[N];
    pthread_barrier_init(&ready, NULL, N + 1);
    pthread_barrier_init(&go, NULL, N + 1);
    set(0);
    for (long i = 1; i <= N; i++) pthread_create(&t[i - 1], NULL, worker, (void *)i);
    pthread_barrier_wait(&ready);
    zdtm_ready();
    zdtm_wait();
    pthread_barrier_wait(&go);
    for (long i = 1; i <= N; i++) {
        void *ret;
        CHECK(pthread_join(t[i - 1], &ret) == 0 && ret == (void *)(i * 3), "join %ld", i);
        CHECK(!failed[i], "thread %ld lost its TLS or name", i);
    }
    CHECK(check(0), "main thread TLS");
    char comm[64] = "";
    FILE *f = fopen("/proc/self/comm", "r");
    CHECK(f && fgets(comm, sizeof comm, f) && !strcmp(comm, "st_tls\n"), "process name is %s", comm);
    fclose(f);
    CHECK(getpid() == syscall(SYS_gettid), "the main thread is not the process");
    zdtm_pass();
}
