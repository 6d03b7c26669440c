#!/usr/bin/env bash
# Checkpoint and restart time and image size of a process with N MiB of
# resident (incompressible) memory, beside dd copying the same amount with
# fsync (write) and cat reading it back (page cache dropped where allowed).
# cont_s: a checkpoint the process survives (written by a forked copy);
# pause_s: how long that stopped the process (it measures the longest gap in
# its 1 ms wait loop); ckpt_s: `checkpoint --exit` (written in place).
# rst_s: from `mpcr restart` to the restored process running again (it
# writes the time); end_s: to its end (it exits at once, so that includes
# tearing down its memory). Ratios: ckpt_s / dd_wr_s, rst_s / cat_rd_s.
#   bench.sh BIN_DIR RESIDENT_PROGRAM [MIB[:TOUCHED_MIB]...]   (default: 64 1024)
# MIB:TOUCHED is a sparse process (an MIB mapping with TOUCHED MiB written);
# dd then copies the touched amount, which is what the image should hold.
set -u
bin=$1 prog=$2
shift 2
sizes=${*:-64 1024}
T=$(mktemp -d "${BENCH_TMP:-/tmp}/mpcr-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
export BENCH_DIR=$T
now() { date +%s.%N; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; } # cold cache where allowed
printf '%-9s %9s %9s %9s %9s %9s %9s %9s %10s %11s %12s\n' MiB cont_s pause_s ckpt_s dd_wr_s rst_s end_s \
    cat_rd_s image_MiB ckpt/dd_wr restore/cat
for size in $sizes; do
    mib=${size%%:*} touched=${size##*:}
    rm -rf "$T/ck" "$T/ready" "$T/go" "$T/resumed" "$T/pause" "$T/dd" "$T/dd2"
    "$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" "$mib" "$touched" 2>/dev/null &
    run=$!
    while [ ! -e "$T/ready" ]; do sleep 0.01; done
    sleep 0.1
    c0=$(now)
    "$bin/mpcr" checkpoint "$T/ck" 2>/dev/null || { echo "checkpoint failed"; exit 1; }
    c1=$(now)
    sleep 0.1
    pause=$(cat "$T/pause" 2>/dev/null || echo 0)
    t0=$(now)
    "$bin/mpcr" checkpoint --exit "$T/ck" 2>/dev/null || { echo "checkpoint failed"; exit 1; }
    t1=$(now)
    wait $run
    img=$(stat -c %s "$T"/ck/gen-2/rank-0.img)
    drop
    touch "$T/go"
    t2=$(now)
    "$bin/mpcr" restart "$T/ck" 2>/dev/null || { echo "restart failed"; exit 1; }
    t3=$(now)
    tr=$(cat "$T/resumed") # when the restored process ran again
    head -c "${touched}M" /dev/urandom >"$T/dd"
    t4=$(now)
    dd if="$T/dd" of="$T/dd2" bs=1M conv=fsync status=none
    t5=$(now)
    drop
    t6=$(now)
    cat "$T/dd2" >/dev/null
    t7=$(now)
    awk -v m="$size" -v k="$(awk "BEGIN{print $c1-$c0}")" -v p="$pause" -v c="$(awk "BEGIN{print $t1-$t0}")" \
        -v w="$(awk "BEGIN{print $t5-$t4}")" -v r="$(awk "BEGIN{print $tr-$t2}")" -v e="$(awk "BEGIN{print $t3-$t2}")" \
        -v d="$(awk "BEGIN{print $t7-$t6}")" -v s="$img" \
        'BEGIN { printf "%-9s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %10.1f %11.2f %12.2f\n", m, k, p, c, w, r, e, d,
                 s / 1048576, c / w, r / d }'
done
