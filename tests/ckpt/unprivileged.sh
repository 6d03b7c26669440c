#!/usr/bin/env bash
# Checkpoint and restart of an MPI job need no privilege: ckpt.sh's
# exit-restart cycles run as user nobody, with mpcr's tree and the program
# copied where nobody can read them.
#   unprivileged.sh BUILD_DIR CYCLES NPROCS PROGRAM ARGS...
set -eu
build=$1 cycles=$2 n=$3 prog=$4
shift 4
if [ "$(id -u)" != 0 ]; then
    echo "already unprivileged (uid $(id -u))"
    run=()
else
    run=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/libexec" "$tmp/lib"
cp "$build/bin/mpcr" "$tmp/bin/"
cp -r "$build/libexec/mpcr" "$tmp/libexec/"
cp -a "$build/lib/mpcr" "$tmp/lib/"
cp "$prog" "$tmp/prog"
cp "$(dirname "$0")/ckpt.sh" "$tmp/"
chmod -R a+rX "$tmp"
cd "$tmp"
"${run[@]}" id
MPCR="$tmp/bin/mpcr" TMPDIR=/tmp "${run[@]}" bash "$tmp/ckpt.sh" exit-restart "$cycles" "$n" "$tmp/prog" "$@"
