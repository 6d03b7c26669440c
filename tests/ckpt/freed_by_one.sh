#!/usr/bin/env bash
# The window behind "only 1 of 2 ranks have started" after a restart
# (ckpt.objects, once under load): a cut where one member has freed a
# communicator that the other still holds (ckpt_freed_by_one). Made
# certain here: checkpoint --exit once the program says "ready" (both have
# dup'ed, rank 0 has freed), then the restart must re-create the
# communicator with both members (record_merge) and end as natively,
# within 120 s, its proxies reaching the coordinator (a checkpoint of the
# restarted job is taken).
#   freed_by_one.sh MPCR PROGRAM ARGS...   (PROGRAM: ckpt_freed_by_one)
set -u
mpcr=$1 prog=$2
shift 2
T=$(mktemp -d /tmp/mpcr-freed-by-one.XXXXXX)
job=""
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "freed_by_one: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
mpiexec.mpich -n 2 "$prog" "$@" >"$T/ref" 2>/dev/null || fail "the native run failed"
MPCR_EXPECT_MPI=1 timeout -k 5 300 "$mpcr" run -n 2 --ckpt-dir "$T/ck" "$prog" "$@" </dev/null >"$T/out0" 2>"$T/run.err" &
job=$!
while kill -0 $job 2>/dev/null && ! grep -q '^ready$' "$T/out0"; do sleep 0.05; done # while the job lives: load-proof
grep -q '^ready$' "$T/out0" || fail "the program never said ready"
"$mpcr" checkpoint --exit "$T/ck" >/dev/null 2>"$T/ck.err" || fail "the checkpoint failed: $(cat "$T/ck.err")"
wait "$job" || fail "the job did not end with 0 after checkpoint --exit"
grep -q "freed_by_one rank" "$T/out0" && fail "the job ended before the checkpoint (make UNITS larger)"
MPCR_EXPECT_MPI=1 timeout -k 5 120 "$mpcr" restart ${CKPT_RESTART_ARGS:-} "$T/ck" </dev/null >"$T/out1" 2>"$T/restart.err" &
job=$!
# Its proxies reach the coordinator: a checkpoint of the restarted job is taken.
for _ in $(seq 240); do
    "$mpcr" checkpoint "$T/ck" >/dev/null 2>"$T/ck2.err" && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.25
done
wait "$job"
rc=$?
job=""
case $rc in
0) ;;
124 | 137) fail "the restart did not end within 120 s (last checkpoint attempt: $(cat "$T/ck2.err"))" ;;
*) fail "the restart ended with status $rc" ;;
esac
[ -e "$T/ck/gen-2/manifest" ] || grep -q "freed_by_one rank" "$T/out1" ||
    fail "no checkpoint of the restarted job: $(cat "$T/ck2.err")"
cat "$T/out0" "$T/out1" | sort >"$T/all"
sort "$T/ref" | cmp -s - "$T/all" || fail "the output differs from the native run's: $(sort "$T/ref" | diff - "$T/all" | head -5)"
echo "freed_by_one: PASS (restarted from a cut where rank 0 had freed the communicator rank 1 held; $( [ -e "$T/ck/gen-2/manifest" ] && echo "the restarted job checkpointed again; ")output as native)"
