/* Small helpers for code that runs with other threads frozen: whole-file
 * reads into caller memory, the string table, error messages (fmt.c). No
 * malloc, no stdio. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "internal.h"

char mpcr_errmsg[512];

int mpcr_fail(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mpcr_vfmt(mpcr_errmsg, sizeof mpcr_errmsg, fmt, ap);
    va_end(ap);
    return err;
}

long mpcr_read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = 0;
    return len + 1 >= cap ? -EFBIG : (long)len;
}

uint32_t mpcr_str_add(struct mpcr_scratch *s, const char *str, uint32_t len)
{
    uint32_t off = s->strings_len;
    if (off + len + 1 > sizeof s->strings) return 0;
    memcpy(s->strings + off, str, len);
    s->strings[off + len] = 0;
    s->strings_len += len + 1;
    return off;
}
