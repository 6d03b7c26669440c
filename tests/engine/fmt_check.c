/* The engine's async-signal-safe formatter (src/engine/fmt.c) against
 * snprintf for every conversion the engine's messages use, with extreme
 * values and truncation; and its errno texts against strerror for the
 * common errors. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

static int bad;

#define SAME(fmt, ...)                                                                             \
    do {                                                                                           \
        char want[256], got[256];                                                                  \
        snprintf(want, sizeof want, fmt, __VA_ARGS__);                                             \
        size_t n = mpcr_fmt(got, sizeof got, fmt, __VA_ARGS__);                                    \
        if (strcmp(want, got) || n != strlen(want))                                                \
            printf("FAIL: \"%s\": got \"%s\" (%zu), want \"%s\"\n", fmt, got, n, want), bad++;     \
    } while (0)

int main(void)
{
    SAME("%s and %s", "one", "");
    SAME("%d %d %d %d", 0, -1, INT_MAX, INT_MIN);
    SAME("%u %u", 0u, UINT_MAX);
    SAME("%ld %ld %lu", LONG_MAX, LONG_MIN, ULONG_MAX);
    SAME("%llu %lld", ULLONG_MAX, LLONG_MIN);
    SAME("%x %lx %#lx %#x", 0xdeadbeefu, 0x123456789abcdefUL, 0x7ffc0000UL, 0x10u);
    SAME("%zu %i", (size_t)42, -7);
    SAME("%.*s|%.*s|%.*s", 3, "abcdef", 0, "abc", 10, "ab");
    SAME("%.15s %.64s", "x86_64", "6.18.0-test");
    SAME("100%% %c", 'z');
    SAME("%s/gen-%llu/rank-%u.img", "/tmp/ck", 12ULL, 3u);
    SAME("image %llu ok %llu forked %ld\n", 7ULL, 123456789ULL, 55L);

    /* Truncation: always terminated; the count is what was stored. */
    char small[8];
    size_t n = mpcr_fmt(small, sizeof small, "%s-%d", "abcdef", 12345);
    if (n != 7 || strcmp(small, "abcdef-")) printf("FAIL: truncation gave \"%s\" (%zu)\n", small, n), bad++;
    n = mpcr_fmt(small, 1, "%s", "abc");
    if (n != 0 || small[0]) printf("FAIL: a one-byte buffer gave %zu\n", n), bad++;

    int common[] = {EPERM, ENOENT, EINTR, EIO, EBADF, EAGAIN, ENOMEM, EACCES, EEXIST, ENOTDIR, EINVAL, EMFILE,
                    EFBIG, ENOSPC, EROFS, EPIPE, ENAMETOOLONG, ENOSYS, ELOOP, EOVERFLOW, ENOTSUP, ECONNREFUSED,
                    ECONNRESET, ETIMEDOUT, EDQUOT, ECANCELED, EDEADLK};
    for (size_t i = 0; i < sizeof common / sizeof *common; i++)
        if (strcmp(mpcr_strerror(common[i]), strerror(common[i])))
            printf("FAIL: errno %d: \"%s\", strerror says \"%s\"\n", common[i], mpcr_strerror(common[i]),
                   strerror(common[i])), bad++;
    for (int e = 1; e < 134; e++)
        if (!*mpcr_strerror(e)) printf("FAIL: errno %d has an empty text\n", e), bad++;
    if (strcmp(mpcr_strerror(EUCLEAN), "EUCLEAN") || strcmp(mpcr_strerror(100000), "unknown error"))
        printf("FAIL: rare or unknown errno: \"%s\" \"%s\"\n", mpcr_strerror(EUCLEAN), mpcr_strerror(100000)), bad++;
    if (!bad) printf("PASS\n");
    return bad != 0;
}
