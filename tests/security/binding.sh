#!/usr/bin/env bash
# A restart trusts nothing in a checkpoint directory that is not the
# user's alone and bound to its slot (issue 13, points 1 and 2). Job A and
# job B (one process each) are checkpointed; B twice (gen-1, then gen-2
# with --exit). Copies of B's directory are then tampered with, one way
# each, and `mpcr restart` must refuse every copy with status 1 and a
# message naming the file and the problem, before anything runs:
#  - manifest edits: another format version, generation, byte count or
#    number of ranks, a line added, another checksum or size on the
#    image's own line;
#  - A's image in B's slot; B's gen-1 image in gen-2;
#  - a directory, generation directory, image or manifest writable by
#    others; as root also owned by another user (nobody), and a directory
#    of mode 1777 where another user planted gen-99;
#  - a FIFO in the image's place (refused, not waited on);
#  - a damaged region (found by the restorer, whose message names the image).
# The intact copy then restarts and prints B's result.
#   binding.sh SEC_WAIT      (env MPCR)
set -u
name=binding
. "$(dirname "$0")/common.sh"
prog=$1

# checkpointed TAG DIR: runs `sec_wait TAG 4` under mpcr; gen-1 while it
# runs, gen-2 with --exit.
checkpointed() {
    timeout 60 "$MPCR" run --no-mpi --ckpt-dir "$2" "$prog" "$1" 4 >"$T/$1.out" 2>"$T/$1-run.err" &
    local run=$!
    pids="$pids $run"
    wait_for -S "$2/coord.sock" || fail "job $1 did not start"
    sleep 0.3
    "$MPCR" checkpoint "$2" 2>"$T/$1-ck1.err" || fail "job $1: the first checkpoint failed"
    "$MPCR" checkpoint --exit "$2" 2>"$T/$1-ck2.err" || fail "job $1: the second checkpoint failed"
    wait "$run"
    [ -s "$2/gen-2/manifest" ] || fail "job $1 has no gen-2"
}
checkpointed A "$T/a"
checkpointed B "$T/b"

n=0
# refused WHAT PATTERN: restarts $T/c, which must be refused naming PATTERN
refused() {
    timeout -k 5 30 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: mpcr restart ended with status $rc, not 1 (output: $(head -c 200 "$T/r.out"); $(head -3 "$T/r.err"))"
    grep -q -- "$2" "$T/r.err" || fail "$1: the message does not say '$2': $(cat "$T/r.err")"
    [ -s "$T/r.out" ] && fail "$1: something ran: $(cat "$T/r.out")"
    echo "refused $1: $(grep -m1 restart "$T/r.err")"
    n=$((n + 1))
}
fresh() { rm -rf "$T/c" && cp -a "$T/b" "$T/c" && rm -f "$T/c/coord.sock"; }
edit_manifest() { fresh && sed -i "$1" "$T/c/gen-2/manifest"; }

edit_manifest 's/^mpcr-manifest .*/mpcr-manifest 99/' && refused "manifest version 99" "manifest version 99"
edit_manifest 's/^generation .*/generation 7/' && refused "manifest generation 7" "generation 7"
edit_manifest 's/^bytes .*/bytes 5/' && refused "manifest bytes 5" "5 bytes"
edit_manifest 's/^ranks .*/ranks 2/' && refused "manifest ranks 2" "lists 1 file, but 2 ranks need 2"
edit_manifest '$a extra line' && refused "a line added to the manifest" "line 7 is not"
fresh && cp "$T/a/gen-2/rank-0.img" "$T/c/gen-2/rank-0.img" && refused "job A's image in job B's slot" "rank-0.img belongs to .*another job"
fresh && cp "$T/c/gen-1/rank-0.img" "$T/c/gen-2/rank-0.img" && refused "gen-1's image in gen-2" "rank-0.img belongs to .*another generation"
# The manifest's own line for the image: another checksum; another size
# with the total edited to match (else the total is what is refused).
crc=$(awk '$1 == "file" { print $4 }' "$T/b/gen-2/manifest")
size=$(awk '$1 == "file" { print $3 }' "$T/b/gen-2/manifest")
other=00000000 && [ "$crc" = $other ] && other=00000001
edit_manifest "s/^file rank-0.img $size $crc\$/file rank-0.img $size $other/" &&
    refused "the image's checksum in the manifest" "$T/c/gen-2/rank-0.img is not the file the manifest lists ($size bytes, checksum $crc; the manifest says $size bytes, $other)"
edit_manifest "s/^file rank-0.img $size /file rank-0.img $((size + 8)) /; s/^bytes .*/bytes $((size + 8))/" &&
    refused "the image's size in the manifest" "$T/c/gen-2/rank-0.img is not the file the manifest lists ($size bytes, checksum $crc; the manifest says $((size + 8)) bytes, $crc)"
fresh && rm "$T/c/gen-2/rank-0.img" && mkfifo "$T/c/gen-2/rank-0.img" && refused "a FIFO as the image" "rank-0.img is a FIFO, not a regular file"
# Each refusal must name the very file tampered with, not just any.
for f in . gen-2 gen-2/rank-0.img gen-2/manifest; do
    p=$T/c && [ "$f" = . ] || p=$T/c/$f
    fresh && chmod g+w "$p" && refused "$f writable by its group" "$p is writable by other users (mode 0[67]20)"
done
if is_root; then
    for f in gen-2 gen-2/rank-0.img gen-2/manifest; do
        fresh && chown nobody "$T/c/$f" &&
            refused "$f owned by nobody" "$T/c/$f is owned by uid $(id -u nobody), not by the user restoring it (uid 0)"
    done
    # The reproduction: another user plants gen-99 (A's gen-2) in a
    # directory of mode 1777.
    cp -r "$T/a/gen-2" "$T/plant" && chmod -R a+rX "$T/plant"
    fresh && chmod 1777 "$T/c" && as_other cp -r "$T/plant" "$T/c/gen-99" &&
        refused "a mode 1777 directory with nobody's gen-99" "writable by other users"
    fresh && chmod 1777 "$T/c" && as_other cp -r "$T/plant" "$T/c/gen-99" && chmod 0755 "$T/c" &&
        refused "nobody's gen-99" "gen-99 is owned by uid"
    others="owners checked"
else
    others="not root: other owners not tried"
fi
# A damaged region passes the manifest (its checksum is in the region
# table); the restorer finds it, and its message names the image.
fresh && printf '\x5a\xa5' | dd of="$T/c/gen-2/rank-0.img" bs=1 seek=$((4096 + 4000)) conv=notrunc status=none
timeout -k 5 60 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err" && fail "an image with a damaged region was restored"
grep -q "mpcr-restore: .*/gen-2/rank-0.img: .*corrupt" "$T/r.err" || fail "damaged region: $(cat "$T/r.err")"
echo "refused a damaged region: $(grep -m1 corrupt "$T/r.err")"
fresh && timeout 60 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err" || fail "the intact copy did not restart: $(cat "$T/r.err")"
grep -q "^B done after 400 steps" "$T/r.out" || fail "the intact restart printed: $(cat "$T/r.out")"
echo "$name: PASS ($n tampered copies refused; $others; the intact copy restarted: $(cat "$T/r.out"))"
