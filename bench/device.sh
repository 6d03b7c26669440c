#!/usr/bin/env bash
# The benchmarks on a machine without Debian's MPICH and no network to fetch
# it: the 16-core device machine that some sessions are lent, the only place
# here where every rank and every proxy has a core of its own.
#
#   bench/device.sh pack       here, after a build: Debian's MPICH (mpiexec,
#                              libmpich and all they load but glibc) and mpcr's
#                              build go into .dev/ (ignored by git), xz-packed
#                              (about 12 MiB: the device tool carries 64 MiB)
#   bench/device.sh run OUT    there (device tool: carry [".dev"]): installs
#                              MPICH's files where the machine has none of its
#                              own, unpacks build/, says what the machine is,
#                              checks a 2-rank job natively and under mpcr, then
#                              runs bench/run.sh (NO_BUILD=1, collectives at
#                              COLL_RANKS, default "2 4 8"), its table in
#                              OUT/bench.txt and every result in OUT/raw.txt
#                              (kept even when BENCH_S, default 420 s, runs out)
#   bench/device.sh diag OUT   there: what the machine's primitives cost (syscost,
#                              handoff), its CPU layout, and a proxied call and
#                              the 2-rank large collectives with the pair on
#                              neighbouring and on distant CPUs (taskset), and
#                              with shared buffers off: where a device figure
#                              differs from this machine's, which part of it
#                              (the CPU pairs suit the device's layout, one
#                              socket and no SMT; on a machine with SMT, CPU N
#                              and N+8 may be one core: read lscpu -e first)
set -u
cd "$(dirname "$0")/.."

