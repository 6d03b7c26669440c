/* See fault.h. The variable is read once; a name that is no fault point is
 * said once on stderr, so that a mistyped test does not pass silently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

static const char *const fault_name[] = {"none",
#define MPCR_FAULT_NAME(id, name, where) name,
                                         MPCR_FAULT_POINTS(MPCR_FAULT_NAME)
#undef MPCR_FAULT_NAME
};
#define NFAULTS (sizeof fault_name / sizeof fault_name[0])

static enum mpcr_fault chosen(void)
{
    static int known;
    static enum mpcr_fault point;
    if (known) return point;
    known = 1;
    const char *v = getenv("MPCR_COORD_FAULT");
    if (!v || !*v) return point;
    for (size_t i = 1; i < NFAULTS; i++)
        if (!strcmp(v, fault_name[i])) return point = (enum mpcr_fault)i;
    fprintf(stderr, "mpcr: MPCR_COORD_FAULT=%s names no fault point; ignored (the points:", v);
    for (size_t i = 1; i < NFAULTS; i++)
        fprintf(stderr, " %s", fault_name[i]);
    fprintf(stderr, ")\n");
    return point;
}

void mpcr_fault_point(enum mpcr_fault point)
{
    if (point == MPCR_FAULT_NONE || chosen() != point) return;
    fprintf(stderr, "mpcr: coordinator: fault injected at \"%s\" (MPCR_COORD_FAULT): ending now\n",
            fault_name[point]);
    _exit(MPCR_FAULT_STATUS);
}
