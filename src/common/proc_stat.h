/* /proc/PID/stat of any process, read once: the fields after the command
 * name, which may hold anything (spaces, parentheses) but ends at the last
 * ')'. For the coordinator (is a process stopped?) and `mpcr exec` (when did
 * a process start?). */
#ifndef MPCR_COMMON_PROC_STAT_H
#define MPCR_COMMON_PROC_STAT_H

#include <stddef.h>
#include <sys/types.h>

/* Reads /proc/PID/stat into buf (cap bytes) and returns a pointer to field 3
 * (the state letter), fields separated by single spaces after it; NULL when
 * the process is gone or the file unreadable. */
const char *mpcr_proc_stat(pid_t pid, char *buf, size_t cap);

#endif
