/* Prints what src/cli/loader.c finds that a program would load, one line
 * per object as the dynamic loader's own trace names it ("NAME => PATH",
 * or "NAME => not found"), for loader.sh to compare with that trace.
 *   loader_trace PROGRAM [LIBRARY_PATH] */
#include "loader.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    struct load_set s;
    if (argc < 2) return 2;
    int rc = loader_resolve(&s, argv[1], argc > 2 ? argv[2] : NULL);
    if (rc) {
        printf("cannot read %s (%d)\n", argv[1], rc);
        return 1;
    }
    for (int i = 1; i < s.n; i++)
        if (s.obj[i].via != VIA_INTERP) /* the loader's trace does not name itself so */
            printf("%s => %s\n", s.obj[i].name, s.obj[i].path[0] ? s.obj[i].path : "not found");
    loader_free(&s);
    return 0;
}
