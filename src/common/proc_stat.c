/* Fields of /proc/PID/stat (proc_stat.h). */
#include "proc_stat.h"

#include <stdio.h>
#include <string.h>

const char *mpcr_proc_stat(pid_t pid, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f && cap ? fread(buf, 1, cap - 1, f) : 0;
    if (f) fclose(f);
    if (!cap) return NULL;
    buf[n] = 0;
    const char *end = strrchr(buf, ')'); /* the command name may hold anything */
    return end && end[1] == ' ' && end[2] ? end + 2 : NULL;
}
