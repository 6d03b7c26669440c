#!/usr/bin/env bash
# Refusals and the API: st_refuse is refused four times, then writes an
# image with mpcr_engine_checkpoint(); mpcr-restore must resume it (PASS).
# Then the image checks: truncated, bit-flipped, foreign-kernel and
# foreign-CPU copies are refused by mpcr-restore with a message and exit 1
# (before anything is unmapped), and the intact image passes --check.
#   api.sh RESTORER PROGRAM IMG_PATCH
set -u
restore=$1 prog=$2 patch=$3
. "$(dirname "$0")/lib.sh"
test_init api
"$prog" "$T/img" >"$T/out1" 2>&1 || { cat "$T/out1"; fail "the program failed before its checkpoint"; }
grep -q '^written$' "$T/out1" || fail "no image written"
cp "$T/img" "$T/img.orig"
timeout 60 "$restore" "$T/img" >"$T/out2" 2>&1 || { cat "$T/out2"; fail "restart failed"; }
grep -qx PASS "$T/out2" || { cat "$T/out2"; fail "no PASS after restart"; }
grep refused "$T/out1"

expect_refused() { # name, image, words expected in the message
    local out rc
    out=$("$restore" "$2" 2>&1)
    rc=$?
    [ $rc -eq 1 ] || fail "$1: mpcr-restore exit status $rc, expected 1 ($out)"
    grep -qi "$3" <<<"$out" || fail "$1: message does not say '$3': $out"
    echo "refused $1: $out"
}
"$restore" --check "$T/img.orig" >/dev/null 2>&1 || fail "--check refuses the intact image"
size=$(stat -c %s "$T/img.orig")
head -c $((size - 1000)) "$T/img.orig" >"$T/trunc"
expect_refused "a truncated image" "$T/trunc" "truncated"
head -c 4096 "$T/img.orig" >"$T/trunc2"
expect_refused "a header-only image" "$T/trunc2" "truncated"
cp "$T/img.orig" "$T/flip"
printf '\x55' | dd of="$T/flip" bs=1 seek=$((4096 + 5000)) conv=notrunc status=none
expect_refused "a bit-flipped image" "$T/flip" "corrupt"
cp "$T/img.orig" "$T/flip2"
printf '\x01' | dd of="$T/flip2" bs=1 seek=300 conv=notrunc status=none
expect_refused "a bit-flipped header" "$T/flip2" "corrupt"
"$patch" "$T/img.orig" "$T/kernel" kernel 4.19.0-foreign || fail "img_patch"
expect_refused "a foreign-kernel image" "$T/kernel" "kernel"
"$patch" "$T/img.orig" "$T/cpu" xcr0 0x8000000000000000 || fail "img_patch"
expect_refused "a foreign-CPU image" "$T/cpu" "CPU"
"$patch" "$T/img.orig" "$T/ver" version 99 || fail "img_patch"
expect_refused "a future format version" "$T/ver" "version"
echo "api: PASS"
