#!/usr/bin/env bash
# NPmpich2 (Debian's netpipe-mpich2, a third-party MPICH-built binary) runs
# unmodified under mpcr over a short range of sizes, natively and under mpcr,
# and both report the same list of message sizes.
set -u
: "${MPCR:?}"
np=$(command -v NPmpich2) || { echo "NPmpich2 missing (package netpipe-mpich2)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
timeout 120 mpiexec.mpich -n 2 "$np" -u 65536 -o native.out >native.log 2>&1 || { cat native.log; exit 1; }
MPCR_EXPECT_MPI=1 timeout 120 "$MPCR" run -n 2 "$np" -u 65536 -o mpcr.out >mpcr.log 2>&1 \
    || { echo "NPmpich2 failed under mpcr:"; cat mpcr.log; exit 1; }
# Columns: bytes, throughput, latency. Sizes must match; timings naturally differ.
if ! diff <(awk '{print $1}' native.out) <(awk '{print $1}' mpcr.out); then
    echo "NPmpich2 covered different sizes under mpcr"; exit 1
fi
n=$(wc -l <mpcr.out)
[ "$n" -ge 50 ] || { echo "only $n sizes measured"; cat mpcr.log; exit 1; }
awk '$2 <= 0 {bad=1} END {exit bad}' mpcr.out || { echo "zero throughput reported"; exit 1; }
echo "NPmpich2: $n sizes up to 64 KiB under mpcr; latency at 1 KiB: native $(awk '$1==1024{print $3}' native.out) us, mpcr $(awk '$1==1024{print $3}' mpcr.out) us"
