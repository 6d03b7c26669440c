#!/usr/bin/env bash
# Incremental images (docs/incremental.md) of a process with N MiB of
# resident, incompressible memory (bench/engine/changing.c), all taken by
# checkpoints it survives (forked writers): a full image; an increment with
# nothing changed; one with 10 % of the pages rewritten; 8 more with 1 %
# each; then `checkpoint --exit` with 1 % (the 11th generation: a chain of
# a full image and 10 increments). Then the restart from that chain, and
# the same process checkpointed with --full-every 1 (a full image) and
# restarted, page cache dropped before each where allowed. Sizes are of
# rank-0.img; ratios to the full image. rst_s: from `mpcr restart` until
# the process ran again.
#   incr.sh BIN_DIR CHANGING_PROGRAM [MIB]   (default 1024)
set -u
bin=$1 prog=$2 mib=${3:-1024}
T=$(mktemp -d "${BENCH_TMP:-/tmp}/mpcr-bench-incr.XXXXXX")
trap 'rm -rf "$T"' EXIT
export BENCH_DIR=$T
now() { date +%s.%N; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }
size() { stat -c %s "$T/ck/gen-$1/rank-0.img"; }
change() { # rewrite $1 % of the pages, wait until done
    rm -f "$T/changed"; echo "$1" >"$T/change.tmp"; mv "$T/change.tmp" "$T/change"
    while [ ! -e "$T/changed" ]; do sleep 0.01; done
}
ckpt() { # $1: --exit or empty; prints the seconds it took
    local t0 t1
    t0=$(now); "$bin/mpcr" checkpoint $1 "$T/ck" 2>>"$T/log" || { echo "checkpoint failed: $(tail -3 "$T/log")" >&2; exit 1; }
    t1=$(now); awk "BEGIN{printf \"%.3f\", $t1-$t0}"
}
restart() { # prints the seconds until the restored process ran again
    local t0
    rm -f "$T/resumed"; drop; touch "$T/go"
    t0=$(now)
    "$bin/mpcr" restart "$T/ck" 2>>"$T/log" || { echo "restart failed: $(tail -3 "$T/log")" >&2; exit 1; }
    awk "BEGIN{printf \"%.3f\", $(cat "$T/resumed")-$t0}"
    rm -f "$T/go"
}
start() { # $@: mpcr run options
    rm -rf "$T/ck" "$T/ready"
    "$bin/mpcr" run --no-mpi --keep 100 "$@" --ckpt-dir "$T/ck" "$prog" "$mib" 2>>"$T/log" &
    while [ ! -e "$T/ready" ]; do sleep 0.01; done
}
start --full-every 64
printf '%-34s %9s %12s %9s\n' image seconds bytes of_full
s=$(ckpt ""); full=$(size 1)
printf '%-34s %9s %12s %9s\n' "gen-1 full" "$s" "$full" 1.0000
s=$(ckpt ""); printf '%-34s %9s %12s %9.4f\n' "gen-2 increment, nothing changed" "$s" "$(size 2)" "$(awk "BEGIN{print $(size 2)/$full}")"
change 10
s=$(ckpt ""); printf '%-34s %9s %12s %9.4f\n' "gen-3 increment, 10 % changed" "$s" "$(size 3)" "$(awk "BEGIN{print $(size 3)/$full}")"
for g in 4 5 6 7 8 9 10; do
    change 1
    s=$(ckpt ""); printf '%-34s %9s %12s %9.4f\n' "gen-$g increment, 1 % changed" "$s" "$(size $g)" "$(awk "BEGIN{print $(size $g)/$full}")"
done
change 1
s=$(ckpt --exit); printf '%-34s %9s %12s %9.4f\n' "gen-11 increment (--exit), 1 %" "$s" "$(size 11)" "$(awk "BEGIN{print $(size 11)/$full}")"
wait
chain=$(restart); wait
start --full-every 1
change 1
s=$(ckpt --exit); wait
fullrst=$(restart); wait
echo "restart from gen-11 (a full image and 10 increments): $chain s; from a full image: $fullrst s; ratio $(awk "BEGIN{printf \"%.2f\", $chain/$fullrst}")"
