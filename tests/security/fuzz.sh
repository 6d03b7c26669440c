#!/usr/bin/env bash
# Fuzzes what mpcr reads from disk and from its sockets, with libFuzzer
# (Debian's clang), for a fixed time per target, and keeps what it finds:
#   fuzz_manifest  the manifest parser, the image and state-file identity
#                  readers (src/coord/binding.c)
#   fuzz_lines     the coordinators' connection and proxy line parsers
#                  (src/coord/conns.c, src/coord/job.c)
# Each starts from fuzz/corpus/TARGET and adds what it learns there; a crash
# (or leak, or undefined behaviour) is copied to fuzz/crashes/TARGET, where
# the test suite replays it (security.fuzz_replay). Not part of the suite:
# run it by hand and record the run in docs/reliability.md.
#   fuzz.sh [SECONDS_PER_TARGET (default 300)] [BUILD_DIR (default /tmp/mpcr-fuzz)]
set -eu
seconds=${1:-300}
out=${2:-/tmp/mpcr-fuzz}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)/src
mkdir -p "$out"
flags=(-g -O1 -std=gnu17 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src/coord" -I"$src/engine")
common=("$src/coord/binding.c" "$src/coord/private.c")
clang "${flags[@]}" "$here/fuzz/fuzz_manifest.c" "${common[@]}" -o "$out/fuzz_manifest"
clang "${flags[@]}" "$here/fuzz/fuzz_lines.c" "${common[@]}" "$src/coord/coord.c" "$src/coord/gens.c" \
    "$src/coord/fault.c" "$src/coord/triggers.c" "$src/coord/abandoned.c" -o "$out/fuzz_lines"
status=0
for t in fuzz_manifest fuzz_lines; do
    mkdir -p "$here/fuzz/corpus/$t" "$out/$t.work" "$out/$t.corpus" "$here/fuzz/crashes/$t"
    rm -f "$out/$t.work"/crash-* "$out/$t.work"/leak-* "$out/$t.work"/timeout-*
    echo "== $t: $seconds s"
    if ! (cd "$out/$t.work" && "$out/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -print_final_stats=1 "$out/$t.corpus" "$here/fuzz/corpus/$t" 2>"$out/$t.log"); then
        status=1
    fi
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)" "$out/$t.log" || tail -3 "$out/$t.log"
    for f in "$out/$t.work"/crash-* "$out/$t.work"/leak-* "$out/$t.work"/timeout-*; do
        [ -e "$f" ] || continue
        cp "$f" "$here/fuzz/crashes/$t/"
        echo "FOUND: $f (kept in tests/security/fuzz/crashes/$t; see $out/$t.log)"
        status=1
    done
done
exit $status
