#!/usr/bin/env bash
# Hostile images: offsets and lengths whose sum wraps around 2^64, and a
# vDSO placed over the image's own memory, with every checksum right (a
# checksum guards against damage, not against a crafted file). mpcr-restore
# must refuse each in its checking phase: status 1 (127 would mean it had
# already begun to change itself: half restored), one line that names the
# cause; `--check` must refuse them too. The intact image still restores.
#   image_overflow.sh RESTORER PROGRAM IMG_PATCH   (PROGRAM: st_refuse)
set -u
restore=$1 prog=$2 patch=$3
. "$(dirname "$0")/lib.sh"
test_init image_overflow
"$prog" "$T/img" >"$T/out1" 2>&1 || { cat "$T/out1"; fail "the program failed before its checkpoint"; }
grep -q '^written$' "$T/out1" || fail "no image written"
cp "$T/img" "$T/img.orig"

# refused NAME IMAGE WORDS: both --check and a restore exit 1 saying WORDS.
refused() {
    local out rc mode
    for mode in --check restore; do
        if [ $mode = restore ]; then out=$(timeout 60 "$restore" "$2" 2>&1); else out=$(timeout 60 "$restore" --check "$2" 2>&1); fi
        rc=$?
        [ $rc -eq 1 ] || fail "$1 ($mode): mpcr-restore exit status $rc, expected 1: $out"
        grep -qi "$3" <<<"$out" || fail "$1 ($mode): the message does not say '$3': $out"
    done
    echo "refused $1: $out"
}

"$patch" "$T/img.orig" "$T/vdso" vdso 0xfffffffffffff000 || fail "img_patch vdso"
refused "a [vdso] address whose end wraps around" "$T/vdso" "wraps around"

# [vdso] moved onto the image's first region: mremap would replace that memory.
# The regions table's offset is at 872 (header: table[1].off); a region starts with its start address.
regions=$(od -An -tu8 -j 872 -N8 "$T/img.orig" | tr -d ' ')
first=$(od -An -tx8 -j "$regions" -N8 "$T/img.orig" | tr -d ' ')
"$patch" "$T/img.orig" "$T/vdso2" vdso "0x$first" || fail "img_patch vdso"
refused "a [vdso] over the image's memory" "$T/vdso2" "overlaps"

"$patch" "$T/img.orig" "$T/data" region-data 4096 0xfffffffffffff010 || fail "img_patch region-data"
refused "region data whose end wraps around" "$T/data" "wraps around"

"$patch" "$T/img.orig" "$T/data2" region-data 0xfffffffffffffff0 0x20 || fail "img_patch region-data"
refused "a region data offset near 2^64" "$T/data2" "wraps around"

"$patch" "$T/img.orig" "$T/strings" strings 8192 0xffffffffffffffff || fail "img_patch strings"
refused "a string table whose end wraps around" "$T/strings" "wraps around"

timeout 60 "$restore" "$T/img.orig" >"$T/out2" 2>&1 || { cat "$T/out2"; fail "the intact image did not restart"; }
grep -qx PASS "$T/out2" || fail "no PASS after restarting the intact image"
echo "image_overflow: PASS"
