#!/usr/bin/env bash
# mpcr needs no privilege: a job runs under `mpcr run` as user nobody, with
# the same output as natively.
#   unprivileged.sh BUILD_DIR PROGRAM
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/as_nobody.sh" "$1" --copy "$2" --copy "$here/compare.sh" --copy "$here/native_run.sh" -- \
    bash ./compare.sh 2 "./$(basename "$2")"
