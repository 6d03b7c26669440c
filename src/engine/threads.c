/* Per-thread kernel state that a new process does not have: the fs base
 * (thread pointer), the clear-child-tid address that pthread_join waits on,
 * the robust futex list, the rseq registration, the alternate signal stack,
 * and glibc's copy of the thread id in its thread block. Each thread reads
 * its own at the checkpoint and sets its own again after a restart. Also the
 * resume point (mpcr_ctx_save) the restorer jumps to. Also the thread's name,
 * and its CPU affinity where the program set one: an affinity equal to the
 * one the run was launched with is the launcher's binding, and a restart
 * keeps its own launcher's (another placement, another --bind-to). */
#include <asm/prctl.h>
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* rdi = ctx. Saves callee-saved registers, the stack pointer after return
 * and the return address; returns 0. A restored thread "returns" here a
 * second time with rax = the hand-off block (restore/jump in the restorer). */
__asm__(".text\n"
        ".globl mpcr_ctx_save\n"
        ".hidden mpcr_ctx_save\n"
        ".type mpcr_ctx_save,@function\n"
        "mpcr_ctx_save:\n"
        "  mov %rbx, 0(%rdi)\n"
        "  mov %rbp, 8(%rdi)\n"
        "  mov %r12, 16(%rdi)\n"
        "  mov %r13, 24(%rdi)\n"
        "  mov %r14, 32(%rdi)\n"
        "  mov %r15, 40(%rdi)\n"
        "  lea 8(%rsp), %rax\n"
        "  mov %rax, 48(%rdi)\n"
        "  mov (%rsp), %rax\n"
        "  mov %rax, 56(%rdi)\n"
        "  xor %eax, %eax\n"
        "  ret\n"
        ".size mpcr_ctx_save, .-mpcr_ctx_save\n");

/* The affinity the run (its start, or its last restart) was launched with.
 * In the engine's memory, so an image carries its run's. */
static uint64_t run_affinity[16];
static long run_affinity_len;

static long get_affinity(uint64_t *mask)
{
    memset(mask, 0, sizeof run_affinity);
    long n = syscall(SYS_sched_getaffinity, 0, sizeof run_affinity, mask);
    return n > 0 ? n : 0;
}

void mpcr_thr_affinity_init(void)
{
    run_affinity_len = get_affinity(run_affinity);
}

void mpcr_thr_capture(struct mpcr_thr *t)
{
    t->tid = (int)syscall(SYS_gettid);
    syscall(SYS_arch_prctl, ARCH_GET_FS, &t->fs_base);
    prctl(PR_GET_TID_ADDRESS, &t->tid_addr);
    syscall(SYS_get_robust_list, 0, &t->robust_head, &t->robust_len);
    sigaltstack(NULL, &t->altstack);
    prctl(PR_GET_NAME, t->name);
    long n = get_affinity(t->affinity);
    int launchers = n == run_affinity_len && !memcmp(t->affinity, run_affinity, sizeof run_affinity);
    t->affinity_len = launchers ? 0 : (int)n; /* 0: the restart's own stays */
    t->tid_field_ok = mpcr_tid_offset >= 0 && *(int *)(t->fs_base + (uintptr_t)mpcr_tid_offset) == t->tid;
}

void mpcr_thr_restore(struct mpcr_thr *t, int leader)
{
    /* Before any thread of the restart sets its own: each inherited the
     * restart's launch affinity through the restorer. */
    if (leader) mpcr_thr_affinity_init();
    t->new_tid = (int)syscall(SYS_gettid);
    if (t->tid_field_ok) *(int *)(t->fs_base + (uintptr_t)mpcr_tid_offset) = t->new_tid;
    syscall(SYS_set_tid_address, t->tid_addr);
    if (t->robust_head) syscall(SYS_set_robust_list, t->robust_head, t->robust_len);
    if (__rseq_size) /* glibc registered rseq for this thread: register it again, at the same place */
        syscall(SYS_rseq, (void *)(t->fs_base + (uintptr_t)__rseq_offset), __rseq_size < 32 ? 32 : __rseq_size, 0,
                RSEQ_SIG);
    prctl(PR_SET_NAME, t->name);
    if (t->affinity_len) /* CPUs that do not exist here are dropped by the kernel; none left fails harmlessly */
        syscall(SYS_sched_setaffinity, 0, (size_t)t->affinity_len, t->affinity);
    if (!(t->altstack.ss_flags & SS_DISABLE)) {
        stack_t ss = t->altstack;
        ss.ss_flags &= ~SS_ONSTACK;
        sigaltstack(&ss, NULL);
    }
}
