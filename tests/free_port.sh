# free_port: prints a TCP port for a test's coordinator to listen on: above
# the kernel's ephemeral range (net.ipv4.ip_local_port_range, where every
# outgoing connection of any process, MPI's included, takes its local port:
# a random port below 60999 was once taken that way, "Address already in
# use"), and not bound by any socket now (/proc/net/tcp*). Builtins only.
# Sourced by the tests that start `mpcr coordinator --listen`.
free_port() {
    local lo=32768 hi=60999 line port used=" " f first last
    [ -r /proc/sys/net/ipv4/ip_local_port_range ] && read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
    for f in /proc/net/tcp /proc/net/tcp6; do
        [ -r "$f" ] || continue
        while read -r _ line _; do
            [[ $line == *:* ]] && used+="$((16#${line##*:})) "
        done <"$f"
    done
    if [ "$hi" -lt 64000 ]; then first=$((hi + 1)) last=65535; else first=20000 last=$((lo - 1)); fi
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        port=$((first + RANDOM % (last - first + 1)))
        [[ $used == *" $port "* ]] || break
    done
    echo "$port"
}
