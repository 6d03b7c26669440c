#!/usr/bin/env bash
# Image reports that are not a rank's own must not complete a generation.
# Rank 1's program is stopped (SIGSTOP) before a checkpoint, so that the
# generation waits for its image; meanwhile, a client with the job's secret
# sends an image report without a rank credential, and another sends a
# second report with rank 0's credential (read from its program's
# environment) and one for another generation. Each must be refused, its
# reason answered ("error WHY") and logged by the coordinator, and no
# manifest may appear while rank 1's image is missing. Rank 1 goes on
# (SIGCONT): the checkpoint completes with both images, and the job ends
# with the native run's output.
#   stray_report.sh PROGRAM ARGS...       (env MPCR; 2 ranks)
set -u
name=stray_report.sh
. "$(dirname "$0")/coord_common.sh"
. "$(dirname "$0")/../native_run.sh"
native_run "$T/ref" "$T/native.stderr" 2 "$@" || fail "the native run failed"
ck=$T/ck
start_coordinator "$ck" 2
secret=$(cat "$ck/coord.secret")
# rank 0 holds half-way (CKPT_MIDWAY, tests/ckpt/ckpt.h) until the checkpoint is complete: on a
# fast machine the ring ended before it (a fresh clone, 2026-12-07: "the job is ending")
CKPT_MIDWAY="$T/release" timeout 150 "$MPCR" run -n 2 --coordinator "127.0.0.1:$port" --ckpt-dir "$ck" "$@" \
    >"$T/out" 2>"$T/run.err" &
job=$!
pids="$pids $job"

# The job's programs: descendants of `mpcr run` whose environment names a
# rank (MPCR_RANK is set by the proxy for its program only).
descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
program_of_rank() {
    local p
    for p in $(descendants "$job"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "MPCR_RANK=$1" &&
            ! tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -q mpcr-proxy && { echo "$p"; return; }
    done
}
for _ in $(seq 200); do
    p0=$(program_of_rank 0) p1=$(program_of_rank 1)
    [ -n "$p0" ] && [ -n "$p1" ] && break
    sleep 0.05
done
[ -n "$p0" ] && [ -n "$p1" ] || fail "the job's programs were not found"
for _ in $(seq 1200); do # rank 0 at its half-way hold, rank 1 waiting for it
    [ -e "$T/release.reached" ] && break
    sleep 0.05
done
[ -e "$T/release.reached" ] || fail "rank 0 did not reach its half-way hold"
kill -STOP "$p1"
pids="$pids $p1"
"$MPCR" checkpoint "$ck" 2>"$T/ckpt.err" &
ckpt=$!
for _ in $(seq 600); do # rank 0's image is in; rank 1's cannot come
    grep -q "1/2 ranks" "$T/ckpt.err" && break
    kill -0 "$ckpt" 2>/dev/null || break
    sleep 0.05
done
grep -q "1/2 ranks" "$T/ckpt.err" || fail "rank 0's image was not reported"
gen=$(ls "$ck" | sed -n 's/^gen-\([0-9]*\)$/\1/p' | sort -n | tail -1)

# report LABEL CREDENTIAL LINE WHY: sends a report as an engine would; the
# answer must be "error WHY" (not merely no "continue": a timeout or a
# closed connection is no refusal), and the coordinator's log must say it
# refused LINE for WHY.
report() {
    exec 5<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect to the coordinator"
    printf 'secret %s\n%s\n' "$2" "$3" >&5
    local answer=
    read -r -t 60 answer <&5
    exec 5<&-
    echo "$1: answered \"$answer\""
    [ "$answer" = "error $4" ] || fail "$1 was answered \"$answer\", not \"error $4\""
    grep -qF "mpcr: coordinator: refused \"$3\": $4" "$T/coord.err" ||
        fail "the coordinator's log does not say it refused $1 ($3: $4)"
}
cred0=$(tr '\0' '\n' <"/proc/$p0/environ" | sed -n 's/^MPCR_COORD_SECRET=//p')
report "a report without a rank credential" "$secret" "image $gen ok 4096" \
    "an image report must come from a rank's engine (no or wrong rank credential)"
report "rank 0's second report" "$cred0" "image $gen ok 4096" \
    "rank 0 has reported its image of generation $gen already"
report "rank 0's report for another generation" "$cred0" "image $((gen + 7)) ok 4096" \
    "rank 0: no checkpoint of generation $((gen + 7)) waits for images"
[ -e "$ck/gen-$gen/manifest" ] && fail "a manifest was written while rank 1's image is missing"

kill -CONT "$p1"
wait "$ckpt" || fail "the checkpoint failed once rank 1 went on"
[ -s "$ck/gen-$gen/manifest" ] || fail "no manifest after every rank's image"
for r in 0 1; do [ -s "$ck/gen-$gen/rank-$r.img" ] || fail "gen-$gen has no image of rank $r"; done
touch "$T/release"
wait "$job" || fail "the job failed"
sort "$T/out" | cmp -s - <(sort "$T/ref") || fail "the output differs from the native run's"
wait "$coord" || fail "the coordinator did not end with its job"
echo "stray_report.sh: PASS (stray, duplicate and foreign reports refused; gen-$gen complete with both ranks)"
