#!/usr/bin/env bash
# NPmpich2 (Debian's netpipe-mpich2, a third-party MPICH-built binary) runs
# unmodified under mpcr: its integrity check passes for every size up to
# 1 MiB, and its blocking and its preposted-Irecv + Ssend modes measure the
# same sizes (powers of two) natively and under mpcr (timings naturally differ).
set -u
: "${MPCR:?}"
np=$(command -v NPmpich2) || { echo "NPmpich2 missing (package netpipe-mpich2)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
common=(-n 20 -u 1048576)

MPCR_EXPECT_MPI=1 timeout 120 "$MPCR" run -n 2 "$np" -i "${common[@]}" -o check.out >check.log 2>&1 ||
    { echo "integrity run failed under mpcr:"; tail check.log; exit 1; }
sizes=$(grep -c "bytes" check.log)
passed=$(grep -c "Integrity check passed" check.log)
[ "$sizes" -ge 30 ] && [ "$sizes" = "$passed" ] ||
    { echo "integrity: $passed of $sizes sizes passed"; grep -v passed check.log | tail; exit 1; }
echo "integrity check passed for all $sizes sizes"

# The two modes at powers of two only (-p 0, a third of the runs): the
# perturbed sizes around them (odd lengths) are the integrity run's above
for mode in "-p 0" "-p 0 -a -S"; do
    # shellcheck disable=SC2086
    timeout 120 mpiexec.mpich -n 2 "$np" $mode "${common[@]}" -o native.out >native.log 2>&1 ||
        { echo "native NPmpich2 $mode failed"; tail native.log; exit 1; }
    # shellcheck disable=SC2086
    MPCR_EXPECT_MPI=1 timeout 120 "$MPCR" run -n 2 "$np" $mode "${common[@]}" -o mpcr.out >mpcr.log 2>&1 ||
        { echo "NPmpich2 $mode failed under mpcr:"; tail mpcr.log; exit 1; }
    diff <(awk '{print $1}' native.out) <(awk '{print $1}' mpcr.out) >/dev/null ||
        { echo "NPmpich2 $mode covered different sizes under mpcr"; exit 1; }
    awk '$2 <= 0 {bad=1} END {exit bad}' mpcr.out || { echo "zero throughput reported"; exit 1; }
    echo "NPmpich2 ${mode:-(blocking)}: $(wc -l <mpcr.out) sizes; 1 MiB: native" \
        "$(awk '$1==1048576{print $2}' native.out) Mbps, mpcr $(awk '$1==1048576{print $2}' mpcr.out) Mbps"
done
