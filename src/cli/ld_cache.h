/* The system's cache of shared libraries (/etc/ld.so.cache, written by
 * ldconfig), read as the dynamic loader reads it: the file it names for a
 * soname, after the library path and before the system's directories. */
#ifndef MPCR_CLI_LD_CACHE_H
#define MPCR_CLI_LD_CACHE_H

#include <stddef.h>

/* The path the cache gives for name (a soname, "libmpi.so.40"), for this
 * machine's libraries (x86-64), into out (cap bytes): 0, or -ENOENT when
 * the cache has none or cannot be read. */
int ld_cache_find(const char *name, char *out, size_t cap);

#endif
