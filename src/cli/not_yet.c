/* Subcommands whose implementation has not landed yet. Each says so plainly
 * and fails, rather than pretending. Delete an entry when its file lands. */
#include "cli.h"

static int not_yet(const char *what)
{
    mpcr_err("'%s' is not implemented yet in this build", what);
    return 2;
}

int cmd_checkpoint(int argc, char **argv)
{
    (void)argc, (void)argv;
    return not_yet("checkpoint");
}
int cmd_restart(int argc, char **argv)
{
    (void)argc, (void)argv;
    return not_yet("restart");
}
int cmd_status(int argc, char **argv)
{
    (void)argc, (void)argv;
    return not_yet("status");
}
int cmd_coordinator(int argc, char **argv)
{
    (void)argc, (void)argv;
    return not_yet("coordinator");
}
int cmd_run_no_mpi(int argc, char **argv)
{
    (void)argc, (void)argv;
    return not_yet("run --no-mpi");
}
