/* `mpcr`: dispatches to a subcommand in the manner of git. */
#include "cli.h"
#include "path.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Each command's usage and options: help.c. */
static const struct {
    const char *name;
    int (*fn)(int, char **);
} commands[] = {
    {"run", cmd_run},         {"exec", cmd_exec},     {"checkpoint", cmd_checkpoint},
    {"restart", cmd_restart}, {"status", cmd_status}, {"coordinator", cmd_coordinator},
    {"profile", cmd_profile}, {"help", cmd_help},
};

void mpcr_verr(const char *fmt, va_list ap)
{
    fputs("mpcr: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void mpcr_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mpcr_verr(fmt, ap);
    va_end(ap);
}

const char *mpcr_self_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) return ".";
        dir[n] = 0;
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
    }
    return dir;
}

int mpcr_sibling(char *buf, size_t cap, const char *rel)
{
    if (!mpcr_path_join(buf, cap, mpcr_self_dir(), rel)) return 0;
    mpcr_err("the path of %s beside mpcr (in %s) is too long", rel, mpcr_self_dir());
    return -1;
}

static int is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int main(int argc, char **argv)
{
    if (argc < 2) return mpcr_usage(stderr);
    if (is_help(argv[1])) return mpcr_usage(stdout);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("mpcr %s%s%s%s\n", mpcr_version, mpcr_commit[0] ? " (git " : "", mpcr_commit,
               mpcr_commit[0] ? ")" : "");
        return MPCR_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            /* `mpcr run --help`; `mpcr run prog --help` is the program's */
            if (argc > 2 && is_help(argv[2])) return mpcr_help(argv[1], stdout);
            return commands[i].fn(argc - 1, argv + 1);
        }
    mpcr_err("unknown command '%s'", argv[1]);
    return mpcr_usage(stderr);
}
