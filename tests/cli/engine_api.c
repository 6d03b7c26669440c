/* A program built against an installed mpcr through `pkg-config mpcr`
 * (tests/cli/install.sh): it checkpoints itself into the file argv[1] and
 * says whether it goes on after writing it or was restarted from it. */
#include <mpcr/engine.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int counter = 41;
    if (argc != 2 || mpcr_engine_init()) return 2;
    int rc = mpcr_engine_checkpoint(argv[1]);
    if (rc < 0) {
        fprintf(stderr, "engine_api: %s\n", mpcr_engine_last_error());
        return 1;
    }
    counter++;
    printf("%s %d\n", rc == 1 ? "restarted" : "written", counter);
    return 0;
}
