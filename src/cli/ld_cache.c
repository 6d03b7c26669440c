/* See ld_cache.h. The format is glibc's "new" one (glibc-ld.so.cache1.1),
 * the only one glibc 2.32 and later write: a header, then fixed-size
 * entries whose names are offsets from the start of the file. */
#include "ld_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_FILE  "/etc/ld.so.cache"
#define CACHE_MAGIC "glibc-ld.so.cache1.1"

struct header {
    char magic[sizeof CACHE_MAGIC - 1];
    uint32_t nlibs, len_strings;
    uint8_t flags, unused0[3];
    uint32_t extension_offset, unused1[3];
};

struct entry {
    int32_t flags;       /* kind of library (below) */
    uint32_t key, value; /* offsets of the soname and of the path */
    uint32_t osversion;
    uint64_t hwcap; /* 0: the baseline library, not a glibc-hwcaps variant */
};

/* flags of a 64-bit x86 library for glibc (ELF, libc6): FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#define X86_64_LIBC6 0x0303

int ld_cache_find(const char *name, char *out, size_t cap)
{
    static const unsigned char *map;
    static size_t size;
    if (!map) {
        int fd = open(CACHE_FILE, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0) return -ENOENT;
        if (!fstat(fd, &st) && (size_t)st.st_size >= sizeof(struct header)) {
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m != MAP_FAILED) map = m, size = (size_t)st.st_size;
        }
        close(fd);
        if (!map) return -ENOENT;
    }
    const struct header *h = (const struct header *)map;
    if (memcmp(h->magic, CACHE_MAGIC, sizeof h->magic) ||
        h->nlibs > (size - sizeof *h) / sizeof(struct entry))
        return -ENOENT;
    const struct entry *e = (const struct entry *)(h + 1);
    for (uint32_t i = 0; i < h->nlibs; i++) {
        const char *key = (const char *)map + e[i].key, *value = (const char *)map + e[i].value;
        if (e[i].flags != X86_64_LIBC6 || e[i].hwcap || e[i].key >= size || e[i].value >= size ||
            !memchr(key, 0, size - e[i].key) || !memchr(value, 0, size - e[i].value) ||
            strcmp(key, name))
            continue;
        if ((size_t)snprintf(out, cap, "%s", value) >= cap) return -ENOENT;
        return 0;
    }
    return -ENOENT;
}
