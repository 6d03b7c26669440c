/* See path.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "path.h"

static int too_long(char *buf, size_t cap)
{
    if (cap) buf[0] = 0;
    return -ENAMETOOLONG;
}

int mpcr_path_cat(char *buf, size_t cap, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb >= cap) return too_long(buf, cap);
    memmove(buf, a, na); /* a may be buf itself */
    memcpy(buf + na, b, nb + 1);
    return 0;
}

int mpcr_path_join(char *buf, size_t cap, const char *dir, const char *name)
{
    size_t nd = strlen(dir), nn = strlen(name);
    if (nd + 1 + nn >= cap) return too_long(buf, cap);
    memmove(buf, dir, nd);
    buf[nd] = '/';
    memcpy(buf + nd + 1, name, nn + 1);
    return 0;
}

int mpcr_path_printf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap) return too_long(buf, cap);
    return 0;
}
