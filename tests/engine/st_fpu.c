/* Floating-point and vector registers live in a tight loop at the instant of
 * the checkpoint: x87, SSE (xmm0-15), AVX (ymm upper halves), AVX-512
 * (zmm0-31 and k0-7) when the CPU has it, and MXCSR. The loop holds its
 * state only in registers and checks them on every turn; the driver's go
 * file ends it after the restart. */
#include <cpuid.h>
#include <pthread.h>
#include <stdint.h>
#include <xmmintrin.h>

#include "zdtm.h"

static volatile int stop;
static volatile unsigned long turns;

static void *watch(void *arg)
{
    (void)arg;
    zdtm_wait();
    stop = 1;
    return NULL;
}

static const int ones[8] __attribute__((aligned(32))) = {1, 1, 1, 1, 1, 1, 1, 1};
static const int threes[16] __attribute__((aligned(64))) = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};

__attribute__((target("avx2"))) static int loop_avx(void)
{
    int bad = 0;
    __asm__ volatile(
        "vpcmpeqd %%ymm15, %%ymm15, %%ymm15\n" /* all ones */
        "mov $1, %%eax\n vmovd %%eax, %%xmm0\n vpbroadcastd %%xmm0, %%ymm0\n"
        "vpaddd %%ymm0, %%ymm0, %%ymm1\n vpaddd %%ymm1, %%ymm0, %%ymm2\n vpaddd %%ymm2, %%ymm0, %%ymm3\n"
        "vpaddd %%ymm3, %%ymm0, %%ymm4\n vpaddd %%ymm4, %%ymm0, %%ymm5\n vpaddd %%ymm5, %%ymm0, %%ymm6\n"
        "vpaddd %%ymm6, %%ymm0, %%ymm7\n vpaddd %%ymm7, %%ymm0, %%ymm8\n vpaddd %%ymm8, %%ymm0, %%ymm9\n"
        "vpaddd %%ymm9, %%ymm0, %%ymm10\n vpaddd %%ymm10, %%ymm0, %%ymm11\n vpaddd %%ymm11, %%ymm0, %%ymm12\n"
        "vpaddd %%ymm12, %%ymm0, %%ymm13\n vpaddd %%ymm13, %%ymm0, %%ymm14\n"
        "fldpi\n fld1\n"
        "1:\n"
        /* ymm0 must be 1 in every lane, and ymm(k) - ymm(k-1) == ymm0 */
        "vpcmpeqd %[ones], %%ymm0, %%ymm15\n vpmovmskb %%ymm15, %%eax\n cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm13, %%ymm14, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm6, %%ymm7, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm0, %%ymm1, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm9, %%ymm10, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm2, %%ymm3, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm11, %%ymm12, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "vpsubd %%ymm4, %%ymm5, %%ymm15\n vpcmpeqd %%ymm0, %%ymm15, %%ymm15\n vpmovmskb %%ymm15, %%eax\n"
        "cmp $-1, %%eax\n jne 2f\n"
        "incq %[turns]\n"
        "cmpl $0, %[stop]\n je 1b\n"
        /* x87: st0 = 1, st1 = pi */
        "fld1\n fcomip %%st(1), %%st\n jp 3f\n jne 3f\n fstp %%st(0)\n fldpi\n fcomip %%st(1), %%st\n jp 3f\n jne 3f\n"
        "fstp %%st(0)\n jmp 4f\n"
        "2:\n fninit\n movl $1, %[bad]\n jmp 4f\n"
        "3:\n fninit\n movl $2, %[bad]\n"
        "4:\n vzeroupper\n"
        : [bad] "+m"(bad), [turns] "+m"(turns)
        : [stop] "m"(stop), [ones] "m"(ones)
        : "rax", "memory", "cc", "st", "st(1)", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
          "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
    return bad;
}

__attribute__((target("avx512f,avx512bw"))) static int loop_avx512(void)
{
    int bad = 0;
    __asm__ volatile(
        "mov $3, %%eax\n vpbroadcastd %%eax, %%zmm16\n"
        "vpaddd %%zmm16, %%zmm16, %%zmm31\n" /* zmm31 = 6 */
        "mov $0x5a5a, %%eax\n kmovw %%eax, %%k3\n"
        "1:\n"
        "vpcmpeqd %[threes], %%zmm16, %%k2\n kortestw %%k2, %%k2\n jnc 2f\n"
        "vpsubd %%zmm16, %%zmm31, %%zmm17\n vpcmpeqd %%zmm16, %%zmm17, %%k1\n kortestw %%k1, %%k1\n jnc 2f\n"
        "kmovw %%k3, %%eax\n cmp $0x5a5a, %%eax\n jne 2f\n"
        "incq %[turns]\n"
        "cmpl $0, %[stop]\n je 1b\n jmp 3f\n"
        "2:\n movl $1, %[bad]\n"
        "3:\n vzeroupper\n"
        : [bad] "+m"(bad), [turns] "+m"(turns)
        : [stop] "m"(stop), [threes] "m"(threes)
        : "rax", "memory", "cc", "xmm16", "xmm17", "xmm31", "k1", "k2", "k3");
    return bad;
}


int main(void)
{
    unsigned a, b, c, d;
    __cpuid_count(7, 0, a, b, c, d);
    int has_avx512 = (b & (1u << 16)) && (b & (1u << 30));
    __cpuid(1, a, b, c, d);
    CHECK((c & (1u << 28)), "this test needs AVX");
    _mm_setcsr((_mm_getcsr() & ~0x6000u) | 0x4000u); /* round toward +inf */
    pthread_t t;
    pthread_create(&t, NULL, watch, NULL);
    zdtm_ready(); /* the checkpoint lands inside the loop below */
    int bad = has_avx512 ? loop_avx512() : loop_avx();
    pthread_join(t, NULL);
    CHECK(!bad, "vector/x87 registers changed (%d) after %lu turns", bad, turns);
    CHECK((_mm_getcsr() & 0x6000u) == 0x4000u, "MXCSR rounding mode lost");
    printf("turns=%lu avx512=%d\n", turns, has_avx512);
    zdtm_pass();
}
