/* Paths built with checked joins: a path that does not fit its buffer is an
 * error (-ENAMETOOLONG), never a shorter path that names another file.
 * Buffers are PATH_MAX: a longer path could not be opened anyway. On an
 * error the buffer holds "" (cap > 0), so a caller that goes on regardless
 * names no file at all. */
#ifndef MPCR_COMMON_PATH_H
#define MPCR_COMMON_PATH_H

#include <stddef.h>

/* "dir/name" into buf; 0 or -ENAMETOOLONG. dir may be buf itself, name may
 * not lie in it. Async-signal-safe. */
int mpcr_path_join(char *buf, size_t cap, const char *dir, const char *name);

/* "a" followed by "b" (a suffix: ".tmp"); 0 or -ENAMETOOLONG. a may be buf
 * itself, b may not lie in it. Async-signal-safe. */
int mpcr_path_cat(char *buf, size_t cap, const char *a, const char *b);

/* printf into buf ("%s/gen-%lu/rank-%d.img"); 0 or -ENAMETOOLONG. Not
 * async-signal-safe (vsnprintf): a signal handler joins with the two above. */
int mpcr_path_printf(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
