/* The restorer's own address space, from /proc/self/maps: where the kernel
 * put its vDSO mappings and what else (the initial stack) must go before
 * the image's memory can take its place. Its own zone is left alone. */
#include <linux/fcntl.h>

#include "parse.h"
#include "restore.h"

int read_own_maps(struct own_maps *m)
{
    static char buf[64 << 10];
    long fd = sc(openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return (int)fd;
    long len = 0, n;
    while ((n = sc(read, fd, buf + len, sizeof buf - 1 - (size_t)len)) > 0) len += n;
    sc(close, fd);
    if (n < 0) return (int)n;
    buf[len] = 0;
    memset(m, 0, sizeof *m);
    for (const char *p = buf; *p;) {
        uint64_t start = mpcr_parse_hex(&p);
        p++;
        uint64_t end = mpcr_parse_hex(&p);
        const char *name = p;
        while (*p && *p != '\n') p++;
        const char *eol = p;
        if (*p) p++;
        /* the name is the last field; find its start */
        const char *q = eol;
        while (q > name && q[-1] != ' ') q--;
        size_t nl = (size_t)(eol - q);
        if (nl == 6 && !memcmp(q, "[vvar]", 6)) m->vvar = start, m->vvar_len = end - start;
        else if (nl == 13 && !memcmp(q, "[vvar_vclock]", 13)) m->vclock = start, m->vclock_len = end - start;
        else if (nl == 6 && !memcmp(q, "[vdso]", 6)) m->vdso = start, m->vdso_len = end - start;
        else if (nl == 10 && !memcmp(q, "[vsyscall]", 10)) continue;
        else if (start >= MPCR_ZONE_START && end <= MPCR_ZONE_START + MPCR_ZONE_LEN) continue;
        else if (m->nother < 64) {
            m->other_start[m->nother] = start;
            m->other_end[m->nother++] = end;
        }
    }
    return 0;
}
