#!/usr/bin/env bash
# Exit statuses (docs/mpcr.1, EXIT STATUS): 2 for a command line mpcr does
# not understand (option values out of range included), 1 for what cannot be
# done, 126 for a program that is there but cannot be executed, 127 for one
# that is not there, 128+N after signal N, else the program's own; each failure says
# why on stderr, prefixed "mpcr:".
#   exit_codes.sh MPCR
set -u
mpcr=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-exit-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/empty"
printf '#!/bin/sh\necho ran\n' >"$tmp/noexec" && chmod 0644 "$tmp/noexec" # there, not executable
# STATUS: COMMAND LINE (split as the shell splits words; $tmp expanded)
cases=(
    "2: run --bogus true"
    "2: run -n 0 true"
    "2: run"
    "2: run --ckpt-dir $tmp/d --exit-signal KILL true"
    "2: run --ckpt-dir $tmp/d --exit-signal NOSUCH true"
    "2: run --ckpt-dir $tmp/d --exit-signal RTMAX true"
    "2: run --ckpt-dir $tmp/d --exit-signal USR1 --checkpoint-signal SIGUSR1 true"
    "2: run --exit-signal USR1 true"
    "2: run --mpi nosuch true"
    "2: exec --bogus x true"
    "2: exec --mpi nosuch true"
    "2: exec --exit-signal USR1 true"
    "2: checkpoint --bogus"
    "2: restart --bogus"
    "2: restart --exit-signal STOP $tmp/empty"
    "2: status --bogus"
    "2: coordinator"
    "2: coordinator --listen 127.0.0.1:1 -n 2 --checkpoint-signal 12 --exit-signal 12"
    "1: checkpoint $tmp/empty"
    "1: checkpoint --exit $tmp/empty"
    "1: status $tmp/nosuch"
    "1: restart $tmp/empty"
    "1: exec true"
    "2: run --ckpt-dir $tmp/d --interval nan true"
    "2: run --ckpt-dir $tmp/d --interval inf true"
    "2: run --ckpt-dir $tmp/d --interval 1e300 true"
    "2: run --ckpt-dir $tmp/d --keep x true"
    "2: run --no-mpi --ckpt-dir $tmp/d --interval nan true"
    "2: run --no-mpi --ckpt-dir $tmp/d --keep 2x true"
    "2: coordinator --listen 127.0.0.1:1 -n 2 --interval nan"
    "2: coordinator --listen 127.0.0.1:1 -n x"
    "2: restart -n x $tmp/empty"
    "1: run -n 999999 true"
    "126: run $tmp/noexec"
    "126: run --no-mpi $tmp/noexec"
    "126: run --no-mpi $tmp"
    "127: run --no-mpi $tmp/nosuch"
    "3: run --no-mpi sh -c 'exit 3'"
    "143: run --no-mpi sh -c 'kill -TERM \$\$'"
    "0: run --no-mpi true"
    "0: --version"
)
for c in "${cases[@]}"; do
    want=${c%%:*} line=${c#*: }
    eval "args=($line)"
    env -u PMI_RANK -u PMI_SIZE -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK \
        "$mpcr" "${args[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
    got=$?
    [ "$got" = "$want" ] || fail "mpcr $line: status $got, not $want ($(head -2 "$tmp/err"))"
    if [ "$want" != 0 ] && [ "$want" -lt 128 ] && [ "$want" != 3 ]; then
        grep -q "^mpcr: " "$tmp/err" || fail "mpcr $line: status $got without a word why on stderr"
    fi
done
echo "PASS: ${#cases[@]} command lines, each with its documented status"