pack() {
    local deps sys
    [ -x build/bin/mpcr ] || { echo "device.sh: build first (scripts/setup.sh)" >&2; exit 1; }
    mkdir -p .dev
    grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >>.git/info/exclude
    sys=$(mktemp -d)
    mkdir -p "$sys/usr/bin" "$sys/usr/lib/x86_64-linux-gnu/ucx"
    # what MPICH's programs and mpcr's proxy load, glibc's own libraries left to the machine
    deps=$(for o in /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy /usr/bin/mpichversion /usr/bin/NPmpich2 \
        build/libexec/mpcr/mpcr-proxy-mpich build/bench/fortran_calls /usr/lib/x86_64-linux-gnu/ucx/*.so.0; do
        [ -e "$o" ] && ldd "$o"
    done | awk '$3 ~ /^\// { print $3 }' | sort -u |
        grep -v -E '/(libc|libm|libresolv|libdl|libpthread|librt|ld-linux-x86-64)\.so')
    for f in $deps; do cp -L "$f" "$sys/usr/lib/x86_64-linux-gnu/$(basename "$f")"; done
    cp -L /usr/lib/x86_64-linux-gnu/ucx/*.so.0 "$sys/usr/lib/x86_64-linux-gnu/ucx/" # UCX's transports
    cp /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy /usr/bin/mpichversion "$sys/usr/bin/"
    [ -e /usr/bin/NPmpich2 ] && cp /usr/bin/NPmpich2 "$sys/usr/bin/"
    ln -s mpiexec.hydra "$sys/usr/bin/mpiexec.mpich"
    strip --strip-unneeded "$sys"/usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null
    tar -C "$sys" -cJf .dev/sys.tar.xz usr
    rm -rf "$sys"
    local progs
    progs=$(find build/bench -maxdepth 1 -type f -perm -u+x)
    tar -cJf .dev/build.tar.xz build/bin/mpcr build/lib/mpcr build/libexec/mpcr/mpcr-proxy-mpich \
        build/libexec/mpcr/mpcr-restore $progs
    du -sh .dev/*
}

install() {
    tar -C / --skip-old-files -xJf .dev/sys.tar.xz && ldconfig || { echo "device.sh: cannot install MPICH"; exit 1; }
    tar -xJf .dev/build.tar.xz || exit 1
}

# results LABEL COMMAND...: the command's RESULT lines, each prefixed with LABEL
results() {
    local label=$1
    shift
    timeout 60 "$@" 2>&1 | awk -v l="$label" '$1 == "RESULT" && $2 !~ /_best$/ { printf "%-28s %-28s %s\n", l, $2, $3 }'
}

diag() {
    local out=${1:?device.sh diag OUT} b=build/bench m=build/bin/mpcr
    mkdir -p "$out"
    install
    { lscpu | grep -E '^(Model name|Thread|Core|Socket|NUMA node|L[23])'; lscpu -e=CPU,CORE,SOCKET,NODE | head -20
      results syscost $b/syscost 0.3
      results handoff $b/handoff 0.1
      for cpus in "" 0,1 0,8 0,15; do
          t=${cpus:+taskset -c $cpus}
          results "line ${cpus:-free}" $t $b/lineping 0.3
          results "native ${cpus:-free}" $t mpiexec.mpich -n 1 $b/callcost 0.3
          results "unpaced ${cpus:-free}" $t env MPCR_POLL_PACE_NS=0 $m run -n 1 $b/callcost 0.3
      done
      for cpus in "" 0-3 0,1,8,9; do
          t=${cpus:+taskset -c $cpus}
          results "coll native ${cpus:-free}" $t mpiexec.mpich -n 2 $b/collectives 0.3
          results "coll mpcr ${cpus:-free}" $t $m run -n 2 $b/collectives 0.3
          results "coll copied ${cpus:-free}" $t env MPCR_SHARE_MIN=0 $m run -n 2 $b/collectives 0.3
      done
      results "coll8 native" mpiexec.mpich -n 8 $b/collectives 0.3
      results "coll8 mpcr" $m run -n 8 $b/collectives 0.3
      results "coll8 copied" env MPCR_SHARE_MIN=0 $m run -n 8 $b/collectives 0.3
    } 2>&1 | tee "$out/diag.txt"
}

run() {
    local out=${1:?device.sh run OUT}
    mkdir -p "$out"
    install
    {
        uname -sr
        grep PRETTY_NAME /etc/os-release
        echo "$(nproc) cores; $(ldd --version | head -1); pid_max $(cat /proc/sys/kernel/pid_max)"
        mpichversion | head -2
    } 2>&1 | tee "$out/machine.txt"
    if ! timeout 60 mpiexec.mpich -n 2 build/bench/pingpong 0.05 >"$out/probe_native.txt" 2>&1; then
        echo "device.sh: native 2-rank ping-pong failed; again with UCX_TLS=posix,sysv,self"
        tail -5 "$out/probe_native.txt"
        export UCX_TLS=posix,sysv,self
        timeout 60 mpiexec.mpich -n 2 build/bench/pingpong 0.05 >"$out/probe_native.txt" 2>&1 ||
            { tail -20 "$out/probe_native.txt"; exit 1; }
    fi
    if ! timeout 60 build/bin/mpcr run -n 2 build/bench/pingpong 0.05 >"$out/probe_mpcr.txt" 2>&1; then
        echo "device.sh: the 2-rank ping-pong under mpcr failed"
        tail -20 "$out/probe_mpcr.txt"
        exit 1
    fi
    grep RESULT "$out/probe_native.txt" "$out/probe_mpcr.txt" | grep -E 'latency_8B|bw_1MiB'
    NO_BUILD=1 COLL_RANKS=${COLL_RANKS:-2 4 8} RAW=$out/raw.txt timeout "${BENCH_S:-420}" bench/run.sh \
        >"$out/bench.txt" 2>"$out/bench.err"
    echo "bench/run.sh ended with status $?"
    cat "$out/bench.err" "$out/bench.txt"
}

case ${1:-} in
pack) pack ;;
run) shift; run "$@" ;;
diag) shift; diag "$@" ;;
*) echo "usage: bench/device.sh pack | run OUT | diag OUT" >&2; exit 2 ;;
esac
