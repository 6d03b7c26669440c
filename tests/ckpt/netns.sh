# Sourced by hosts.sh and ../batch/exec_hosts.sh: two "hosts" on this
# machine, network namespaces joined by a bridge, each reachable only by its
# own address, and launchers that start processes on them. Needs root.
# The caller sets T (scratch, removed by the caller) and defines fail().
#
# netns_up: creates them (returns non-zero if it cannot, the reason in
# T/netns.err); sets net, br, h1 and h2 (the hosts' addresses) and coord_ip
# (the bridge's, this machine's own), and writes
#   T/nsexec   an "ssh" for launchers: `nsexec [-OPTIONS] HOST COMMAND...`
#              runs COMMAND in HOST's namespace, and appends "HOST proxy-id
#              K" (hydra's) or "HOST orted" (Open MPI's) to T/launches
#   T/mpiexec  mpiexec.mpich over the hosts listed in $HOSTS (A,B)
#   T/mpirun   mpirun.openmpi over the hosts listed in $HOSTS, one slot each
# netns_down: removes the namespaces and the bridge.

ns1= ns2= br= coord_ip=

netns_up() {
    tag=$$ net=10.77.$((RANDOM % 200 + 20))
    br=mpcrbr$tag ns1=mpcrns$tag-1 ns2=mpcrns$tag-2
    h1=$net.11 h2=$net.12 coord_ip=$net.1
    {
        ip link add "$br" type bridge && ip addr add "$coord_ip/24" dev "$br" &&
            ip link set "$br" up &&
            for i in 1 2; do
                ns=mpcrns$tag-$i
                ip netns add "$ns" && ip link add "mpcrv$tag-$i" type veth peer name eth0 netns "$ns" &&
                    ip link set "mpcrv$tag-$i" master "$br" up &&
                    ip -n "$ns" addr add "$net.1$i/24" dev eth0 && ip -n "$ns" link set eth0 up &&
                    ip -n "$ns" link set lo up || return 1
            done
    } 2>"$T/netns.err" || return 1
    cat >"$T/nsexec" <<EOS
#!/bin/bash
while [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case \$host in $h1) ns=$ns1 ;; $h2) ns=$ns2 ;; *) echo "nsexec: unknown host \$host" >&2; exit 1 ;; esac
echo "\$host \$(echo "\$*" | grep -o 'proxy-id [0-9]*\|orted' | head -1)" >>"$T/launches"
# Open MPI names its session directory (TMPDIR/ompi.HOSTNAME.UID) by the host name, which
# both namespaces share: two daemons of one job in one directory race (one dies, the job
# hangs; 2 of 15 runs). Each "host" gets its own, as real hosts have.
mkdir -p "$T/tmp-\$host"
export OMPI_MCA_orte_tmpdir_base="$T/tmp-\$host"
exec ip netns exec "\$ns" sh -c "\$*"
EOS
    cat >"$T/mpiexec" <<EOS
#!/bin/bash
exec mpiexec.mpich -launcher ssh -launcher-exec "$T/nsexec" -iface "$br" -hosts "\$HOSTS" "\$@"
EOS
    # Open MPI's daemons reach mpirun, and its ranks each other, on the bridge only
    cat >"$T/mpirun" <<EOS
#!/bin/bash
exec mpirun.openmpi --allow-run-as-root -H "\$HOSTS" --mca plm_rsh_agent "$T/nsexec" \\
    --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include $net.0/24 \\
    --mca btl_tcp_if_include $net.0/24 --mca btl tcp,self "\$@"
EOS
    chmod +x "$T/nsexec" "$T/mpiexec" "$T/mpirun"
}

netns_down() {
    [ -n "$br" ] || return 0
    ip netns del "$ns1" 2>/dev/null
    ip netns del "$ns2" 2>/dev/null
    ip link del "$br" 2>/dev/null
}
