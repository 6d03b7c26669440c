#!/usr/bin/env bash
# A job over two "hosts" — two network namespaces joined by a bridge, each
# rank reachable only by its own address — with a standalone coordinator
# on the bridge: checkpoint --exit at a random instant, then a restart with
# the ranks placed the other way round. The output must be the native
# run's. Setting up namespaces needs root (mpcr itself does not); without
# it the test is skipped (status 77).
#   hosts.sh PROGRAM ARGS...       (env MPCR; 2 ranks)
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
[ "$(id -u)" = 0 ] || { echo "hosts.sh: SKIP: network namespaces need root"; exit 77; }
T=$(mktemp -d)
tag=$$ net=10.77.$((RANDOM % 200 + 20))
br=mpcrbr$tag ns1=mpcrns$tag-1 ns2=mpcrns$tag-2
h1=$net.11 h2=$net.12 coord_ip=$net.1 port=$((40000 + RANDOM % 20000))
cleanup() {
    pkill -f "coordinator --listen $coord_ip:$port" 2>/dev/null
    ip netns del "$ns1" 2>/dev/null
    ip netns del "$ns2" 2>/dev/null
    ip link del "$br" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
fail() {
    echo "hosts.sh: FAIL: $*"
    for f in "$T"/*.err "$T/launches"; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done
    exit 1
}
{
    ip link add "$br" type bridge && ip addr add "$coord_ip/24" dev "$br" && ip link set "$br" up &&
        for i in 1 2; do
            ns=mpcrns$tag-$i
            ip netns add "$ns" && ip link add "mpcrv$tag-$i" type veth peer name eth0 netns "$ns" &&
                ip link set "mpcrv$tag-$i" master "$br" up &&
                ip -n "$ns" addr add "$net.1$i/24" dev eth0 && ip -n "$ns" link set eth0 up &&
                ip -n "$ns" link set lo up || exit 1
        done
} 2>"$T/netns.err" || { echo "hosts.sh: SKIP: cannot create network namespaces: $(head -1 "$T/netns.err")"; exit 77; }

# mpiexec's launcher "ssh": run the command in the namespace of the host named
# (and note which hydra proxy went where, to check the placement).
cat >"$T/nsexec" <<EOS
#!/bin/bash
while [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case \$host in $h1) ns=$ns1 ;; $h2) ns=$ns2 ;; *) echo "nsexec: unknown host \$host" >&2; exit 1 ;; esac
echo "\$host \$(echo "\$*" | grep -o 'proxy-id [0-9]*')" >>"$T/launches"
exec ip netns exec "\$ns" sh -c "\$*"
EOS
cat >"$T/mpiexec" <<EOS
#!/bin/bash
exec mpiexec.mpich -launcher ssh -launcher-exec "$T/nsexec" -iface "$br" -hosts "\$HOSTS" "\$@"
EOS
chmod +x "$T/nsexec" "$T/mpiexec"
export MPCR_MPIEXEC=$T/mpiexec

HOSTS=$h1,$h2 timeout 120 "$T/mpiexec" -n 2 "$@" >"$T/ref" 2>"$T/native.err" || fail "the native run over two namespaces failed"
grep -q "^$h1 proxy-id 0" "$T/launches" || fail "the native run's rank 0 did not go to $h1"

n=2 ck=$T/ck addr=$coord_ip:$port
. "$(dirname "$0")/standalone.sh"
start_coordinator
: >"$T/launches"
HOSTS=$h1,$h2 timeout 120 "$MPCR" run -n 2 --coordinator "$coord_ip:$port" --ckpt-dir "$T/ck" "$@" \
    >"$T/first" 2>"$T/run.err" &
checkpoint_exit $! 1
grep -q "^$h1 proxy-id 0" "$T/launches" || fail "the first run's rank 0 was not on $h1"

start_coordinator
: >"$T/launches"
HOSTS=$h2,$h1 timeout 120 "$MPCR" restart --coordinator "$coord_ip:$port" "$T/ck" >"$T/second" 2>"$T/restart.err" ||
    fail "the restart failed"
wait "$coord"
grep -q "^$h2 proxy-id 0" "$T/launches" || fail "the restarted rank 0 was not moved to $h2"
cat "$T/first" "$T/second" | sort | cmp -s - <(sort "$T/ref") ||
    fail "checkpointed after$delays s and restarted with the ranks swapped, the output differs"
echo "hosts.sh: PASS (checkpoint after$delays s; rank 0 on $h1, restarted on $h2; output equal)"
