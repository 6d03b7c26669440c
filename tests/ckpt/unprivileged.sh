#!/usr/bin/env bash
# Checkpoint and restart of an MPI job need no privilege: ckpt.sh's
# cycles (exit-restart, or continue: forked writers) run as user nobody.
#   unprivileged.sh BUILD_DIR MODE CYCLES NPROCS PROGRAM ARGS...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$1 mode=$2 cycles=$3 n=$4 prog=$5
shift 5
exec "$here/../as_nobody.sh" "$build" --copy "$prog" --copy "$here/ckpt.sh" --copy "$here/../native_run.sh" -- \
    bash ./ckpt.sh "$mode" "$cycles" "$n" "./$(basename "$prog")" "$@"
