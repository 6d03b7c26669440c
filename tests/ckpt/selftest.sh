#!/usr/bin/env bash
# ckpt.sh itself can fail: a checkpoint test whose checkpoints were never
# taken, or whose proxies never went the way the test exists for, must not
# pass. Runs ckpt.sh through a stand-in for mpcr that passes `run` and
# `restart` on to the real one and
#   refused:  answers every `checkpoint` with the coordinator's refusal
#             ("... try again in a moment", as while ranks start), and
#             drops CKPT_HOLD and CKPT_MIDWAY (ckpt.h), so that the job ends before any is
#             taken;
#   uncounted: drops MPCR_PROXY_STATS, so that no proxy counts anything,
#             with CKPT_REQUIRE naming a count;
# and requires ckpt.sh to exit 1 with the reason. Prints ckpt.sh's output.
#   selftest.sh PROGRAM ARGS...   (MPCR: the real mpcr)
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
here=$(dirname "$(readlink -f "$0")")
T=$(mktemp -d /tmp/mpcr-ckpt-selftest.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0

# expect_failure CASE REGEX ENV... -- ARGS...: ckpt.sh ARGS with ENV must exit 1 printing REGEX.
expect_failure() {
    local what=$1 re=$2 rc
    shift 2
    env "$@" >"$T/$what.log" 2>&1
    rc=$?
    sed "s/^/  [$what] /" "$T/$what.log"
    if [ $rc != 1 ] || ! grep -qE "$re" "$T/$what.log"; then
        echo "selftest: $what: ckpt.sh exited $rc without the expected failure /$re/"
        failed=1
    else
        echo "selftest: $what: ckpt.sh failed as it must"
    fi
}

for what in refused uncounted; do
    cat >"$T/mpcr-$what" <<EOF
#!/usr/bin/env bash
case "$what:\$1" in
refused:checkpoint) echo "mpcr: checkpoint refused: only 0 of 2 ranks have started; try again in a moment" >&2 && exit 1 ;;
refused:*) unset CKPT_HOLD CKPT_MIDWAY ;;
uncounted:*) unset MPCR_PROXY_STATS ;;
esac
exec "$MPCR" "\$@"
EOF
    chmod +x "$T/mpcr-$what"
done

expect_failure refused "FAIL .*checkpoint --exit 1 of 2 was not taken: the job ended first" \
    MPCR="$T/mpcr-refused" "$here/ckpt.sh" exit-restart 2 2 "$@"
expect_failure uncounted "FAIL .*no proxy reposted a receive" \
    MPCR="$T/mpcr-uncounted" CKPT_REQUIRE=reposted "$here/ckpt.sh" exit-restart 1 2 "$@"
[ $failed = 0 ] && echo "selftest: PASS"
exit $failed
