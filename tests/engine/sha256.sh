#!/usr/bin/env bash
# engine.sha256: sha256.h's test vectors, then the digests of real files (the
# restorer, a library, an empty file) against coreutils' sha256sum.
#   sha256.sh SHA_CHECK FILE...
set -u
check=$1
shift
"$check" || exit 1
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
: >"$t/empty"
"$check" "$@" "$t/empty" >"$t/ours" || exit 1
sha256sum "$@" "$t/empty" >"$t/theirs"
if ! cmp -s "$t/ours" "$t/theirs"; then
    echo "FAIL: digests differ from sha256sum's"
    diff "$t/ours" "$t/theirs"
    exit 1
fi
echo "PASS: $(wc -l <"$t/ours") files as sha256sum hashes them"
