/* Entry point of the restorer and the two pieces of machine code it needs:
 * _start moves onto a stack inside the restorer's own zone (the kernel's
 * stack may sit where the image's memory goes), mpcr_jump / mpcr_clone_jump
 * put a thread on its saved resume point, and mpcr_clone_call starts the
 * helper thread that fills memory beside the main one (stream.c). */
#include "restore.h"

__attribute__((aligned(64))) static char main_stack[256 << 10];
char *const mpcr_main_stack_top = main_stack + sizeof main_stack;

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "  mov %rsp, %rdi\n"                         /* argc, argv, envp, auxv */
        "  mov mpcr_main_stack_top(%rip), %rsp\n"
        "  and $-16, %rsp\n"
        "  call restore_main\n"
        "  hlt\n"

        /* mpcr_jump(ctx, handoff): as if mpcr_ctx_save(ctx) returned handoff */
        ".globl mpcr_jump\n"
        "mpcr_jump:\n"
        "  mov 0(%rdi), %rbx\n"
        "  mov 8(%rdi), %rbp\n"
        "  mov 16(%rdi), %r12\n"
        "  mov 24(%rdi), %r13\n"
        "  mov 32(%rdi), %r14\n"
        "  mov 40(%rdi), %r15\n"
        "  mov 48(%rdi), %rsp\n"
        "  mov %rsi, %rax\n"
        "  jmp *56(%rdi)\n"

        /* mpcr_clone_jump(flags, stack, tls, ctx, handoff): a new thread that
         * jumps to ctx; returns its tid (or -errno) in the caller. */
        ".globl mpcr_clone_jump\n"
        "mpcr_clone_jump:\n"
        "  push %r12\n"
        "  push %r13\n"
        "  mov %rcx, %r12\n"
        "  mov %r8, %r13\n"
        "  mov %rdx, %r8\n"                          /* tls */
        "  xor %edx, %edx\n"                         /* parent_tid */
        "  xor %r10d, %r10d\n"                       /* child_tid */
        "  mov $56, %eax\n"                          /* __NR_clone */
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jnz 1f\n"
        "  mov %r12, %rdi\n"
        "  mov %r13, %rsi\n"
        "  jmp mpcr_jump\n"
        "1:\n"
        "  pop %r13\n"
        "  pop %r12\n"
        "  ret\n"

        /* mpcr_clone_call(flags, stack, tid, fn): a new thread that runs fn()
         * and exits (that thread only); returns its tid (or -errno). */
        ".globl mpcr_clone_call\n"
        "mpcr_clone_call:\n"
        "  mov %rcx, %r9\n"                          /* fn: the child has it too */
        "  mov %rdx, %r10\n"                         /* child_tid: cleared at exit */
        "  xor %edx, %edx\n"                         /* parent_tid */
        "  xor %r8d, %r8d\n"                         /* tls */
        "  mov $56, %eax\n"                          /* __NR_clone */
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jnz 2f\n"
        "  and $-16, %rsp\n"
        "  call *%r9\n"
        "  mov $60, %eax\n"                          /* __NR_exit */
        "  xor %edi, %edi\n"
        "  syscall\n"
        "  hlt\n"
        "2:\n"
        "  ret\n");
