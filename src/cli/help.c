/* `mpcr help [COMMAND]`, `mpcr COMMAND --help`: each command's usage and
 * options, written once here; docs/mpcr.1 says the same at more length
 * (tests/cli/help.sh checks that every option named here is there too). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define SIGNAL_OPTIONS                                                                             \
    "  --checkpoint-signal SIG  SIG asks for a checkpoint after which the job goes on\n"           \
    "                         (default USR2; none: no such signal)\n"                              \
    "  --exit-signal SIG      SIG asks for a checkpoint after which every rank ends with\n"        \
    "                         status 0 (default USR1; none: no such signal)\n"

static const struct {
    const char *name, *text;
} helps[] = {
    {"run",
     "usage: mpcr run [-n N] [--mpi mpich|openmpi] [--ckpt-dir DIR [--interval T] [--keep K] [--full-every N]]\n"
     "                [--checkpoint-signal SIG] [--exit-signal SIG] [--] PROGRAM ARGS...\n"
     "                [--profile PDIR]\n"
     "       mpcr run -n N --coordinator A.B.C.D:PORT --ckpt-dir DIR [--] PROGRAM ARGS...\n"
     "       mpcr run --no-mpi [--ckpt-dir DIR] [--interval T] [--keep K] [--full-every N] [--] PROGRAM ARGS...\n"
     "\n"
     "Runs PROGRAM as an MPI job of N ranks, each behind an mpcr proxy, through the MPI\n"
     "implementation's launcher; exits with the job's status. PROGRAM may be built for\n"
     "MPICH's ABI (libmpich.so.12), Open MPI 4.1's (libmpi.so.40: Debian's mpicc and\n"
     "MPI applications; docs/abi-openmpi.md) or the MPI 5.0 standard ABI (libmpi_abi.so.1:\n"
     "mpcr's mpicc_abi; docs/abi-standard.md); one that would load a real MPI library\n"
     "(MPI linked statically, an RPATH to it) is refused before the job starts\n"
     "(docs/abi-check.md).\n"
     "\n"
     "  -n N, -np N            number of ranks (1)\n"
     "  --mpi mpich|openmpi    the MPI implementation that carries the messages (mpich)\n"
     "  --ckpt-dir DIR         the job can be checkpointed; images go to DIR/gen-K\n"
     "  --interval T           a checkpoint every T seconds (DIR: mpcr-ckpt if not given)\n"
     "  --keep K               complete generations kept (2), and the ones they refer to\n"
     "  --full-every N         a full image after at most N-1 incremental ones (8; 1: always full)\n"
     "  --coordinator A.B.C.D:PORT  the job's coordinator is a running `mpcr coordinator`\n" SIGNAL_OPTIONS
     "  --profile PDIR         each MPI function's calls, time and bytes, per rank and summed,\n"
     "                         the hand-offs' time and the call sites: PDIR/profile.txt and\n"
     "                         PDIR/profile.json at the job's end (also MPCR_PROFILE=PDIR)\n"
     "  --no-mpi               PROGRAM is no MPI program: the checkpoint engine is preloaded\n"},
    {"exec",
     "usage: LAUNCHER -n N mpcr exec [--ckpt-dir DIR [--interval T] [--keep K]] [--mpi mpich|openmpi]\n"
     "                [--coordinator A.B.C.D:PORT] [--checkpoint-signal SIG] [--exit-signal SIG]\n"
     "                [--profile PDIR] PROGRAM ARGS...\n"
     "       LAUNCHER -n N mpcr exec [OPTIONS] --restart DIR\n"
     "       LAUNCHER -n N mpcr exec [OPTIONS] --restart-if-any DIR PROGRAM ARGS...\n"
     "\n"
     "One rank of a job whose launcher (srun, mpiexec.mpich, mpirun.openmpi) starts mpcr\n"
     "on every rank; the launcher's options pass through untouched. With a checkpoint\n"
     "directory, rank 0 starts the job's coordinator: on 127.0.0.1 when every rank runs\n"
     "on its host, else on its address toward the launcher's host (MPCR_EXEC_LISTEN=ADDR\n"
     "chooses another).\n"
     "\n"
     "  --ckpt-dir DIR         the job can be checkpointed; images go to DIR/gen-K\n"
     "  --interval T           a checkpoint every T seconds\n"
     "  --keep K               complete generations kept (2)\n"
     "  --mpi mpich|openmpi    the proxy (default: the launcher's MPI)\n"
     "  --coordinator A.B.C.D:PORT  use a running `mpcr coordinator` (with --ckpt-dir)\n"
     "  --restart DIR          resume from DIR's newest complete generation\n"
     "  --restart-if-any DIR   the same if DIR has one, else start PROGRAM with --ckpt-dir DIR\n"
     "  --profile PDIR         each rank writes PDIR/rank-R.prof at MPI_Finalize; `mpcr profile\n"
     "                         PDIR` sums them (also MPCR_PROFILE=PDIR)\n" SIGNAL_OPTIONS},
    {"checkpoint",
     "usage: mpcr checkpoint [--exit] [DIR]\n"
     "\n"
     "Checkpoints the job (or process) running with checkpoint directory DIR (mpcr-ckpt)\n"
     "and waits until the generation is complete; progress goes to stderr.\n"
     "\n"
     "  --exit                 the job ends (status 0) once the checkpoint is complete\n"},
    {"restart",
     "usage: mpcr restart [-n N] [--mpi mpich|openmpi] [--coordinator A.B.C.D:PORT]\n"
     "                    [--checkpoint-signal SIG] [--exit-signal SIG]\n"
     "                    [--trust-files-others-can-change] [DIR]\n"
     "\n"
     "Resumes the job (or process) from the newest complete generation in DIR (mpcr-ckpt),\n"
     "after checking every file of it; further checkpoints go on numbering in DIR. The files\n"
     "the images map (program, libraries) must be those of the checkpoint, or copies with\n"
     "the same contents (SHA-256).\n"
     "\n"
     "  -n N, -np N            must be the job's number of ranks (checked)\n"
     "  --mpi mpich|openmpi    the MPI implementation of the new job (default: the one before)\n"
     "  --coordinator A.B.C.D:PORT  the job's coordinator is a running `mpcr coordinator`\n"
     "  --trust-files-others-can-change  map and open files owned by other users (not root)\n"
     "                         or writable by them: they could change what the job runs\n" SIGNAL_OPTIONS},
    {"status",
     "usage: mpcr status [--json] [DIR]\n"
     "\n"
     "Says whether a job runs with checkpoint directory DIR (mpcr-ckpt), its ranks' states,\n"
     "the checkpoint in progress, and the newest complete generation.\n"
     "\n"
     "  --json                 one JSON object: dir, running, job (pid, nranks, connected,\n"
     "                         ranks, checkpoint), newest_complete, generations\n"},
    {"coordinator",
     "usage: mpcr coordinator --listen A.B.C.D:PORT -n N [--ckpt-dir DIR] [--interval T] [--keep K]\n"
     "                        [--mpi mpich|openmpi] [--checkpoint-signal SIG] [--exit-signal SIG]\n"
     "\n"
     "The coordinator of a job whose ranks run on several hosts (started with\n"
     "`mpcr run --coordinator` or `mpcr exec --coordinator`); it ends when every rank has\n"
     "come and gone. DIR must be shared by the hosts.\n"
     "\n"
     "  --listen A.B.C.D:PORT  where the ranks connect (TCP; each connection opens with the\n"
     "                         secret written to DIR/coord.secret)\n"
     "  -n N                   the job's number of ranks\n"
     "  --ckpt-dir DIR         images go to DIR/gen-K (mpcr-ckpt)\n"
     "  --interval T           a checkpoint every T seconds\n"
     "  --keep K               complete generations kept (2)\n"
     "  --mpi mpich|openmpi    the MPI implementation written in the manifests (mpich)\n" SIGNAL_OPTIONS},
    {"profile",
     "usage: mpcr profile PDIR\n"
     "\n"
     "Sums the ranks' profiles in PDIR (written by a job run with --profile PDIR or\n"
     "MPCR_PROFILE=PDIR, restarted or not) into PDIR/profile.txt and PDIR/profile.json,\n"
     "and prints the text: each MPI function's calls, time and bytes sent, each rank's\n"
     "time in MPI and in hand-offs to its proxy, the call sites that took the most time.\n"},
    {"help",
     "usage: mpcr help [COMMAND]\n"
     "       mpcr COMMAND --help\n"
     "\n"
     "Says what COMMAND does and what its options are; without COMMAND, lists the commands.\n"
     "The manual page, mpcr(1), has the whole of it.\n"},
};

static const char *const summaries =
    "usage: mpcr COMMAND [OPTIONS]\n"
    "       mpcr --version\n"
    "\n"
    "commands:\n"
    "  run          run an MPI job (or any program, --no-mpi) that can be checkpointed\n"
    "  exec         one rank of a job started by srun, mpiexec or mpirun\n"
    "  checkpoint   checkpoint a running job\n"
    "  restart      restart a job from its newest complete checkpoint\n"
    "  status       a job's state and its checkpoints\n"
    "  coordinator  the coordinator of a job over several hosts\n"
    "  profile      a profiled job's MPI calls, summed (run --profile)\n"
    "  help         a command's options\n"
    "\n"
    "`mpcr help COMMAND` or `mpcr COMMAND --help` says more; see also mpcr(1).\n";

int mpcr_usage(FILE *out)
{
    fputs(summaries, out);
    return out == stdout ? 0 : MPCR_EXIT_USAGE;
}

int mpcr_help(const char *command, FILE *out)
{
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
        if (!strcmp(helps[i].name, command)) {
            fputs(helps[i].text, out);
            return 0;
        }
    mpcr_err("help: no command '%s'", command);
    mpcr_usage(stderr);
    return MPCR_EXIT_USAGE;
}

int cmd_help(int argc, char **argv)
{
    return argc > 1 ? mpcr_help(argv[1], stdout) : mpcr_usage(stdout);
}
