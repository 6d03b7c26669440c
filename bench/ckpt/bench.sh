#!/usr/bin/env bash
# Checkpoint and restart of an MPI job under mpcr, beside dd of the same bytes.
#   bench.sh BUILD_DIR [RANKS] [MIB_PER_RANK] [INFLIGHT]      (default: 4 256 10000)
# 1. A job of RANKS ranks, each with MIB MiB resident, is checkpointed once
#    (and goes on), then with --exit; the coordinator's split (stop, drain,
#    images, resume) is printed,
#    then `mpcr restart` resumes it and ends it; dd writes (fsync) and reads
#    the same number of bytes on the same file system.
# 2. A 2-rank job with INFLIGHT small messages in flight: time of `mpcr
#    checkpoint` (checkpoint-and-continue) from the request to the ranks
#    resumed, and of the drain within it.
# Each job's checksums are compared with an uninterrupted run's.
set -u
build=$1 ranks=${2:-4} mib=${3:-256} inflight=${4:-10000}
mpcr=$build/bin/mpcr prog=$build/bench/ckpt/memjob
T=$(mktemp -d "${BENCH_TMP:-/tmp}/mpcr-bench.XXXXXX")
trap 'touch "$T/stop"; sleep 1; rm -rf "$T"' EXIT
export BENCH_DIR=$T
now() { date +%s.%N; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }
wait_ready() { while [ ! -e "$T/ready" ]; do sleep 0.02; done; }
fail() { echo "bench: $*" >&2; exit 1; }

# Reference: the same job, uninterrupted.
rm -f "$T/ready" "$T/stop"
( wait_ready; sleep 0.5; touch "$T/stop" ) &
mpiexec.mpich -n "$ranks" "$prog" "$mib" >"$T/ref" || fail "native run failed"
wait

rm -f "$T/ready" "$T/stop"
t0=$(now)
"$mpcr" run -n "$ranks" --ckpt-dir "$T/ck" "$prog" "$mib" >"$T/out1" 2>"$T/err1" &
job=$!
wait_ready
c0=$(now)
"$mpcr" checkpoint "$T/ck" 2>"$T/ck0.err" || fail "checkpoint: $(cat "$T/ck0.err")"
c1=$(now)
t1=$(now)
"$mpcr" checkpoint --exit "$T/ck" 2>"$T/ck.err" || fail "checkpoint: $(cat "$T/ck.err")"
t2=$(now)
wait $job || fail "job: $(cat "$T/err1")"
bytes=$(cat "$T"/ck/gen-2/rank-*.img "$T"/ck/gen-2/rank-*.state | wc -c)
split=$(grep -o 'stop [0-9]* ms, drain [0-9]* ms, images [0-9]* ms[^)]*' "$T/ck.err")
touch "$T/stop"
drop
t3=$(now)
"$mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2" || fail "restart: $(cat "$T/err2")"
t4=$(now)
cmp -s "$T/ref" "$T/out2" || fail "the restarted job's checksums differ from the uninterrupted run's"
head -c "$bytes" /dev/urandom >"$T/dd"
t5=$(now)
dd if="$T/dd" of="$T/dd2" bs=1M conv=fsync status=none
t6=$(now)
drop
t7=$(now)
dd if="$T/dd2" of=/dev/null bs=1M status=none
t8=$(now)
awk -v r="$ranks" -v m="$mib" -v b="$bytes" -v c="$(awk "BEGIN{print $t2-$t1}")" \
    -v c0="$(awk "BEGIN{print $c1-$c0}")" -v sp0="$(grep -o 'stop [0-9]* ms.*ms' "$T/ck0.err" | head -1)" \
    -v went="$(grep -o 'went on after [0-9]* ms' "$T/ck0.err")" \
    -v w="$(awk "BEGIN{print $t6-$t5}")" -v s="$(awk "BEGIN{print $t4-$t3}")" \
    -v d="$(awk "BEGIN{print $t8-$t7}")" -v sp="$split" 'BEGIN {
    printf "job: %d ranks x %d MiB, images %.1f MiB\n", r, m, b / 1048576
    printf "checkpoint (continue) %.3f s   (%s)%s\n", c0, sp0, went ? "; the ranks " went : ""
    printf "checkpoint --exit %.3f s   dd write %.3f s   ratio %.2f   (%s)\n", c, w, c / w, sp
    printf "restart to end    %.3f s   dd read  %.3f s   ratio %.2f\n", s, d, s / d }'
rm -rf "$T/ck" "$T/dd" "$T/dd2"

# In-flight messages: checkpoint-and-continue of a 2-rank job.
rm -f "$T/ready" "$T/stop"
( wait_ready; sleep 0.5; touch "$T/stop" ) &
mpiexec.mpich -n 2 "$prog" 16 "$inflight" >"$T/ref2" || fail "native run failed"
wait
rm -f "$T/ready" "$T/stop"
"$mpcr" run -n 2 --ckpt-dir "$T/ck" "$prog" 16 "$inflight" >"$T/out3" 2>"$T/err3" &
job=$!
wait_ready
t1=$(now)
"$mpcr" checkpoint "$T/ck" 2>"$T/ck.err" || fail "checkpoint: $(cat "$T/ck.err")"
t2=$(now)
touch "$T/stop"
wait $job || fail "job: $(cat "$T/err3")"
cmp -s "$T/ref2" "$T/out3" || fail "checksums after checkpoint-and-continue differ"
cached=$(cat "$T"/ck/gen-1/rank-1.state | wc -c)
awk -v n="$inflight" -v c="$(awk "BEGIN{print $t2-$t1}")" -v s="$cached" \
    -v sp="$(grep -o 'stop [0-9]* ms, drain [0-9]* ms, images [0-9]* ms[^)]*' "$T/ck.err")" 'BEGIN {
    printf "%d messages in flight: checkpoint to resumed ranks %.3f s (%s), rank 1 state %.0f KiB\n",
    n, c, sp, s / 1024 }'
