#!/usr/bin/env bash
# A file mapped by the image that changed after the checkpoint makes the
# restart refuse, naming the file, before anything is unmapped (status 1).
#   filechanged.sh BIN_DIR PROGRAM(st_filemap)
set -u
bin=$1 prog=$2
. "$(dirname "$0")/lib.sh"
test_init filechanged
export ZDTM_DIR=$T
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" >"$T/out1" 2>"$T/err1" &
run=$!
wait_ready $run
"$bin/mpcr" checkpoint --exit "$T/ck" 2>"$T/err_ck" || fail "checkpoint failed"
wait $run
echo more >>"$T/mapped"
touch "$T/go"
"$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2"
rc=$?
[ $rc -eq 1 ] || fail "restart with a changed mapped file: status $rc"
grep -q "mapped file $T/mapped changed since the checkpoint" "$T/err2" || fail "message: $(cat "$T/err2")"
echo "filechanged: PASS ($(cat "$T/err2"))"
