/* See dynsym.h. The hash tables are those of the ELF gABI (DT_HASH) and of
 * GNU (DT_GNU_HASH: a Bloom filter, buckets, and chains whose last entry
 * has its low bit set), as the loader reads them. */
#include "dynsym.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

struct tables {
    const ElfW(Sym) * sym;
    const char *str;
    const uint32_t *gnu, *sysv;
};

/* An address of the dynamic section: glibc has added the load bias by the
 * time la_objopen runs where the section is writable; where it has not
 * (the vDSO, a read-only section) the value is still an offset. */
static const void *at(const struct link_map *map, ElfW(Addr) v)
{
    return (const void *)(v < map->l_addr ? v + map->l_addr : v);
}

static int tables_of(const struct link_map *map, struct tables *t)
{
    memset(t, 0, sizeof *t);
    for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB) t->sym = at(map, d->d_un.d_ptr);
        if (d->d_tag == DT_STRTAB) t->str = at(map, d->d_un.d_ptr);
        if (d->d_tag == DT_GNU_HASH) t->gnu = at(map, d->d_un.d_ptr);
        if (d->d_tag == DT_HASH) t->sysv = at(map, d->d_un.d_ptr);
    }
    return t->sym && t->str && (t->gnu || t->sysv) ? 0 : -1;
}

static int match(const struct tables *t, uint32_t i, const char *name)
{
    return t->sym[i].st_shndx != SHN_UNDEF && !strcmp(t->str + t->sym[i].st_name, name);
}

static int gnu_lookup(const struct tables *t, const char *name)
{
    uint32_t h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = h * 33 + *c;
    uint32_t nbuckets = t->gnu[0], symoffset = t->gnu[1], bloom_size = t->gnu[2];
    uint32_t shift = t->gnu[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(t->gnu + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size), *chain = buckets + nbuckets;
    const unsigned bits = 8 * sizeof *bloom;
    ElfW(Addr) word = bloom[(h / bits) % bloom_size];
    ElfW(Addr) mask = (ElfW(Addr))1 << (h % bits) | (ElfW(Addr))1 << ((h >> shift) % bits);
    if (!nbuckets || (word & mask) != mask) return 0;
    for (uint32_t i = buckets[h % nbuckets]; i >= symoffset; i++) {
        uint32_t ch = chain[i - symoffset];
        if ((ch | 1) == (h | 1) && match(t, i, name)) return 1;
        if (ch & 1) break;
    }
    return 0;
}

static int sysv_lookup(const struct tables *t, const char *name)
{
    uint32_t h = 0, nbucket = t->sysv[0];
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        h = (h << 4) + *c;
        uint32_t g = h & 0xf0000000u;
        h = (h ^ (g >> 24)) & ~g;
    }
    const uint32_t *bucket = t->sysv + 2, *chain = bucket + nbucket;
    for (uint32_t i = nbucket ? bucket[h % nbucket] : 0; i; i = chain[i])
        if (match(t, i, name)) return 1;
    return 0;
}

int guard_defines(const struct link_map *map, const char *name)
{
    struct tables t;
    if (tables_of(map, &t)) return 0;
    return t.gnu ? gnu_lookup(&t, name) : sysv_lookup(&t, name);
}
