#!/usr/bin/env bash
# The command line's conventions: `mpcr help COMMAND` and `mpcr COMMAND
# --help` say the same, on stdout, with status 0, for every command `mpcr
# --help` lists; each option they name is in the manual page, which
# renders without a warning; an unknown command is a usage error (2).
#   help.sh MPCR MANPAGE
set -u
mpcr=$1 man=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-help-XXXXXX")
trap 'rm -rf "$out"' EXIT

"$mpcr" --help >"$out/list" || fail "mpcr --help ended with status $?"
commands=$(sed -n '/^commands:/,/^$/p' "$out/list" | awk 'NR > 1 && NF { print $1 }')
[ "$(wc -w <<<"$commands")" -ge 7 ] || fail "mpcr --help lists too few commands: $commands"
"$mpcr" help >"$out/list2" && cmp -s "$out/list" "$out/list2" || fail "mpcr help differs from mpcr --help"
# the manual page, as text, with every roff warning shown
groff -man -Tascii -P-cbou -rLL=150n -ww "$man" >"$out/man.txt" 2>"$out/man.err" || fail "groff failed on $man"
[ -s "$out/man.err" ] && fail "groff warns about $man: $(head -3 "$out/man.err")"
for c in $commands; do
    "$mpcr" help "$c" >"$out/$c.help" 2>"$out/$c.err" || fail "mpcr help $c ended with status $?"
    [ -s "$out/$c.err" ] && fail "mpcr help $c wrote to stderr"
    head -1 "$out/$c.help" | grep -q "usage:.*mpcr $c" || fail "mpcr help $c does not begin with its usage"
    "$mpcr" "$c" --help >"$out/$c.help2" || fail "mpcr $c --help ended with status $?"
    cmp -s "$out/$c.help" "$out/$c.help2" || fail "mpcr $c --help differs from mpcr help $c"
    "$mpcr" "$c" -h | cmp -s - "$out/$c.help" || fail "mpcr $c -h differs from mpcr help $c"
    grep -q "mpcr $c" "$out/man.txt" || fail "the manual page has no section on mpcr $c"
    for o in $(grep -oE -- '--[a-z][a-z-]+' "$out/$c.help" | sort -u); do
        grep -qe "$o" "$out/man.txt" || fail "mpcr help $c names $o, the manual page does not"
    done
done
"$mpcr" help nosuch >/dev/null 2>&1
[ $? = 2 ] || fail "mpcr help nosuch: status not 2"
"$mpcr" nosuch >/dev/null 2>&1
[ $? = 2 ] || fail "mpcr nosuch: status not 2"
"$mpcr" >/dev/null 2>&1
[ $? = 2 ] || fail "mpcr without a command: status not 2"
# the exit statuses the manual page promises are the ones cli.h names
for s in 0 1 2 127 128+; do
    grep -qE "^ +$s" <(sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$out/man.txt") ||
        fail "the manual page's EXIT STATUS lacks $s"
done
echo "PASS: $(wc -w <<<"$commands") commands, help and manual page agree"
