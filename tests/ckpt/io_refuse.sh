#!/usr/bin/env bash
# A file the program had open, damaged between a checkpoint and the restart
# (docs/mpi-io.md, "At a restart"): `mpcr restart` must fail, naming the
# file, within 60 s and leaving no process, when the data file was cut
# shorter than at the checkpoint and when it was deleted; with the file put
# back as it was, the restart must finish the job.
#   io_refuse.sh MPCR PROGRAM STEPS UNITS   (PROGRAM: ckpt_io)
set -u
mpcr=$1 prog=$2 steps=$3 units=$4
T=$(mktemp -d /tmp/mpcr-io-refuse.XXXXXX)
job=""
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "io_refuse: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
# The program's files in $T; rank 0 holds before its report, and half-way until the
# checkpoint, which so finds the files open (under load the job once ran to its end
# first: its files closed, the cut file was not the restart's business, and the
# restart waited at the hold).
export CKPT_SCRATCH=$T CKPT_HOLD=$T/hold CKPT_MIDWAY=$T/midway
timeout -k 5 300 "$mpcr" run -n 2 --ckpt-dir "$T/ck" "$prog" "$steps" "$units" </dev/null >"$T/out0" 2>"$T/run.err" &
job=$!
while kill -0 $job 2>/dev/null && ! grep -q '^io: step' "$T/out0"; do sleep 0.05; done # while the job lives: load-proof
grep -q '^io: step' "$T/out0" || fail "the program never reported a step"
for _ in $(seq 50); do "$mpcr" checkpoint --exit "$T/ck" >/dev/null 2>"$T/ck.err" && break; sleep 0.2; done
[ -e "$T/ck/gen-1/manifest" ] || fail "the checkpoint failed: $(cat "$T/ck.err")"
wait "$job" || fail "the job did not end with 0 after checkpoint --exit"
job=""
data=$(ls "$T"/ckpt_io.*.dat 2>/dev/null | head -1)
[ -s "$data" ] || fail "no data file in $T"
cp -p "$data" "$T/saved"

# refused: a restart that fails by itself, within 60 s, saying why
refused() { # WHAT PATTERN
    local start=$SECONDS rc
    timeout -k 5 60 "$mpcr" restart "$T/ck" </dev/null >"$T/out.$1" 2>"$T/restart.$1.err"
    rc=$?
    case $rc in 0) fail "$1: the restart succeeded" ;; 124 | 137) fail "$1: the restart did not end within 60 s" ;; esac
    grep -q -- "$2" "$T/restart.$1.err" || fail "$1: no message matching '$2'"
    grep -qF "$data" "$T/restart.$1.err" || fail "$1: the message does not name $data"
    # gone within seconds (beside two busy loops the launcher's last processes
    # were still ending when the restart's status came)
    local i
    for ((i = 0; i < 100; i++)); do
        pgrep -f "$T/ck" >/dev/null || break
        sleep 0.05
    done
    pgrep -f "$T/ck" >/dev/null && fail "$1: processes of the refused restart are left 5 s after it ended: $(pgrep -af "$T/ck")"
    echo "io_refuse: $1: refused in $((SECONDS - start)) s: $(grep -m1 -- "$2" "$T/restart.$1.err" | cut -c1-160)"
}
truncate -s 100 "$data"
refused truncated "shorter than"
rm -f "$data"
refused deleted "cannot be opened again"

cp -p "$T/saved" "$data"
touch "$T/hold"
timeout -k 5 120 "$mpcr" restart "$T/ck" </dev/null >"$T/out1" 2>"$T/restart.err" || fail "the restart of the intact files failed"
grep -q '^io rank 1:' "$T/out1" || fail "the restarted job did not report"
echo "io_refuse: PASS (a cut and a deleted file refused by name; the intact one restarted to the end)"
