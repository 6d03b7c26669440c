/* Identity of the machine an image belongs to: CPU features, XSAVE layout and
 * the kernel's vDSO. Shared, header-only and libc-free, by the writer (which
 * records it) and the restorer (which refuses an image from elsewhere). */
#ifndef MPCR_IDENT_H
#define MPCR_IDENT_H

#include "crc32c.h"
#include "image.h"

static inline void mpcr_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static inline void mpcr_cpu_ident(struct mpcr_img_cpu *c)
{
    uint32_t r[4];
    __builtin_memset(c, 0, sizeof *c);
    mpcr_cpuid(1, 0, r);
    /* Bit 27 of ECX (OSXSAVE) and 11 of EDX... keep only feature bits that
     * say what instructions exist; OSXSAVE is a state bit, not a feature. */
    c->leaf1_ecx = r[2] & ~((1u << 27) | (1u << 31)); /* OSXSAVE, hypervisor */
    c->leaf1_edx = r[3];
    if (r[2] & (1u << 27)) {
        uint32_t lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        c->xcr0 = ((uint64_t)hi << 32) | lo;
        mpcr_cpuid(0xd, 0, r);
        c->xsave_size = r[1];
    }
    mpcr_cpuid(0, 0, r);
    if (r[0] >= 7) {
        mpcr_cpuid(7, 0, r);
        c->leaf7_ebx = r[1];
        c->leaf7_ecx = r[2] & ~(1u << 4); /* OSPKE: state, not feature */
        c->leaf7_edx = r[3];
    }
}

/* Returns NULL when an image taken on CPU `img` can run on CPU `cur`, or
 * the name of what is missing. */
static inline const char *mpcr_cpu_incompatible(const struct mpcr_img_cpu *img, const struct mpcr_img_cpu *cur)
{
    if ((img->xcr0 & cur->xcr0) != img->xcr0) return "XSAVE state components (xcr0)";
    if (img->xsave_size != cur->xsave_size) return "XSAVE area size";
    if ((img->leaf1_ecx & cur->leaf1_ecx) != img->leaf1_ecx) return "CPUID.1:ECX features";
    if ((img->leaf1_edx & cur->leaf1_edx) != img->leaf1_edx) return "CPUID.1:EDX features";
    if ((img->leaf7_ebx & cur->leaf7_ebx) != img->leaf7_ebx) return "CPUID.7:EBX features (AVX2/AVX-512)";
    if ((img->leaf7_ecx & cur->leaf7_ecx) != img->leaf7_ecx) return "CPUID.7:ECX features";
    if ((img->leaf7_edx & cur->leaf7_edx) != img->leaf7_edx) return "CPUID.7:EDX features";
    return 0;
}

#endif
