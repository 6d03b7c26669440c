/* Before a job starts: refuses a program that would load an MPI mpcr cannot
 * stand in for (abi_check.c; docs/abi-check.md). */
#ifndef MPCR_CLI_ABI_CHECK_H
#define MPCR_CLI_ABI_CHECK_H

/* 0 when program (as given to `mpcr run`: a path, or a name searched in
 * PATH) may start with lib_dir, mpcr's passive libraries, first on its
 * library path; 1 after saying on stderr why not and what to do.
 * silent: refuse without a word (a rank other than the first of a job on
 * one host: the first says it). MPCR_ABI_CHECK=off in the environment
 * skips the check. */
int mpcr_abi_check(const char *program, const char *lib_dir, int silent);

#endif
