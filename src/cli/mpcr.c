/* `mpcr`: dispatches to a subcommand in the manner of git. */
#include "cli.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "run [-n N] [--mpi MPI] [--ckpt-dir DIR] [--] PROGRAM ARGS...   run a job under mpcr"},
    {"exec", cmd_exec, "exec [--ckpt-dir DIR] [--restart[-if-any] DIR] PROGRAM   one rank, under srun/mpiexec/mpirun"},
    {"checkpoint", cmd_checkpoint, "checkpoint [--exit] [DIR]        checkpoint a running job"},
    {"restart", cmd_restart, "restart [-n N] [--mpi MPI] DIR                 restart from the newest images"},
    {"status", cmd_status, "status [DIR]                        show a job's state"},
    {"coordinator", cmd_coordinator, "coordinator --listen A.B.C.D:PORT -n N [--ckpt-dir DIR]   for jobs over several hosts"},
};

void mpcr_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpcr: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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

static int usage(FILE *out)
{
    fprintf(out, "usage: mpcr COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  mpcr %s\n", commands[i].summary);
    return out == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) return usage(stdout);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    mpcr_err("unknown command '%s'", argv[1]);
    return usage(stderr);
}
