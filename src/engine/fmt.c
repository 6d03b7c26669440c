/* See fmt.h. A small printf of our own: only the conversions the engine's
 * messages use, written to the caller's buffer with nothing shared. */
#include "fmt.h"

#include <errno.h>
#include <stdint.h>

struct out {
    char *buf;
    size_t cap, len; /* len < cap always: room for the NUL */
};

static void put_char(struct out *o, char c)
{
    if (o->len + 1 < o->cap) o->buf[o->len++] = c;
}

static void put_str(struct out *o, const char *s, size_t max)
{
    if (!s) s = "(null)";
    for (size_t i = 0; i < max && s[i]; i++) put_char(o, s[i]);
}

static void put_num(struct out *o, uint64_t v, unsigned base, int negative, int prefix)
{
    char digits[24];
    int n = 0;
    do digits[n++] = "0123456789abcdef"[v % base], v /= base;
    while (v);
    if (negative) put_char(o, '-');
    if (prefix) put_char(o, '0'), put_char(o, 'x');
    while (n) put_char(o, digits[--n]);
}

size_t mpcr_vfmt(char *buf, size_t cap, const char *fmt, va_list ap)
{
    struct out o = {buf, cap, 0};
    if (!cap) return 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put_char(&o, *p);
            continue;
        }
        p++;
        int alt = 0, longs = 0;
        size_t prec = (size_t)-1;
        if (*p == '#') alt = 1, p++;
        if (*p == '.' && p[1] == '*') {
            int k = va_arg(ap, int);
            prec = k < 0 ? (size_t)-1 : (size_t)k;
            p += 2;
        } else if (*p == '.') {
            for (prec = 0, p++; *p >= '0' && *p <= '9'; p++) prec = prec * 10 + (size_t)(*p - '0');
        }
        while (*p == 'l') longs++, p++;
        if (*p == 'z') longs = 2, p++;
        switch (*p) {
        case 's': put_str(&o, va_arg(ap, const char *), prec); break;
        case 'c': put_char(&o, (char)va_arg(ap, int)); break;
        case '%': put_char(&o, '%'); break;
        case 'd':
        case 'i': {
            int64_t v = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
            put_num(&o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 10, v < 0, 0);
            break;
        }
        case 'u':
        case 'x': {
            uint64_t v = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
            put_num(&o, v, *p == 'x' ? 16 : 10, 0, alt && *p == 'x');
            break;
        }
        case 'p': put_num(&o, (uintptr_t)va_arg(ap, void *), 16, 0, 1); break;
        case 0: p--; /* a lone '%' at the end */ /* fall through */
        default: put_char(&o, '?'); break;
        }
    }
    o.buf[o.len] = 0;
    return o.len;
}

