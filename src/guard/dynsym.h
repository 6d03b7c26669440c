/* Symbol look-up in an object the dynamic loader has mapped but not yet
 * relocated (the rtld-audit la_objopen moment): through its dynamic
 * section and hash table, with no file read and no call into the loader. */
#ifndef MPCR_GUARD_DYNSYM_H
#define MPCR_GUARD_DYNSYM_H

#include <link.h>

/* 1 when the object defines name (not only refers to it), else 0. */
int guard_defines(const struct link_map *map, const char *name);

#endif
