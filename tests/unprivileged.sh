#!/usr/bin/env bash
# mpcr needs no privilege: a job runs under `mpcr run` as user nobody, with
# the same output as natively. mpcr's tree and the program are copied to a
# directory nobody can read, wherever the build lives.
#   unprivileged.sh BUILD_DIR PROGRAM
set -eu
build=$1 prog=$2
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
cp "$(dirname "$0")/compare.sh" "$tmp/"
chmod -R a+rX "$tmp"
cd "$tmp"
"${run[@]}" id
MPCR="$tmp/bin/mpcr" "${run[@]}" bash "$tmp/compare.sh" 2 "$tmp/prog"
