/* The `mpcr` command: one entry point per subcommand, each in its own file.
 * Every subcommand returns the process exit status; errors are printed once,
 * by the subcommand, naming the cause and what to do next. */
#ifndef MPCR_CLI_H
#define MPCR_CLI_H

int cmd_run(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_restart(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_coordinator(int argc, char **argv);
int cmd_exec(int argc, char **argv);

/* `mpcr run --no-mpi ...`: the checkpoint engine alone, for any program.
 * argv[0] is "run"; the options are those of cmd_run. */
int cmd_run_no_mpi(int argc, char **argv);

/* Directory holding this executable's siblings (bin/ of the build or install tree). */
const char *mpcr_self_dir(void);

/* Prints "mpcr: " + message to stderr (printf-style). */
void mpcr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
