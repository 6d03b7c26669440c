#!/usr/bin/env bash
# An increment whose page scans end exactly as the scan vector fills
# (st_incr_scan.c): checkpoint (full), the program rewrites every other
# page of its regions, checkpoint --exit (an increment), restart. The
# restart must be accepted and every page must be as last written.
#   incr_scan.sh BIN_DIR PROGRAM
set -u
bin=$1 prog=$2
. "$(dirname "$0")/lib.sh"
test_init incr_scan
export ZDTM_DIR=$T
ck=$T/ck
"$bin/mpcr" run --no-mpi --ckpt-dir "$ck" "$prog" >"$T/out_run" 2>"$T/err_run" &
run=$!
wait_ready $run
"$bin/mpcr" checkpoint "$ck" 2>"$T/err_ck1" || fail "the first checkpoint failed"
touch "$T/next"
for _ in $(seq 600); do [ -e "$T/ready2" ] || sleep 0.05; done
[ -e "$T/ready2" ] || fail "the program did not rewrite its pages"
"$bin/mpcr" checkpoint --exit "$ck" 2>"$T/err_ck2" || fail "the second checkpoint failed"
wait $run
grep -q "an increment" "$T/err_ck2" || fail "the second checkpoint was not an increment: $(cat "$T/err_ck2")"
touch "$T/go"
"$bin/mpcr" restart "$ck" >"$T/out_restart" 2>"$T/err_restart" || fail "the restart from the increment failed"
grep -q '^PASS$' "$T/out_restart" || fail "the restarted program found other pages"
echo "incr_scan: PASS (an increment of page scans that fill the scan vector exactly restarts with every page right)"
