#!/usr/bin/env bash
# A rank's forked image writer killed before its report, while the other
# rank's writer is still writing: `mpcr checkpoint` fails within seconds
# naming it (not after the checkpoint timeout); the generation stays while
# the other writer writes into it (removing it then raced with that writer:
# a partial gen-K was left, or its late report refused), and is removed
# once that writer has ended, without a word on the job's stderr; the job,
# which went on meanwhile, ends with the native run's output and status.
# Deterministic: the writers stop themselves before they write
# (MPCR_TEST_WRITER_STOP=1, src/engine/engine.c); once both are stopped,
# one is killed, and the other let go only once the checkpoint has failed.
# The job is held before its end (CKPT_HOLD, tests/ckpt/ckpt.h) until the
# test is done with the writers: a fast job (large messages are not copied
# when buffers are shared) would otherwise end, its ranks exiting while
# their writers wait stopped, before the test finds them.
#   writer_killed.sh MPCR PROGRAM ARGS...
set -u
mpcr=$1 prog=$2
shift 2
T=$(mktemp -d /tmp/mpcr-writer-killed.XXXXXX)
run=""
cleanup() {
    touch "$T/release"
    [ -n "$run" ] && kill -0 "$run" 2>/dev/null && kill -TERM "$run" 2>/dev/null && sleep 2
    [ -n "${stopped:-}" ] && kill -CONT "$stopped" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "writer_killed: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
mpiexec.mpich -n 2 "$prog" "$@" >"$T/ref" 2>/dev/null || fail "the native run failed"
MPCR_TEST_WRITER_STOP=1 CKPT_HOLD=$T/release "$mpcr" run -n 2 --ckpt-dir "$T/ck" "$prog" "$@" >"$T/out" 2>"$T/run.err" &
run=$!
sleep 1
"$mpcr" checkpoint "$T/ck" 2>"$T/ck.err" &
ck=$!

# The image writers of this job, stopped: forked copies of its programs (a
# program as parent; the copy's own name is that of the thread that took
# the checkpoint: the program's, or its progress thread's "mpcr-progress")
# in state T, among the descendants of this `mpcr run` only (other tests
# may run the same program).
comm=$(basename "$prog" | cut -c1-15)
stopped_writers() {
    ps -e -o pid=,ppid=,stat=,comm= | awk -v root="$run" -v comm="$comm" '
        { parent[$1] = $2; stat[$1] = $3; name[$1] = $4 }
        END {
            for (p in parent) {
                mine = 0
                for (q = parent[p]; q > 1; q = parent[q]) if (q == root) { mine = 1; break }
                if (mine && name[parent[p]] == comm && stat[p] ~ /^T/) print p
            }
        }'
}
seen=""
for _ in $(seq 600); do
    seen=$(stopped_writers | sort -n | paste -sd' ')
    [ "$(echo "$seen" | wc -w)" -ge 2 ] && break
    sleep 0.05
done
# shellcheck disable=SC2086
set -- $seen
[ $# -ge 2 ] || fail "two stopped image writers not seen within 30 s (saw: $seen)"
killed=$1 stopped=$2
rank_of() { tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^MPCR_RANK=//p'; }
stopped_rank=$(rank_of "$stopped")
kill -9 "$killed"
timeout 30 tail --pid=$ck -f /dev/null || fail "mpcr checkpoint still waits 30 s after a writer was killed"
wait $ck && fail "the checkpoint succeeded although a writer was killed"
grep -q "ended before its image was complete" "$T/ck.err" || fail "checkpoint said: $(cat "$T/ck.err")"
gen=$(find "$T/ck" -maxdepth 1 -name 'gen-*' -printf '%f\n' | head -1)
[ -n "$gen" ] || fail "the generation was removed while rank $stopped_rank's writer (pid $stopped, stopped) still writes into it"
[ -e "$T/ck/$gen/manifest" ] && fail "$gen has a manifest"
kill -CONT "$stopped"
# Ended: gone, or a zombie (the program reaps its writer at its next checkpoint).
for _ in $(seq 600); do
    case $(ps -o stat= -p "$stopped") in Z* | "") break ;; esac
    sleep 0.1
done
case $(ps -o stat= -p "$stopped") in Z* | "") ;; *) fail "rank $stopped_rank's writer did not end within 60 s of going on" ;; esac
stopped=""
for _ in $(seq 100); do
    [ -e "$T/ck/$gen" ] || break
    sleep 0.1
done
[ -e "$T/ck/$gen" ] && fail "$gen is still there 10 s after its last writer ended: $(ls "$T/ck/$gen")"
touch "$T/release"
wait $run || fail "the job failed after the checkpoint"
run=""
grep -q "refused" "$T/run.err" && fail "the coordinator refused a report of the given-up checkpoint: $(grep refused "$T/run.err")"
sort "$T/ref" >"$T/ref.s"
sort "$T/out" >"$T/out.s"
cmp -s "$T/ref.s" "$T/out.s" || fail "the job's output differs from the native run's"
echo "writer_killed: PASS (writer pid $killed killed, $gen kept while rank $stopped_rank's writer wrote, removed once it ended; the job ended as natively)"
