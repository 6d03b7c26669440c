/* The `mpcr` command: one entry point per subcommand, each in its own file.
 * Every subcommand returns the process exit status; errors are printed once,
 * by the subcommand, naming the cause and what to do next. */
#ifndef MPCR_CLI_H
#define MPCR_CLI_H

#include <stdarg.h>
#include <stdio.h>

/* Exit statuses of every command (docs/mpcr.1, EXIT STATUS). `run`,
 * `exec` and `restart` end with the job's own status; 0 also after a
 * checkpoint that ended it. */
enum {
    MPCR_EXIT_OK = 0,
    MPCR_EXIT_FAILURE = 1, /* what was asked could not be done; stderr says why */
    MPCR_EXIT_USAGE = 2,   /* a command line mpcr does not understand */
    MPCR_EXIT_CANNOT_EXECUTE = 126, /* the program is there but cannot be executed (as shells say) */
    MPCR_EXIT_NOT_STARTED = 127, /* the program (or a part of mpcr) could not be started */
    MPCR_EXIT_SIGNAL = 128 /* + N: ended by signal N, or after mpcr passed signal N on */
};

int cmd_run(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_restart(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_coordinator(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_profile(int argc, char **argv);

/* profile.c: `--profile DIR` of run: DIR made, emptied of an
 * earlier job's rank files, and named in MPCR_PROFILE for the ranks; 0, or 1
 * said. After the job: the ranks' files summed into DIR/profile.txt and
 * DIR/profile.json (the text also to `print` unless NULL); 0, or 1 said. */
int mpcr_profile_prepare(const char *cmd, const char *dir);
/* The same for one rank of `mpcr exec` (nothing removed: another rank's). */
int mpcr_profile_prepare_rank(const char *cmd, const char *dir);
int mpcr_profile_report(const char *dir, FILE *print);

/* help.c: the list of commands (to `out`; returns 0 for stdout, else
 * MPCR_EXIT_USAGE), and one command's help (MPCR_EXIT_USAGE if none). */
int mpcr_usage(FILE *out);
int mpcr_help(const char *command, FILE *out);

/* status_json.c: `mpcr status --json DIR`; returns the exit status. */
int mpcr_status_json(const char *dir);

/* The version, and the git commit built (version.c, generated). */
extern const char mpcr_version[], mpcr_commit[];

/* `mpcr run --no-mpi ...`: the checkpoint engine alone, for any program.
 * argv[0] is "run"; the options are those of cmd_run. */
int cmd_run_no_mpi(int argc, char **argv);

/* program_runnable.c: 0, or MPCR_EXIT_CANNOT_EXECUTE after saying so ("CMD:
 * ...") when the program as execvp finds it exists but cannot be executed. */
int mpcr_program_runnable(const char *cmd, const char *program);

/* job_end.c: says how a job ended that failed with no rank saying why,
 * from its launcher's wait status. */
void mpcr_say_unexplained_end(const char *launcher, int status);

/* Directory holding this executable's siblings (bin/ of the build or install tree). */
const char *mpcr_self_dir(void);
/* PATH of something installed beside mpcr ("../lib/mpcr"), into buf (cap
 * bytes): 0, or -1 said on stderr (a path too long). */
int mpcr_sibling(char *buf, size_t cap, const char *rel);

/* Prints "mpcr: " + message to stderr (printf-style). */
void mpcr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mpcr_verr(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
