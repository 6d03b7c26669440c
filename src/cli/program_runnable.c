/* Whether the program of `mpcr run` can be executed at all, before a
 * launcher starts anything: a file that exists but cannot be executed ends
 * with 126 and a message, as a shell does, instead of N proxies failing and
 * the launcher's banner. A program that is not there is left to the proxy
 * and the engine's spawner, which say so with 127. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "path.h"

/* 0 when path can be executed, 1 when it exists and cannot (said), -1 when absent. */
static int try_path(const char *cmd, const char *program, const char *path)
{
    struct stat st;
    if (stat(path, &st)) return -1;
    if (S_ISDIR(st.st_mode)) {
        mpcr_err("%s: %s is a directory, not a program", cmd, program);
        return 1;
    }
    if (access(path, X_OK)) {
        mpcr_err("%s: %s cannot be executed: %s (mode %04o); make it executable (chmod +x) or name the program",
                 cmd, path, strerror(errno), (unsigned)(st.st_mode & 07777));
        return 1;
    }
    return 0;
}

int mpcr_program_runnable(const char *cmd, const char *program)
{
    if (strchr(program, '/')) return try_path(cmd, program, program) == 1 ? MPCR_EXIT_CANNOT_EXECUTE : 0;
    const char *path = getenv("PATH");
    char candidate[PATH_MAX], refused[PATH_MAX] = "";
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; p;) {
        const char *end = strchr(p, ':');
        int len = end ? (int)(end - p) : (int)strlen(p);
        struct stat st;
        if (!mpcr_path_printf(candidate, sizeof candidate, "%.*s/%s", len, len ? p : ".", program) &&
            !stat(candidate, &st)) {
            if (!S_ISDIR(st.st_mode) && !access(candidate, X_OK)) return 0; /* as execvp finds it */
            if (!refused[0]) memcpy(refused, candidate, strlen(candidate) + 1);
        }
        p = end ? end + 1 : NULL;
    }
    /* execvp skips what it cannot execute and reports EACCES if that was all it found */
    if (refused[0] && try_path(cmd, program, refused) == 1) return MPCR_EXIT_CANNOT_EXECUTE;
    return 0;
}
