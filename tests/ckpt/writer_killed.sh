#!/usr/bin/env bash
# A rank's forked image writer killed before its report: `mpcr checkpoint`
# fails within seconds naming it (not after the checkpoint timeout), the
# generation is removed, and the job, which went on meanwhile, ends with the
# native run's output and status.
#   writer_killed.sh MPCR PROGRAM ARGS...
set -u
mpcr=$1 prog=$2
shift 2
T=$(mktemp -d /tmp/mpcr-writer-killed.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "writer_killed: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
mpiexec.mpich -n 2 "$prog" "$@" >"$T/ref" 2>/dev/null || fail "the native run failed"
"$mpcr" run -n 2 --ckpt-dir "$T/ck" "$prog" "$@" >"$T/out" 2>"$T/run.err" &
run=$!
sleep 1
"$mpcr" checkpoint "$T/ck" 2>"$T/ck.err" &
ck=$!
writer=""
for _ in $(seq 500); do # a rank's writer: a child of one of the programs
    programs=$(pgrep -d, -x "$(basename "$prog" | cut -c1-15)")
    [ -n "$programs" ] && writer=$(pgrep -P "$programs" | head -1)
    [ -n "$writer" ] && break
    sleep 0.005
done
[ -n "$writer" ] || fail "no forked writer seen"
kill -9 "$writer"
timeout 30 tail --pid=$ck -f /dev/null || fail "mpcr checkpoint still waits 30 s after a writer was killed"
wait $ck && fail "the checkpoint succeeded although a writer was killed"
grep -q "ended before its image was complete" "$T/ck.err" || fail "checkpoint said: $(cat "$T/ck.err")"
[ -e "$T/ck/gen-1" ] && fail "the incomplete generation is still there"
wait $run || fail "the job failed after the checkpoint"
sort "$T/ref" >"$T/ref.s"
sort "$T/out" >"$T/out.s"
cmp -s "$T/ref.s" "$T/out.s" || fail "the job's output differs from the native run's"
echo "writer_killed: PASS ($(grep -o 'pid [0-9]*' "$T/ck.err" | head -1) killed; the job ended as natively)"
