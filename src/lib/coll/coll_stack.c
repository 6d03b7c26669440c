/* Stacks for the tasks of non-blocking collectives (coll_task.c), and the
 * switch between a task and the program's own stack (x86-64, System V).
 *
 * A task's stack is plain anonymous memory of the program, so a checkpoint
 * saves it like any other (pages never touched are never saved), and a
 * suspended task, whose registers are on that stack, resumes after a
 * restart at the same addresses. Only the registers a called function must
 * preserve, the SSE control word and the x87 control word are switched:
 * the switch is a function call for the compiler, so nothing else is live
 * across it. The signal mask and TLS stay the thread's (no system call,
 * unlike swapcontext). */
#include "coll_stack.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Saves the callee-saved registers on the current stack, stores its
 * pointer in *save, continues on the stack `to` left by an earlier switch
 * (or laid out by coll_stack_prepare), restores its registers, returns there. */
__asm__(".text\n"
        ".globl mpcr_stack_switch\n"
        ".hidden mpcr_stack_switch\n"
        ".type mpcr_stack_switch, @function\n"
        "mpcr_stack_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $8, %rsp\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size mpcr_stack_switch, .-mpcr_stack_switch\n");

/* Each stack: a guard page below it (an overflow faults instead of writing
 * into the next mapping). Stacks of ended tasks are kept for the next. */
#define KEEP_MAX 16

static void *kept[KEEP_MAX];
static unsigned nkept;

static size_t page(void)
{
    static size_t p;
    if (!p) p = (size_t)sysconf(_SC_PAGESIZE);
    return p;
}

void *coll_stack_get(void)
{
    if (nkept) return kept[--nkept];
    char *m = mmap(NULL, COLL_STACK_SIZE + page(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return NULL;
    mprotect(m, page(), PROT_NONE);
    return m + page();
}

void coll_stack_put(void *stack)
{
    if (!stack) return;
    if (nkept < KEEP_MAX)
        kept[nkept++] = stack;
    else
        munmap((char *)stack - page(), COLL_STACK_SIZE + page());
}

void *coll_stack_prepare(void *stack, void (*entry)(void))
{
    /* What mpcr_stack_switch pops, from the lowest address: the control
     * words, r15 r14 r13 r12 rbx rbp, the address it returns to (entry),
     * and a null return address for entry itself, which never returns.
     * entry starts with the stack aligned as after a call (rsp + 8 a
     * multiple of 16). */
    uint64_t *top = (uint64_t *)((uintptr_t)((char *)stack + COLL_STACK_SIZE) & ~(uintptr_t)15);
    uint64_t *sp = top - 9;
    uint32_t mxcsr = __builtin_ia32_stmxcsr();
    uint16_t fpucw;
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    sp[0] = (uint64_t)mxcsr | (uint64_t)fpucw << 32;
    for (int i = 1; i <= 6; i++)
        sp[i] = 0;
    sp[7] = (uint64_t)(uintptr_t)entry;
    sp[8] = 0;
    return sp;
}
