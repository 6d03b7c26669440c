#!/usr/bin/env bash
# Incremental images (docs/incremental.md). st_incr (pages changing a few at
# a time, dropped with MADV_DONTNEED, read as the zero page, a region
# unmapped and mapped again, two regions swapped with mremap) is
# checkpointed at CHECKPOINTS random instants (default 12) with --keep 1
# --full-every 5, then with --exit. Must hold: increments were written and
# are smaller than the full images; every generation left has every
# generation it refers to (--keep never removed a needed one); a restart
# from the newest and from every older generation left (the later ones
# taken away) ends with the uninterrupted run's output; a restart whose
# chain lacks a piece, or has a damaged one, is refused naming that file.
# With --user USER, all of it runs unprivileged.
#   [CHECKPOINTS=N] incr.sh BIN_DIR PROGRAM ROUNDS MIB [--user USER]
set -u
bin=$1 prog=$2 rounds=$3 mib=$4
shift 4
. "$(dirname "$0")/lib.sh"
test_init incr
[ "${1:-}" = "--user" ] && run_as "$2"
want=${CHECKPOINTS:-12}
"$prog" "$rounds" "$mib" >"$T/ref" || fail "the uninterrupted run failed"
ck=$T/ck
as "$bin/mpcr" run --no-mpi --keep 1 --full-every 5 --ckpt-dir "$ck" "$prog" "$rounds" "$mib" >"$T/out_run" 2>"$T/err_run" &
run=$!
wait_running "$ck" $run || fail "the job never answered on its checkpoint directory"
taken=0
while [ $taken -lt "$want" ]; do
    sleep "$(printf 0.%02d $((RANDOM % 20 + 2)))"
    kill -0 $run 2>/dev/null || fail "the run ended after $taken checkpoints (give it more rounds)"
    as "$bin/mpcr" checkpoint "$ck" 2>"$T/err_ck" || fail "checkpoint $((taken + 1)) failed: $(cat "$T/err_ck")"
    cat "$T/err_ck" >>"$T/err_cks"
    taken=$((taken + 1))
done
as "$bin/mpcr" checkpoint --exit "$ck" 2>>"$T/err_cks" || fail "checkpoint --exit failed"
wait $run || fail "the run did not end cleanly after checkpoint --exit"
grep -q "an increment" "$T/err_cks" || fail "no checkpoint said it wrote an increment"

# What each generation left refers to, and the sizes (header: docs/image-format.md).
python3 - "$ck" >"$T/gens" <<'EOF' || fail "reading the images' headers failed"
import glob, os, struct, sys
for p in glob.glob(sys.argv[1] + '/gen-*/rank-0.img'):
    g = int(p.split('/gen-')[-1].split('/')[0])
    h = open(p, 'rb').read(4096)
    track, why, n = struct.unpack_from('<III', h, 1360)
    print(g, os.path.getsize(p), n, *struct.unpack_from('<%dQ' % n, h, 1376))
EOF
sort -n -o "$T/gens" "$T/gens"
echo "generations left (gen, bytes, chain length, chain):"; cat "$T/gens"
while read -r g size n chain; do
    for b in $chain; do
        [ -f "$ck/gen-$b/manifest" ] && [ -f "$ck/gen-$b/rank-0.img" ] ||
            fail "gen-$g refers to gen-$b, which --keep removed"
    done
done <"$T/gens"
full=$(awk '$3 == 0 {print $2; exit}' "$T/gens") incr=$(awk '$3 > 0 {print $2; exit}' "$T/gens")
[ -n "$incr" ] || fail "no increment among the generations left"
[ -z "$full" ] || [ "$incr" -lt "$full" ] || fail "an increment ($incr bytes) is not smaller than a full image ($full)"

# Restart from each generation left, newest first: a copy without the later ones.
newest=$(tail -n 1 "$T/gens" | cut -d' ' -f1)
while read -r g size n chain; do
    d=$T/from$g
    cp -a "$ck" "$d"
    for later in $(cut -d' ' -f1 "$T/gens"); do [ "$later" -gt "$g" ] && rm -rf "$d/gen-$later"; done
    as "$bin/mpcr" restart "$d" >"$T/out$g" 2>"$T/err$g" || fail "restart from gen-$g (chain: ${chain:-none}) failed"
    cmp -s "$T/ref" "$T/out$g" || fail "restart from gen-$g: $(cat "$T/out$g"), expected $(cat "$T/ref")"
    rm -rf "$d"
done <"$T/gens"

# A chain with a piece missing, then with a piece damaged: refused, naming it.
read -r g size n chain < <(awk '$3 > 0' "$T/gens" | tail -n 1)
base=${chain%% *}
d=$T/missing
cp -a "$ck" "$d"
rm -f "$d/gen-$base/rank-0.img"
for later in $(cut -d' ' -f1 "$T/gens"); do [ "$later" -gt "$g" ] && rm -rf "$d/gen-$later"; done
if as "$bin/mpcr" restart "$d" >"$T/out_missing" 2>"$T/err_missing"; then fail "a chain without gen-$base/rank-0.img was restarted"; fi
grep -q "gen-$base/rank-0.img" "$T/err_missing" || fail "the refusal does not name gen-$base/rank-0.img: $(cat "$T/err_missing")"
d=$T/damaged
cp -a "$ck" "$d"
for later in $(cut -d' ' -f1 "$T/gens"); do [ "$later" -gt "$g" ] && rm -rf "$d/gen-$later"; done
# a byte of its first region's data (the header, tables and manifest stay right)
printf '\xff' | dd of="$d/gen-$base/rank-0.img" bs=1 seek=$((4096 + 16 + 100)) conv=notrunc status=none
if as "$bin/mpcr" restart "$d" >"$T/out_damaged" 2>"$T/err_damaged"; then fail "a chain with a damaged gen-$base was restarted"; fi
grep -q "gen-$base/rank-0.img.*damaged" "$T/err_damaged" || fail "the refusal does not name the damaged gen-$base/rank-0.img: $(cat "$T/err_damaged")"
echo "incr: PASS ($want checkpoints at random instants and --exit; restarts from $(wc -l <"$T/gens") generations equal the uninterrupted run; missing and damaged gen-$base refused by name)"
