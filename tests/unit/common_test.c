/* src/common: the atomic writer (exact mode whatever the umask, a leftover
 * or a planted link replaced, never followed, nothing left behind on
 * failure), the checked joins (-ENAMETOOLONG and "", never a shorter
 * path), the hash (FNV-1a's published values) and the clock. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "clock.h"
#include "hash.h"
#include "path.h"
#include "unit.h"

static char dir[] = "/tmp/mpcr-unit-common.XXXXXX";

static void read_back(const char *path, const char *want)
{
    char got[64] = "";
    FILE *f = fopen(path, "r");
    ASSERT_TRUE(f != NULL);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = 0;
    if (strcmp(got, want)) UNIT_FAIL("%s holds \"%s\", not \"%s\"", path, got, want);
}

static void atomic_files(void)
{
    char path[PATH_MAX], tmp[PATH_MAX], target[PATH_MAX];
    ASSERT_EQ(mpcr_path_join(path, sizeof path, dir, "f"), 0);
    ASSERT_EQ(mpcr_path_cat(tmp, sizeof tmp, path, ".tmp"), 0);
    ASSERT_EQ(mpcr_path_join(target, sizeof target, dir, "target"), 0);
    mode_t old = umask(0);
    ASSERT_EQ(mpcr_atomic_write_file(path, "one\n", 4, 0600), 0);
    umask(old);
    struct stat st;
    ASSERT_EQ(stat(path, &st), 0);
    ASSERT_EQ(st.st_mode & 07777, 0600);
    read_back(path, "one\n");
    /* a leftover temporary and a planted link at it: replaced, not followed */
    FILE *t = fopen(target, "w");
    fputs("precious", t);
    fclose(t);
    ASSERT_EQ(symlink(target, tmp), 0);
    ASSERT_EQ(mpcr_atomic_write_file(path, "two\n", 4, 0640), 0);
    read_back(path, "two\n");
    read_back(target, "precious");
    ASSERT_EQ(stat(path, &st), 0);
    ASSERT_EQ(st.st_mode & 07777, 0640);
    ASSERT_NE(access(tmp, F_OK), 0);
    /* given up: the temporary goes, the file stays as it was */
    struct mpcr_atomic_file f;
    ASSERT_EQ(mpcr_atomic_open(&f, path, 0600), 0);
    ASSERT_EQ(mpcr_atomic_write(&f, "three", 5), 0);
    mpcr_atomic_abort(&f);
    ASSERT_EQ(f.fd, -1);
    ASSERT_NE(access(tmp, F_OK), 0);
    read_back(path, "two\n");
    /* a directory that is not there: the error, nothing made */
    char missing[PATH_MAX];
    ASSERT_EQ(mpcr_path_join(missing, sizeof missing, dir, "no/f"), 0);
    ASSERT_EQ(mpcr_atomic_write_file(missing, "x", 1, 0600), -ENOENT);
    unlink(path), unlink(target);
}

static void joins(void)
{
    char buf[8];
    ASSERT_EQ(mpcr_path_join(buf, sizeof buf, "ab", "cd"), 0);
    ASSERT_TRUE(!strcmp(buf, "ab/cd"));
    ASSERT_EQ(mpcr_path_join(buf, sizeof buf, "abc", "defg"), -ENAMETOOLONG); /* 8 + NUL */
    ASSERT_TRUE(!strcmp(buf, ""));
    ASSERT_EQ(mpcr_path_cat(buf, sizeof buf, "abc", ".tmp"), 0);
    ASSERT_TRUE(!strcmp(buf, "abc.tmp"));
    ASSERT_EQ(mpcr_path_cat(buf, sizeof buf, buf, "x"), -ENAMETOOLONG);
    ASSERT_EQ(mpcr_path_printf(buf, sizeof buf, "g-%d", 12), 0);
    ASSERT_TRUE(!strcmp(buf, "g-12"));
    ASSERT_EQ(mpcr_path_printf(buf, sizeof buf, "gen-%lu", 123456ul), -ENAMETOOLONG);
    ASSERT_TRUE(!strcmp(buf, ""));
    char long_dir[PATH_MAX + 8], path[PATH_MAX];
    memset(long_dir, 'd', sizeof long_dir - 1);
    long_dir[sizeof long_dir - 1] = 0;
    struct mpcr_atomic_file f;
    ASSERT_EQ(mpcr_atomic_open(&f, long_dir, 0600), -ENAMETOOLONG);
    ASSERT_EQ(mpcr_path_join(path, sizeof path, long_dir, "x"), -ENAMETOOLONG);
}

static void hash_and_clock(void)
{
    /* FNV-1a's published test values */
    ASSERT_TRUE(mpcr_hash32(MPCR_HASH32_INIT, "", 0) == 0x811c9dc5u);
    ASSERT_TRUE(mpcr_hash32(MPCR_HASH32_INIT, "a", 1) == 0xe40c292cu);
    ASSERT_TRUE(mpcr_hash64(MPCR_HASH64_INIT, "a", 1) == 0xaf63dc4c8601ec8cull);
    ASSERT_TRUE(mpcr_hash64(MPCR_HASH64_INIT, "foobar", 6) == 0x85944171f73967e8ull);
    /* continued over pieces, the same as at once */
    ASSERT_TRUE(mpcr_hash64(mpcr_hash64(MPCR_HASH64_INIT, "foo", 3), "bar", 3) ==
                mpcr_hash64(MPCR_HASH64_INIT, "foobar", 6));
    uint64_t a = mpcr_now_ns(), b = mpcr_now_ns();
    ASSERT_TRUE(a > 0 && b >= a);
    ASSERT_TRUE(mpcr_now_s() >= (double)a / 1e9);
}

int main(void)
{
    ASSERT_TRUE(mkdtemp(dir) != NULL);
    atomic_files();
    joins();
    hash_and_clock();
    rmdir(dir);
    printf("common: ok\n");
    return 0;
}