size_t mpcr_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = mpcr_vfmt(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

/* The usual texts of the errors the engine meets (system calls on files,
 * memory, sockets); the others by their names. */
#define ERRNOS(X)                                                                                  \
    X(EPERM, "Operation not permitted") X(ENOENT, "No such file or directory")                     \
    X(ESRCH, "No such process") X(EINTR, "Interrupted system call") X(EIO, "Input/output error")   \
    X(ENXIO, "No such device or address") X(E2BIG, "Argument list too long")                       \
    X(ENOEXEC, 0) X(EBADF, "Bad file descriptor") X(ECHILD, "No child processes")                  \
    X(EAGAIN, "Resource temporarily unavailable") X(ENOMEM, "Cannot allocate memory")              \
    X(EACCES, "Permission denied") X(EFAULT, "Bad address") X(ENOTBLK, 0)                          \
    X(EBUSY, "Device or resource busy") X(EEXIST, "File exists") X(EXDEV, "Invalid cross-device link") \
    X(ENODEV, "No such device") X(ENOTDIR, "Not a directory") X(EISDIR, "Is a directory")          \
    X(EINVAL, "Invalid argument") X(ENFILE, "Too many open files in system")                       \
    X(EMFILE, "Too many open files") X(ENOTTY, 0) X(ETXTBSY, "Text file busy")                     \
    X(EFBIG, "File too large") X(ENOSPC, "No space left on device") X(ESPIPE, "Illegal seek")      \
    X(EROFS, "Read-only file system") X(EMLINK, "Too many links") X(EPIPE, "Broken pipe")          \
    X(EDOM, 0) X(ERANGE, 0) X(EDEADLK, "Resource deadlock avoided")                                \
    X(ENAMETOOLONG, "File name too long") X(ENOLCK, 0) X(ENOSYS, "Function not implemented")       \
    X(ENOTEMPTY, "Directory not empty") X(ELOOP, "Too many levels of symbolic links")              \
    X(ENOMSG, 0) X(EIDRM, 0) X(ECHRNG, 0) X(EL2NSYNC, 0) X(EL3HLT, 0) X(EL3RST, 0) X(ELNRNG, 0)     \
    X(EUNATCH, 0) X(ENOCSI, 0) X(EL2HLT, 0) X(EBADE, 0) X(EBADR, 0) X(EXFULL, 0) X(ENOANO, 0)       \
    X(EBADRQC, 0) X(EBADSLT, 0) X(EBFONT, 0) X(ENOSTR, 0) X(ENODATA, 0) X(ETIME, 0) X(ENOSR, 0)     \
    X(ENONET, 0) X(ENOPKG, 0) X(EREMOTE, 0) X(ENOLINK, 0) X(EADV, 0) X(ESRMNT, 0) X(ECOMM, 0)       \
    X(EPROTO, "Protocol error") X(EMULTIHOP, 0) X(EDOTDOT, 0) X(EBADMSG, 0)                        \
    X(EOVERFLOW, "Value too large for defined data type") X(ENOTUNIQ, 0) X(EBADFD, 0)              \
    X(EREMCHG, 0) X(ELIBACC, 0) X(ELIBBAD, 0) X(ELIBSCN, 0) X(ELIBMAX, 0) X(ELIBEXEC, 0)            \
    X(EILSEQ, 0) X(ERESTART, 0) X(ESTRPIPE, 0) X(EUSERS, 0)                                       \
    X(ENOTSOCK, "Socket operation on non-socket") X(EDESTADDRREQ, 0) X(EMSGSIZE, 0)                \
    X(EPROTOTYPE, 0) X(ENOPROTOOPT, 0) X(EPROTONOSUPPORT, 0) X(ESOCKTNOSUPPORT, 0)                 \
    X(EOPNOTSUPP, "Operation not supported") X(EPFNOSUPPORT, 0) X(EAFNOSUPPORT, 0)                 \
    X(EADDRINUSE, "Address already in use") X(EADDRNOTAVAIL, 0) X(ENETDOWN, 0)                     \
    X(ENETUNREACH, "Network is unreachable") X(ENETRESET, 0) X(ECONNABORTED, 0)                    \
    X(ECONNRESET, "Connection reset by peer") X(ENOBUFS, "No buffer space available")              \
    X(EISCONN, 0) X(ENOTCONN, "Transport endpoint is not connected") X(ESHUTDOWN, 0)               \
    X(ETOOMANYREFS, 0) X(ETIMEDOUT, "Connection timed out") X(ECONNREFUSED, "Connection refused")  \
    X(EHOSTDOWN, 0) X(EHOSTUNREACH, "No route to host") X(EALREADY, 0) X(EINPROGRESS, 0)           \
    X(ESTALE, "Stale file handle") X(EUCLEAN, 0) X(ENOTNAM, 0) X(ENAVAIL, 0) X(EISNAM, 0)          \
    X(EREMOTEIO, 0) X(EDQUOT, "Disk quota exceeded") X(ENOMEDIUM, 0) X(EMEDIUMTYPE, 0)             \
    X(ECANCELED, "Operation canceled") X(ENOKEY, 0) X(EKEYEXPIRED, 0) X(EKEYREVOKED, 0)            \
    X(EKEYREJECTED, 0) X(EOWNERDEAD, 0) X(ENOTRECOVERABLE, 0) X(ERFKILL, 0)

#define ERRNO_ENTRY(e, text) [e] = text ? text : #e,
static const char *const errno_text[] = {ERRNOS(ERRNO_ENTRY)};
#undef ERRNO_ENTRY

const char *mpcr_strerror(int e)
{
    if (e > 0 && (size_t)e < sizeof errno_text / sizeof errno_text[0] && errno_text[e]) return errno_text[e];
    return "unknown error";
}
