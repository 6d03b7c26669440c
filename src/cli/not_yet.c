/* Subcommands whose implementation has not landed yet. Each says so plainly
 * and fails, rather than pretending. Delete an entry when its file lands. */
#include "cli.h"

static int not_yet(const char *what)
{
    mpcr_err("'%s' is not implemented yet in this build", what);
    return 2;
}

int cmd_coordinator(int argc, char **argv)
{
    (void)argc, (void)argv;
    return not_yet("coordinator");
}
