#!/usr/bin/env bash
# NPmpich2 (Debian's netpipe-mpich2: a third-party binary built against
# MPICH, run unmodified) under the launcher given, its figures printed in
# bench/run.sh's format (bench/bench.h):
#   RESULT np_latency_8B_us     half a round trip of 8 bytes
#   RESULT np_bw_64KiB_MBps     throughput at 64 KiB, 1 MiB and 4 MiB
#   RESULT np_bw_1MiB_MBps      (NetPIPE's Mbps / 8)
#   RESULT np_bw_4MiB_MBps
#   bench/netpipe.sh mpiexec.mpich -n 2      (NP_REPEATS=200 transfers a size)
#   bench/netpipe.sh build/bin/mpcr run -n 2
set -euo pipefail
np=$(command -v NPmpich2) || { echo "NPmpich2 missing (package netpipe-mpich2)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out" "$out.log"' EXIT
# NPmpich2 writes its table (bytes, Mbps, seconds per transfer) to -o;
# -p 0: no sizes 3 bytes either side of each; -n: transfers per size.
"$@" "$np" -l 8 -u 4194304 -p 0 -n "${NP_REPEATS:-200}" -o "$out" >"$out.log" 2>&1 ||
    { tail "$out.log" >&2; exit 1; }
awk '$1 == 8       { printf "RESULT np_latency_8B_us %.6g\n", $3 * 1e6 }
     $1 == 65536   { printf "RESULT np_bw_64KiB_MBps %.6g\n", $2 / 8 }
     $1 == 1048576 { printf "RESULT np_bw_1MiB_MBps %.6g\n", $2 / 8 }
     $1 == 4194304 { printf "RESULT np_bw_4MiB_MBps %.6g\n", $2 / 8 }' "$out"
