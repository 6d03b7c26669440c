/* Open files and process attributes: a file read half-way, one written
 * half-way, one opened O_APPEND, two descriptors (dup) that share one offset,
 * a close-on-exec flag, a directory of 3000 entries being listed (readdir
 * goes on where it was: no entry lost or repeated), a character device; the
 * working directory, umask and rlimits. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "zdtm.h"

int main(void)
{
    const char *dir = getenv("ZDTM_DIR") ? getenv("ZDTM_DIR") : "/tmp";
    CHECK(chdir(dir) == 0, "chdir");
    mkdir("sub", 0755);
    CHECK(chdir("sub") == 0, "chdir sub");
    int r = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 1000; i++) CHECK(write(r, &i, sizeof i) == sizeof i, "write");
    lseek(r, 400 * sizeof(int), SEEK_SET);
    int w = open("written", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(write(w, "hello ", 6) == 6, "write");
    int a = open("appended", O_WRONLY | O_CREAT | O_APPEND, 0644);
    CHECK(write(a, "one ", 4) == 4, "append");
    int d1 = open("data", O_RDONLY);
    int d2 = dup(d1);
    int d3 = fcntl(d1, F_DUPFD, 50);
    lseek(d1, 10 * sizeof(int), SEEK_SET);
    mkdir("many", 0755);
    for (int i = 0; i < 3000; i++) {
        char name[64];
        snprintf(name, sizeof name, "many/f%04d", i);
        close(open(name, O_WRONLY | O_CREAT, 0644));
    }
    DIR *listing = opendir("many");
    static char seen[3000];
    int listed = 0;
    struct dirent *e;
    while (listed < 1000 && (e = readdir(listing)))
        if (e->d_name[0] == 'f') seen[atoi(e->d_name + 1)]++, listed++;
    int null = open("/dev/null", O_WRONLY);
    umask(027);
    struct rlimit rl = {64, 128};
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit");
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    zdtm_ready();
    zdtm_wait();

    int v;
    CHECK(read(r, &v, sizeof v) == sizeof v && v == 400, "read offset: got %d", v);
    CHECK(write(w, "world", 5) == 5, "write after restart");
    CHECK(write(a, "two", 3) == 3, "append after restart");
    CHECK(fcntl(w, F_GETFD) == FD_CLOEXEC && fcntl(r, F_GETFD) == 0, "close-on-exec flags");
    CHECK(read(d2, &v, sizeof v) == sizeof v && v == 10, "dup'ed descriptor offset: %d", v);
    CHECK(lseek(d1, 0, SEEK_CUR) == 11 * sizeof(int), "dup'ed descriptors no longer share an offset");
    CHECK(lseek(d3, 0, SEEK_CUR) == 11 * sizeof(int), "F_DUPFD copy");
    CHECK((fcntl(a, F_GETFL) & O_APPEND) != 0, "O_APPEND lost");
    char buf[64] = {0};
    int f = open("written", O_RDONLY);
    CHECK(read(f, buf, sizeof buf) == 11 && !strcmp(buf, "hello world"), "written file: '%s'", buf);
    close(f);
    memset(buf, 0, sizeof buf);
    f = open("appended", O_RDONLY);
    CHECK(read(f, buf, sizeof buf) == 7 && !strcmp(buf, "one two"), "appended file: '%s'", buf);
    close(f);
    while ((e = readdir(listing)))
        if (e->d_name[0] == 'f') seen[atoi(e->d_name + 1)]++, listed++;
    CHECK(listed == 3000, "the directory listing has %d entries, not 3000", listed);
    for (int i = 0; i < 3000; i++) CHECK(seen[i] == 1, "entry f%04d seen %d times", i, seen[i]);
    closedir(listing);
    CHECK(write(null, "x", 1) == 1, "/dev/null");
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) && strlen(cwd) > 4 && !strcmp(cwd + strlen(cwd) - 4, "/sub"), "cwd %s", cwd);
    mode_t m = umask(0);
    CHECK(m == 027, "umask %o", m);
    getrlimit(RLIMIT_NOFILE, &rl);
    CHECK(rl.rlim_cur == 64 && rl.rlim_max == 128, "RLIMIT_NOFILE %lu/%lu", (unsigned long)rl.rlim_cur,
          (unsigned long)rl.rlim_max);
    getrlimit(RLIMIT_CORE, &core);
    CHECK(core.rlim_cur == 0 && core.rlim_max == 0, "RLIMIT_CORE");
    zdtm_pass();
}
