#!/usr/bin/env bash
# What the job's profile costs (docs/profile.md, "Cost"), in one run:
#   off  - this build, no --profile: against BASE, a build of the commit
#          before the profile existed (nothing to add but the hooks' tests)
#   on   - this build with --profile
# on bench/callcycles (1 rank: the best batch's cycles per MPI_Comm_rank
# and per paced MPI_Iprobe, steady on a loaded machine), bench/callcost
# unpaced (a full round trip to the proxy each call) and bench/kernels
# (2 ranks). Runs alternate base/off/on REPS times (default 5); each run
# reports its median batch; the table gives the median of the runs and the
# ratios off/base and on/off.
#   BASE=DIR bench/profile.sh      DIR: the build tree of the older commit
#                                  (its bin/mpcr, libraries and proxy; the benchmarks are this build's)
#   NICE=-15 ...                   (root) at that priority, as bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BASE:?BASE must name the build tree of a commit without the profile}"
if [ -n "${NICE:-}" ] && [ -z "${MPCR_BENCH_NICED:-}" ]; then
    MPCR_BENCH_NICED=1 exec setsid --wait nice -n "$NICE" "$0" "$@"
fi
REPS=${REPS:-5}
NEW=build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# one LABEL TREE PROFILE NRANKS PROGRAM ARGS...: RESULT lines as "LABEL NAME VALUE"
one() {
    local label=$1 tree=$2 prof=$3 n=$4 prog=$5
    shift 5
    local opts=()
    [ "$prof" = on ] && opts=(--profile "$out/prof")
    "$tree/bin/mpcr" run -n "$n" "${opts[@]}" "$NEW/bench/$prog" "$@" 2>/dev/null |
        awk -v l="$label" '$1 == "RESULT" { print l, $2, $3 }' >>"$out/results"
}

for ((r = 0; r < REPS; r++)); do
    for v in base off on; do
        tree=$NEW prof=off
        [ $v = base ] && tree=$BASE
        [ $v = on ] && prof=on
        one "$v" "$tree" "$prof" 1 callcycles 200
        MPCR_POLL_PACE_NS=0 one "$v.unpaced" "$tree" "$prof" 1 callcost 0.5
        one "$v" "$tree" "$prof" 2 kernels 0.5
    done
done

awk '
    { split($1, p, "."); v = p[1]; name = $2 (p[2] ? "." p[2] : ""); vals[v, name] = vals[v, name] " " $3; names[name] = 1 }
    function median(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
        printf "%-40s %12s %12s %12s %9s %9s\n", "result (median of runs)", "base", "off", "on", "off/base", "on/off"
        for (name in names) {
            if (name ~ /_pct/) continue
            b = median(vals["base", name]); o = median(vals["off", name]); n = median(vals["on", name])
            printf "%-40s %12.4g %12.4g %12.4g %9.3f %9.3f\n", name, b, o, n, b ? o / b : 0, o ? n / o : 0
        }
    }' "$out/results" | sort
