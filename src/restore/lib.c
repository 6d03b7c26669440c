/* What the restorer would otherwise take from libc: memory and string
 * primitives (the compiler may call memcpy and memset on its own) and the
 * printing of messages to stderr. */
#include <stdarg.h>

#include "sys.h"

/* rep movsb / stosb: fast on every x86-64 CPU with ERMS, and defined as a
 * forward byte loop, so memcpy may also move bytes to a lower address. */
void *memcpy(void *d, const void *s, size_t n)
{
    void *a = d;
    __asm__ volatile("rep movsb" : "+D"(a), "+S"(s), "+c"(n) : : "memory");
    return d;
}

void *memset(void *d, int c, size_t n)
{
    void *a = d;
    __asm__ volatile("rep stosb" : "+D"(a), "+c"(n) : "a"(c) : "memory");
    return d;
}

int memcmp(const void *x, const void *y, size_t n)
{
    const unsigned char *a = x, *b = y;
    for (; n; n--, a++, b++)
        if (*a != *b) return *a - *b;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

int streq(const char *a, const char *b)
{
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static char numbuf[8][24];
static int numnext;

static const char *fmt(uint64_t v, unsigned base)
{
    char *b = numbuf[numnext++ & 7], tmp[24];
    int n = 0, k = 0;
    do tmp[n++] = "0123456789abcdef"[v % base], v /= base;
    while (v);
    if (base == 16) b[k++] = '0', b[k++] = 'x';
    while (n) b[k++] = tmp[--n];
    b[k] = 0;
    return b;
}

const char *dec(uint64_t v) { return fmt(v, 10); }
const char *hex(uint64_t v) { return fmt(v, 16); }

const char *mpcr_image_named;

/* A system call's failure in words, as strerror would say it (the
 * restorer has no libc): the ones its calls can meet, else the number. */
const char *errword(long rc)
{
    static const struct {
        int e;
        const char *word;
    } words[] = {
        {1, "operation not permitted (EPERM)"},  {2, "no such file or directory (ENOENT)"},
        {5, "input/output error (EIO)"},         {6, "no such device or address (ENXIO)"},
        {9, "bad file descriptor (EBADF)"},      {11, "resource temporarily unavailable (EAGAIN)"},
        {12, "out of memory (ENOMEM)"},          {13, "permission denied (EACCES)"},
        {14, "bad address (EFAULT)"},            {16, "device or resource busy (EBUSY)"},
        {17, "file exists (EEXIST)"},            {19, "no such device (ENODEV)"},
        {20, "not a directory (ENOTDIR)"},       {21, "is a directory (EISDIR)"},
        {22, "invalid argument (EINVAL)"},       {23, "too many open files in system (ENFILE)"},
        {24, "too many open files (EMFILE)"},    {26, "text file busy (ETXTBSY)"},
        {27, "file too large (EFBIG)"},          {28, "no space left on device (ENOSPC)"},
        {30, "read-only file system (EROFS)"},   {36, "file name too long (ENAMETOOLONG)"},
        {38, "function not implemented (ENOSYS)"}, {40, "too many levels of symbolic links (ELOOP)"},
        {75, "value too large (EOVERFLOW)"},     {95, "operation not supported (EOPNOTSUPP)"},
        {122, "disk quota exceeded (EDQUOT)"},
    };
    long e = rc < 0 ? -rc : rc;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (words[i].e == e) return words[i].word;
    return fmt((uint64_t)e, 10); /* rare enough to be looked up */
}

static void vsay(const char *first, va_list ap)
{
    char line[1024];
    size_t n = 0;
    for (const char *s = "mpcr-restore: "; *s && n < sizeof line - 1;) line[n++] = *s++;
    /* every word about an image names it: gen-K/rank-R.img says which rank's */
    for (const char *s = mpcr_image_named; s && *s && n < sizeof line - 3;) line[n++] = *s++;
    if (mpcr_image_named && n < sizeof line - 3) line[n++] = ':', line[n++] = ' ';
    for (const char *s = first; s; s = va_arg(ap, const char *))
        while (*s && n < sizeof line - 1) line[n++] = *s++;
    line[n++] = '\n';
    sc(write, 2, line, n);
}

void say(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    vsay(first, ap);
    va_end(ap);
}

void die(int code, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    vsay(first, ap);
    va_end(ap);
    for (;;) sc(exit_group, code);
}
