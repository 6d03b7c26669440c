#!/usr/bin/env bash
# Checkpoint and restart of an MPI job need no privilege: ckpt.sh's
# exit-restart cycles run as user nobody.
#   unprivileged.sh BUILD_DIR CYCLES NPROCS PROGRAM ARGS...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$1 cycles=$2 n=$3 prog=$4
shift 4
exec "$here/../as_nobody.sh" "$build" --copy "$prog" --copy "$here/ckpt.sh" -- \
    bash ./ckpt.sh exit-restart "$cycles" "$n" "./$(basename "$prog")" "$@"
