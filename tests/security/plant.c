/* An LD_PRELOAD library for tests/security/planted.sh: it plants a
 * symbolic link at the path of a generation's temporary file at the one
 * moment that matters, just before mpcr opens it, which no test could
 * otherwise win (a generation directory is made fresh, 0700, and mpcr
 * removes a leftover temporary just before it creates one). It wraps
 * mkdir, unlink and open in every process of the job (coordinator,
 * program, proxies):
 *   PLANT_TARGET   what the links point to (a file the test watches)
 *   PLANT_DIR      an existing directory: the log ("log") and one marker
 *                  per name planted, so that each name is planted once in
 *                  all the job's processes together
 *   PLANT_MKDIR    NAME: after a successful mkdir of DIR/gen-*, a link
 *                  DIR/gen-K/NAME (mpcr opens it without removing it first)
 *   PLANT_UNLINK   SUFFIX: after an unlink of a path in a gen-* directory
 *                  whose name ends with SUFFIX, a link there (mpcr removes
 *                  a leftover, then creates the file: the link comes between)
 *   PLANT_BREAK    only to show that planted.sh then fails, as if mpcr
 *                  had lost its care: SUFFIX (".tmp", "manifest.tmp", ...):
 *                  open() of a path ending with SUFFIX loses O_EXCL and
 *                  O_NOFOLLOW; "mkdir": a mkdir of gen-* that finds
 *                  something there succeeds
 * Every open() of a path where a link was planted and is still there is
 * logged with its flags and result: "open PATH excl=E nofollow=N -> OK"
 * or "-> ERRNO-NAME". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* appends one line to PLANT_DIR/log (raw system calls: never through open() below) */
static void say(const char *line)
{
    const char *dir = env("PLANT_DIR");
    if (!dir) return;
    char log[4096];
    snprintf(log, sizeof log, "%s/log", dir);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (write(fd, line, strlen(line)) < 0) {}
    close(fd);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* whether path's directory is named gen-* */
static int in_generation(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return 0;
    const char *d = slash;
    while (d > path && d[-1] != '/')
        d--;
    return slash - d > 4 && !strncmp(d, "gen-", 4);
}

/* plants a link at path, once per NAME (its last component) in all processes */
static void plant(const char *path)
{
    const char *target = env("PLANT_TARGET"), *dir = env("PLANT_DIR");
    if (!target || !dir) return;
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    char marker[4096], line[8400];
    snprintf(marker, sizeof marker, "%s/planted-%s", dir, name);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return; /* planted once already */
    close(fd);
    if (symlink(target, path)) {
        snprintf(line, sizeof line, "could not plant %s: %s\n", path, strerror(errno));
    } else {
        snprintf(line, sizeof line, "planted %s\n", path);
    }
    say(line);
}

int mkdir(const char *path, mode_t mode)
{
    static int (*real)(const char *, mode_t);
    if (!real) real = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
    int rc = real(path, mode);
    const char *name = env("PLANT_MKDIR"), *base = strrchr(path, '/'), *brk = env("PLANT_BREAK");
    base = base ? base + 1 : path;
    if (rc && errno == EEXIST && brk && !strcmp(brk, "mkdir") && !strncmp(base, "gen-", 4)) return 0;
    if (!rc && name && !strncmp(base, "gen-", 4)) {
        int e = errno;
        char link[4400];
        snprintf(link, sizeof link, "%s/%s", path, name);
        plant(link);
        errno = e;
    }
    return rc;
}

int unlink(const char *path)
{
    static int (*real)(const char *);
    if (!real) real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    int rc = real(path), e = errno;
    const char *suffix = env("PLANT_UNLINK");
    if (suffix && ends_with(path, suffix) && in_generation(path)) plant(path);
    errno = e;
    return rc;
}

static int wrapped_open(const char *fn, const char *path, int flags, mode_t mode)
{
    static int (*real_open)(const char *, int, ...), (*real_open64)(const char *, int, ...);
    int (**real)(const char *, int, ...) = fn[4] ? &real_open64 : &real_open;
    if (!*real) *real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, fn);
    const char *target = env("PLANT_TARGET");
    if (!target || !path || !ends_with(path, ".tmp")) return (*real)(path, flags, mode);
    const char *brk = env("PLANT_BREAK");
    if (brk && ends_with(path, brk)) flags &= ~(O_EXCL | O_NOFOLLOW);
    char seen[4096];
    ssize_t n = readlink(path, seen, sizeof seen - 1);
    int planted = n > 0 && (seen[n] = 0, !strcmp(seen, target));
    int fd = (*real)(path, flags, mode), e = errno;
    if (planted) {
        char line[4400];
        snprintf(line, sizeof line, "open %s excl=%d nofollow=%d -> %s\n", path, !!(flags & O_EXCL),
                 !!(flags & O_NOFOLLOW), fd >= 0 ? "OK" : strerrorname_np(e));
        say(line);
    }
    errno = e;
    return fd;
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return wrapped_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return wrapped_open("open64", path, flags, mode);
}
