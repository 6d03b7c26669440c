#!/usr/bin/env bash
# Fuzzes what mpcr reads from disk and from its sockets for a fixed time per
# target, and keeps what it finds. Two libFuzzer targets (Debian's clang):
#   fuzz_manifest  the manifest parser, the image and state-file identity
#                  readers (src/coord/binding.c)
#   fuzz_lines     the coordinators' connection, request and proxy line
#                  parsers (src/coord/conns.c, src/coord/job.c, src/coord/coord.c)
# Each starts from fuzz/corpus/TARGET and adds what it learns there; a crash
# (or leak, or undefined behaviour) is copied to fuzz/crashes/TARGET, where
# the test suite replays it (security.replay_TARGET). And the two
# mutation drivers (mutate/, built by CMake in BUILD), for the same time
# each (MUTATE_SECONDS), from a fresh seed (MUTATE_SEED, printed):
#   fuzz_image     the restorer's image reader (mpcr-restore-checked --check)
#   fuzz_state     the proxy's state-file reader (state_load)
# A failing damaged file is copied to OUT/TARGET.fail/ (a whole image or
# state file, bound to the binaries that wrote the valid one, so not kept in
# the tree): pin its damage as a case in mutate/TARGET.c (pin()), which the
# suite then replays every run (security.fuzz_image, security.fuzz_state).
# Not part of the suite: run it by hand and record the run in
# docs/reliability.md.
#   fuzz.sh [SECONDS_PER_TARGET (default 300)] [OUT (default /tmp/mpcr-fuzz)]
#           [BUILD (the CMake build directory, default build)]
# FUZZ_TARGETS="fuzz_lines fuzz_state" runs only those (several instances
# with their own OUT may then run side by side).
set -eu
seconds=${1:-300}
out=${2:-/tmp/mpcr-fuzz}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)/src
build=$(cd "${3:-$here/../../build}" && pwd)
for b in tests/mpcr-restore-checked tests/engine/st_refuse tests/fuzz_image bin/mpcr \
    tests/state_seed tests/fuzz_state; do
    [ -x "$build/$b" ] || { echo "fuzz.sh: no $build/$b (make it in $build first)" >&2; exit 2; }
done
mkdir -p "$out"
flags=(-g -O1 -std=gnu17 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src/coord" -I"$src/engine" -I"$src/common")
common=("$src/coord/binding.c" "$src/coord/private.c" "$src"/common/*.c)
wanted() { case " ${FUZZ_TARGETS:-fuzz_manifest fuzz_lines fuzz_image fuzz_state} " in *" $1 "*) return 0 ;; esac; return 1; }
if wanted fuzz_manifest; then
    clang "${flags[@]}" "$here/fuzz/fuzz_manifest.c" "${common[@]}" -o "$out/fuzz_manifest"
fi
if wanted fuzz_lines; then
    clang "${flags[@]}" "$here/fuzz/fuzz_lines.c" "$here/fuzz/coord_single.c" "${common[@]}" \
        "$src/coord/gens.c" "$src/coord/fault.c" "$src/coord/triggers.c" "$src/coord/abandoned.c" \
        "$src/coord/place.c" -o "$out/fuzz_lines"
fi
status=0
for t in fuzz_manifest fuzz_lines; do
    wanted $t || continue
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
for t in fuzz_image fuzz_state; do
    wanted $t || continue
    seed=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
    mkdir -p "$out/$t.fail"
    echo "== $t: $seconds s"
    case $t in
    fuzz_image) args=(image "$build/tests/mpcr-restore-checked" "$build/tests/engine/st_refuse") ;;
    fuzz_state) args=(state "$build/bin/mpcr" "$build/tests/state_seed") ;;
    esac
    if ! MUTATE_SECONDS=$seconds MUTATE_SEED=0x$seed "$here/mutate/run.sh" "${args[@]}" \
        "$build/tests/$t" >"$out/$t.log" 2>&1; then
        status=1
    fi
    grep -E "(pinned cases|damaged inputs)" "$out/$t.log" || tail -3 "$out/$t.log"
    grep -E "^FAIL" "$out/$t.log" || true
    # FAIL run N (DAMAGE): VERDICT; ...; input kept as PATH
    sed -n 's/^FAIL .*; input kept as //p' "$out/$t.log" | while read -r f; do
        [ -e "$f" ] || continue
        keep="$out/$t.fail/$seed-$(basename "$f")"
        cp "$f" "$keep"
        echo "FOUND: $keep (the damage: the FAIL line above; see $out/$t.log)"
    done
done
exit $status
