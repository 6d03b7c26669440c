/* Message formatting that is safe inside a signal handler. The checkpoint
 * runs in the engine's SIGRTMAX handler while the other threads are frozen
 * wherever they were, maybe inside malloc or stdio: snprintf and strerror
 * are not async-signal-safe (they may take locale data, allocate, or lock),
 * so everything on the checkpoint path formats with these instead. No libc
 * call, no static state: any thread may use them at any time. */
#ifndef MPCR_ENGINE_FMT_H
#define MPCR_ENGINE_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* printf-like into buf (always NUL-terminated when cap > 0). Conversions:
 * %s (with a precision: %.15s, %.*s), %c, %d %i %u %x (with l, ll, z), %p, the
 * '#' flag for 0x. Anything else prints '?'. Returns the number of
 * characters stored, without the NUL (not what would have been: callers
 * append at buf + n without checking). */
size_t mpcr_vfmt(char *buf, size_t cap, const char *fmt, va_list ap);
size_t mpcr_fmt(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The text of errno value e, as strerror would give it for the common ones,
 * with the symbolic name ("No such file or directory (ENOENT)"); "errno N"
 * for others. A pointer to constant data. */
const char *mpcr_strerror(int e);

#endif
