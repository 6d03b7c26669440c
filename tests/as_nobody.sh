#!/usr/bin/env bash
# Runs a command as user nobody (as it is when already unprivileged) in a
# scratch directory holding a copy of mpcr's tree, readable by nobody
# wherever the build lives; MPCR names the copy's mpcr. The command's files
# (scripts, programs) are named relative to the scratch directory: each
# FILE given with --copy is copied there first.
#   as_nobody.sh BUILD_DIR [--copy FILE]... -- COMMAND ARGS...
set -eu
build=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/libexec" "$tmp/lib"
cp "$build/bin/mpcr" "$tmp/bin/"
cp -r "$build/libexec/mpcr" "$tmp/libexec/"
cp -a "$build/lib/mpcr" "$tmp/lib/"
while [ "$1" = --copy ]; do
    cp "$2" "$tmp/"
    shift 2
done
[ "$1" = -- ] && shift
chmod -R a+rX "$tmp"
if [ "$(id -u)" != 0 ]; then
    echo "already unprivileged (uid $(id -u))"
    run=()
else
    run=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp TMPDIR=/tmp)
fi
cd "$tmp"
"${run[@]}" id
MPCR="$tmp/bin/mpcr" "${run[@]}" "$@"
