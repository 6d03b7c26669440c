#include "cli.h"
#include <string.h>
int cmd_run(int argc, char **argv)
{
    for (int i = 1; i < argc && argv[i][0] == '-'; i++)
        if (!strcmp(argv[i], "--no-mpi")) return cmd_run_no_mpi(argc, argv);
    mpcr_err("run: not implemented yet");
    return 2;
}
