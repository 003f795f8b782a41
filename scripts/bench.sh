#!/usr/bin/env bash
# scripts/bench.sh — `make bench`: smartmap side by side with Open MPI and MPICH.
#
# Builds the programs of bench/ three times (smartmap's build/bin/mpicc,
# mpicc.openmpi, mpicc.mpich) into bench/work/<mpi>/, then runs every
# benchmark interleaved (smartmap, openmpi, mpich, smartmap, ...), BENCH_REPS
# times, with a cache-line probe before each group of three runs, and hands
# the outputs to bench/report.py (tables, CSV, plots, SUMMARY.md).
# A benchmark that fails for one MPI is reported as n/a; the run goes on.
#
# Environment (see bench/README.md):
#   BENCH_REPS      repetitions (default 5; 2 with QUICK=1)
#   BENCH_FILTER    extended regex on benchmark names (default: all), e.g. 'latency|bw$'
#   BENCH_NP        ranks per job (default 2)
#   QUICK=1         fewer sizes, iterations and repetitions (about 1-3 min)
#   BENCH_MPIS      which MPIs, in run order (default "smartmap openmpi mpich")
#   BENCH_TIMEOUT   seconds before one run is killed (default 180; 60 with QUICK=1)
#   BENCH_SLOW_FACTOR  a run is "slow" when its probe reads more than this
#                   times the session's best probe (default 2)
#   BUILD_DIR       smartmap's build tree (default build)
#   BENCH_RESULTS   where tables, CSV, plots and SUMMARY.md go (default bench/results)
#   BENCH_NET=1     the inter-node part instead (`make bench-net`): emulated
#                   hosts (tests/netns/hosts.sh), point-to-point at 2 x 1 rank,
#                   collectives at H x 2, every MPI launched across the hosts;
#                   results in bench/results/internode by default.  Exit 77
#                   when namespaces cannot be made here (not root).
#   BENCH_NET_HOSTS H  emulated hosts of the inter-node part (2..8, default 2)
#                   With BENCH_NET=1 the default MPIs add two columns for the
#                   collectives: smartmap-flat (smartmap with SMAP_COLL_HIER=0:
#                   what the hierarchy buys) and openmpi-han (Open MPI with
#                   its hierarchical coll/han selected), and one for every
#                   benchmark where smartmap's UCX engine is built:
#                   smartmap-ucx (SMAP_NET_ENGINE=ucx, UCX_TLS=tcp on eth0;
#                   the smartmap column is its libfabric engine).
#   BENCH_NET_PROVIDER  libfabric provider of the inter-node part (default
#                   net, smartmap's own default; e.g. "tcp" for tcp;ofi_rxm)
#   BENCH_GIT_DESCRIBE  the commit the results name (default: git describe)
#   BENCH_BUILD     1 (default): build the programs of every MPI, then run;
#                   only: build them (and the probe) into bench/work, then stop;
#                   0: run the programs already in bench/work (built by
#                   BENCH_BUILD=only, maybe on another machine: see
#                   scripts/bench_offline.sh, which carries them and the
#                   peers' run-time files to a machine with no package access)
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1

NET=${BENCH_NET:-0}
[ "$NET" = 1 ] || NET=0
if [ "$NET" = 1 ] && [ -z "${SMAP_NETNS_ID:-}" ]; then
    # The whole harness runs in the emulated network's head namespace (the
    # bridge, where every launcher starts); the set goes away when it ends.
    # libfabric's provider: smartmap's default, net (its native RDM over
    # TCP; the tests keep tcp;ofi_rxm), named explicitly so that the run
    # records what it measured.  BENCH_NET_PROVIDER picks another.
    export SMAP_NETNS_PROVIDER=${BENCH_NET_PROVIDER:-net}
    nh=${BENCH_NET_HOSTS:-2}
    if ! [[ $nh =~ ^[2-8]$ ]]; then
        echo "bench: BENCH_NET_HOSTS must be 2..8 (got '$nh')" >&2
        exit 2
    fi
    exec "$top/tests/netns/hosts.sh" run "$nh" bash "$top/scripts/bench.sh" "$@"
fi
NHOSTS=2
[ "$NET" = 1 ] && NHOSTS=$(wc -w <<<"${SMAP_NETNS_HOSTS:-h1 h2}")

QUICK=${QUICK:-0}
[ "$QUICK" = 1 ] || QUICK=0
if [ "$QUICK" = 1 ]; then def_reps=2; def_timeout=60; else def_reps=5; def_timeout=180; fi
REPS=${BENCH_REPS:-$def_reps}
BUILD=${BENCH_BUILD:-1}
case $BUILD in 0|1|only) ;; *) echo "bench: BENCH_BUILD must be 1, 0 or only (got '$BUILD')" >&2; exit 2 ;; esac
# Inter-node: latency, bandwidth, message rate and the collectives.
NET_FILTER='^(latency|bw|bibw|msgrate|barrier|bcast|reduce|allreduce|allgather|alltoall|gather|scatter|reduce_scatter|scan)$'
# More than 2 hosts: the collectives (point-to-point stays 2 x 1, as at 2).
NET_COLL_FILTER='^(barrier|bcast|reduce|allreduce|allgather|alltoall|gather|scatter|reduce_scatter|scan)$'
[ "$NET" = 1 ] && [ "$NHOSTS" -gt 2 ] && NET_FILTER=$NET_COLL_FILTER
if [ "$NET" = 1 ]; then FILTER=${BENCH_FILTER:-$NET_FILTER}; else FILTER=${BENCH_FILTER:-.}; fi
NP=${BENCH_NP:-2}
if [ "$NET" = 1 ]; then
    def_mpis="smartmap smartmap-flat"
    # the UCX engine's column where its plugin was built
    ls "$top/${BUILD_DIR:-build}"/lib/smartmap/libsmartmap_net_ucx.so >/dev/null 2>&1 && def_mpis+=" smartmap-ucx"
    MPIS=${BENCH_MPIS:-$def_mpis openmpi openmpi-han mpich}
else
    MPIS=${BENCH_MPIS:-smartmap openmpi mpich}
fi
TIMEOUT=${BENCH_TIMEOUT:-$def_timeout}
SLOW_FACTOR=${BENCH_SLOW_FACTOR:-2}
BUILD_DIR=${BUILD_DIR:-build}
CFLAGS_BENCH=(-std=gnu11 -O2 -Wall -Wextra)

for v in REPS NP TIMEOUT; do
    if ! [[ ${!v} =~ ^[1-9][0-9]*$ ]]; then
        echo "bench: BENCH_$v must be a positive integer (got '${!v}')" >&2
        exit 2
    fi
done

work=bench/work
if [ "$NET" = 1 ] && [ "$NHOSTS" -gt 2 ]; then results=${BENCH_RESULTS:-bench/results/internode-${NHOSTS}hosts}
elif [ "$NET" = 1 ]; then results=${BENCH_RESULTS:-bench/results/internode}; else results=${BENCH_RESULTS:-bench/results}; fi
runs_dir=$work/runs
mkdir -p "$work" "$results"
# One harness per tree at a time: the runs would disturb each other, and
# they share bench/work.
exec 9>"$work/.lock"
if ! flock -n 9; then
    echo "bench: another scripts/bench.sh is running in this tree (lock: $work/.lock); try again later" >&2
    exit 1
fi
rm -rf "$runs_dir"
mkdir -p "$runs_dir"
meta=$work/meta.txt
runs_tsv=$work/runs.tsv
probes_tsv=$work/probes.tsv
: >"$meta"
printf 'idx\trep\tgroup\tvariant\tprog\tvary\tmpi\trc\twall_s\tout\terr\tnote\n' >"$runs_tsv"
printf 'group\tone_way_ns\tmin_ns\tmax_ns\n' >"$probes_tsv"

say() { printf 'bench: %s\n' "$*" >&2; }

# Ctrl-C (or TERM): before the runs, stop; during the runs, stop the current
# job and report what has run.
interrupted=0
in_runs=0
child=""
on_int() {
    interrupted=1
    if [ $in_runs = 0 ]; then
        say "interrupted"
        exit 130
    fi
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
}
trap on_int INT TERM
meta_put() { printf '%s=%s\n' "$1" "$2" >>"$meta"; }

# The benchmark variants, in run order: name, program, arguments.
variants=(
    "latency latency"
    "latency-vary latency --vary"
    "bw bw"
    "bw-vary bw --vary"
    "bibw bibw"
    "msgrate msgrate"
    "barrier barrier"
    "bcast bcast"
    "bcast-vary bcast --vary"
    "reduce reduce"
    "reduce-vary reduce --vary"
    "allreduce allreduce"
    "allreduce-vary allreduce --vary"
    "allgather allgather"
    "allgather-vary allgather --vary"
    "alltoall alltoall"
    "alltoall-vary alltoall --vary"
    "gather gather"
    "gather-vary gather --vary"
    "scatter scatter"
    "scatter-vary scatter --vary"
    "reduce_scatter reduce_scatter"
    "reduce_scatter-vary reduce_scatter --vary"
    "scan scan"
    "scan-vary scan --vary"
    "put-lat-alloc rma --op put --win allocate"
    "put-lat-create rma --op put --win create"
    "get-lat-alloc rma --op get --win allocate"
    "get-lat-create rma --op get --win create"
    "put-lat-fence-alloc rma --op put --sync fence --win allocate"
    "put-lat-fence-create rma --op put --sync fence --win create"
    "put-bw-alloc rma --op put --bw --win allocate"
    "put-bw-create rma --op put --bw --win create"
    "get-bw-alloc rma --op get --bw --win allocate"
    "get-bw-create rma --op get --bw --win create"
    "acc-lat-alloc rma --op acc --win allocate"
    "acc-lat-create rma --op acc --win create"
    "fop-lat-alloc rma --op fop --win allocate"
    "fop-lat-create rma --op fop --win create"
    "cas-lat-alloc rma --op cas --win allocate"
    "cas-lat-create rma --op cas --win create"
)
programs=(latency bw bibw msgrate barrier bcast reduce allreduce allgather alltoall gather scatter reduce_scatter
          scan rma)

selected=()
for v in "${variants[@]}"; do
    name=${v%% *}
    [[ $name =~ $FILTER ]] && selected+=("$v")
done
if [ ${#selected[@]} -eq 0 ]; then
    say "BENCH_FILTER='$FILTER' selects no benchmark; names are:"
    for v in "${variants[@]}"; do echo "  ${v%% *}" >&2; done
    exit 2
fi

# ---------------------------------------------------------------- packages
# The Makefile's bench target installs the build dependencies; the peers and
# gnuplot come from the 'bench' set (a no-op when they are installed).
if [ "$BUILD" != 0 ] && ! scripts/install-deps.sh bench >"$work/install-deps.log" 2>&1; then
    say "warning: scripts/install-deps.sh bench failed (see $work/install-deps.log); using what is installed"
fi

ncpu=$(nproc 2>/dev/null || echo 1)
host=$(hostname -s 2>/dev/null || hostname)
stamp=$(date +%Y-%m-%d-%H%M%S)
meta_put session "$stamp-$host"
meta_put date "$(date '+%Y-%m-%d %H:%M:%S %Z')"
meta_put host "$host"
meta_put cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
meta_put ncpu "$ncpu"
meta_put kernel "$(uname -sr)"
meta_put os "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
meta_put mem "$(awk '/^MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)"
# BENCH_BUILD=0 runs programs compiled where BENCH_BUILD=only ran: name that compiler.
if [ "$BUILD" = 0 ] && [ -s "$work/compiler.txt" ]; then
    meta_put compiler "$(cat "$work/compiler.txt") (programs built by BENCH_BUILD=only on $(cat "$work/built_on.txt" 2>/dev/null || echo '?'))"
else
    meta_put compiler "$(cc --version 2>/dev/null | head -n 1)"
fi
if [ "$BUILD" = only ]; then
    cc --version 2>/dev/null | head -n 1 >"$work/compiler.txt"
    echo "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $ncpu CPUs" >"$work/built_on.txt"
fi
meta_put cflags "${CFLAGS_BENCH[*]}"
meta_put reps "$REPS"
if [ "$NET" = 1 ]; then
    meta_put np "2 (2 hosts x 1) for point-to-point, $((2 * NHOSTS)) ($NHOSTS hosts x 2) for the collectives"
    meta_put hosts "$NHOSTS"
    meta_put part "inter-node: $NHOSTS emulated hosts (network namespaces on this machine, veth pairs on a bridge, 198.18.0.0/24), FI_PROVIDER=${SMAP_NETNS_PROVIDER:-tcp}, FI_TCP_IFACE=FI_NET_IFACE=eth0"
else
    meta_put np "$NP"
fi
meta_put quick "$QUICK"
meta_put filter "$FILTER"
meta_put timeout "$TIMEOUT"
meta_put slow_factor "$SLOW_FACTOR"
meta_put mpis "$MPIS"
# A tree copied without .git (scripts/bench_offline.sh) names its commit here.
git_id=${BENCH_GIT_DESCRIBE:-$(git describe --always --dirty 2>/dev/null || echo unknown)}
meta_put smartmap_git "$git_id"

# ---------------------------------------------------------------- launchers
# Open MPI refuses root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

declare -A CC LAUNCH BINDING STATUS
fits=1
[ "$NP" -gt "$ncpu" ] && fits=0

case $BUILD_DIR in /*) build_abs=$BUILD_DIR ;; *) build_abs=$top/$BUILD_DIR ;; esac
CC[smartmap]=$build_abs/bin/mpicc
LAUNCH[smartmap]="$build_abs/bin/mpiexec -n $NP"
BINDING[smartmap]="smartmap launcher default (binds ranks to cores when they fit)"

CC[openmpi]=mpicc.openmpi
if [ $fits = 1 ]; then
    LAUNCH[openmpi]="mpiexec.openmpi -n $NP --bind-to core"
    BINDING[openmpi]="--bind-to core"
else
    LAUNCH[openmpi]="mpiexec.openmpi -n $NP --oversubscribe --bind-to none"
    BINDING[openmpi]="--oversubscribe --bind-to none ($NP ranks > $ncpu cores)"
fi

CC[mpich]=mpicc.mpich
if [ $fits = 1 ]; then
    LAUNCH[mpich]="mpiexec.mpich -n $NP -bind-to core"
    BINDING[mpich]="-bind-to core (hydra)"
else
    LAUNCH[mpich]="mpiexec.mpich -n $NP -bind-to none"
    BINDING[mpich]="-bind-to none (hydra; $NP ranks > $ncpu cores)"
fi

# Inter-node: the launchers reach the emulated hosts through hostexec
# (ssh's place), ranks are not pinned (each host would pin its first rank to
# the machine's first CPU: both hosts share this machine's CPUs), and every
# MPI talks tcp on the hosts' eth0 (hostexec sets FI_PROVIDER, net unless
# BENCH_NET_PROVIDER says otherwise, and FI_TCP_IFACE=FI_NET_IFACE=eth0 on
# every host: smartmap's libfabric; MPICH is UCX, Open MPI its tcp BTL).
if [ "$NET" = 1 ]; then
    L=$SMAP_NETNS_LAUNCHER
    LAUNCH[smartmap]="$build_abs/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host {HOSTS}"
    BINDING[smartmap]="--bind-to none (both emulated hosts share the machine's CPUs)"
    # ob1 + tcp BTL on eth0 between hosts (vader within one); the daemons'
    # out-of-band channel on the emulated network (bridge and eth0 share the /24).
    LAUNCH[openmpi]="mpiexec.openmpi --host {HOSTS} -n {NP} --bind-to none --mca plm_rsh_agent $L --mca oob_tcp_if_include 198.18.0.0/24 --mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0"
    BINDING[openmpi]="--bind-to none"
    # Hydra's proxies call back to the launching host: the bridge's address.
    # Debian's MPICH is ch4:ucx, and UCX sees one machine under both hosts:
    # left alone it joins them by shared memory (0.6 usec "between hosts").
    # UCX gets tcp on eth0 only; MPICH's own shared memory still serves the
    # ranks of one host.
    LAUNCH[mpich]="mpiexec.mpich -launcher-exec $L -localhost $SMAP_NETNS_HEAD -hosts {HOSTS} -n {NP} -bind-to none -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0"
    BINDING[mpich]="-bind-to none (hydra)"
    # The same programs under other settings, collectives only: smartmap's
    # flat schedules (what the hierarchy buys) and Open MPI's coll/han
    # (hierarchical; in 4.1 below coll/tuned's priority unless raised).
    LAUNCH[smartmap-flat]="${LAUNCH[smartmap]} -x SMAP_COLL_HIER=0"
    BINDING[smartmap-flat]=${BINDING[smartmap]}
    LAUNCH[openmpi-han]="${LAUNCH[openmpi]} --mca coll_han_priority 100"
    BINDING[openmpi-han]=${BINDING[openmpi]}
    # The same programs over smartmap's other network engine (issue 38):
    # UCX's tcp transport on the hosts' eth0, as MPICH's column gets.
    LAUNCH[smartmap-ucx]="${LAUNCH[smartmap]} -x SMAP_NET_ENGINE=ucx -x UCX_TLS=tcp -x UCX_NET_DEVICES=eth0"
    BINDING[smartmap-ucx]=${BINDING[smartmap]}
fi
# base_mpi MPI: whose build a column uses; coll_only MPI: a column that
# exists for the collectives only.
base_mpi() { case $1 in smartmap-flat|smartmap-ucx) echo smartmap ;; openmpi-han) echo openmpi ;; *) echo "$1" ;; esac; }
coll_only() { case $1 in smartmap-flat|openmpi-han) return 0 ;; *) return 1 ;; esac; }
is_coll() { case $1 in latency|bw|bibw|msgrate|rma) return 1 ;; *) return 0 ;; esac; }

# launch_line MPI NP: the command line of a job of NP ranks (inter-node:
# 2 ranks are 1 on each of h1, h2; more are NP/NHOSTS on each host).
launch_line() {
    local line=${LAUNCH[$1]} np=$2 hosts="" i nh=$NHOSTS per
    [ "$np" = 2 ] && nh=2
    per=$((np / nh))
    for ((i = 1; i <= nh; i++)); do hosts+="${hosts:+,}h$i:$per"; done
    line=${line//\{NP\}/$np}
    line=${line//\{HOSTS\}/$hosts}
    echo "$line"
}
# job_np PROGRAM: point-to-point at 2 x 1, collectives at NHOSTS x 2.
job_np() {
    if [ "$NET" = 0 ]; then echo "$NP"; return; fi
    if is_coll "$1"; then echo $((2 * NHOSTS)); else echo 2; fi
}

mpi_list=()
for m in $MPIS; do
    case $m in
        smartmap|openmpi|mpich) mpi_list+=("$m") ;;
        smartmap-flat|openmpi-han|smartmap-ucx)
            if [ "$NET" = 1 ]; then mpi_list+=("$m")
            else say "BENCH_MPIS: $m is a column of the inter-node part only (BENCH_NET=1)"; exit 2; fi ;;
        *) say "unknown MPI '$m' in BENCH_MPIS (smartmap, openmpi, mpich; with BENCH_NET=1 also smartmap-flat, smartmap-ucx, openmpi-han)"; exit 2 ;;
    esac
done

# ---------------------------------------------------------------- build
declare -A PROG_OK
# BENCH_BUILD=0: the programs an earlier BENCH_BUILD=only left in bench/work.
reuse_mpi() {
    local m=$1 dir=$work/$1 log=$work/$1/build.log launcher=${LAUNCH[$1]%% *} ok=0 p
    echo "BENCH_BUILD=0: reusing the programs in $dir" >>"$log"
    if ! command -v "$launcher" >/dev/null 2>&1; then
        echo "launcher $launcher not found" >>"$log"
        STATUS[$m]="build failed (see $log)"
        return
    fi
    for p in "${programs[@]}" info; do
        if [ -x "$dir/$p" ]; then
            PROG_OK[$m/$p]=1
            [ "$p" != info ] && ok=$((ok + 1))
        else
            echo "missing: $dir/$p" >>"$log"
        fi
    done
    if [ $ok -eq 0 ]; then STATUS[$m]="no programs (see $log)"; else STATUS[$m]=ok; fi
}
build_mpi() {
    local m=$1 dir=$work/$1 log=$work/$1/build.log
    mkdir -p "$dir"
    : >"$log"
    if [ "$m" = smartmap ] && [ ! -d "$BUILD_DIR" ]; then
        say "smartmap: $BUILD_DIR/ does not exist, running 'make build' (log: $log)"
        if ! make build BUILD_DIR="$BUILD_DIR" >>"$log" 2>&1 9>&-; then
            STATUS[$m]="build failed (see $log)"
            return
        fi
    fi
    local cc=${CC[$m]} launcher=${LAUNCH[$m]%% *}
    if [ "$BUILD" = 0 ]; then
        reuse_mpi "$m"
        return
    fi
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "compiler wrapper $cc not found" >>"$log"
        STATUS[$m]="build failed (see $log)"
        return
    fi
    if [ "$BUILD" = 1 ] && ! command -v "$launcher" >/dev/null 2>&1; then
        echo "launcher $launcher not found" >>"$log"
        STATUS[$m]="build failed (see $log)"
        return
    fi
    local ok=0 p
    for p in "${programs[@]}" info; do
        local srcs=("bench/$p.c")
        [ "$p" != info ] && srcs+=(bench/common.c)
        echo "+ $cc ${CFLAGS_BENCH[*]} -o $dir/$p ${srcs[*]}" >>"$log"
        rm -f "$dir/$p"
        if "$cc" "${CFLAGS_BENCH[@]}" -Ibench -o "$dir/$p" "${srcs[@]}" >>"$log" 2>&1; then
            PROG_OK[$m/$p]=1
            [ "$p" != info ] && ok=$((ok + 1))
        else
            echo "FAILED: $p" >>"$log"
        fi
    done
    if [ $ok -eq 0 ]; then
        STATUS[$m]="build failed (see $log)"
    elif [ $ok -lt ${#programs[@]} ]; then
        STATUS[$m]=ok
        say "$m: some programs did not build (see $log)"
    else
        STATUS[$m]=ok
    fi
}

for m in "${mpi_list[@]}"; do
    b=$(base_mpi "$m")
    if [ "$b" != "$m" ]; then
        # A column over another's build: its programs, its status.
        [ -z "${STATUS[$b]:-}" ] && build_mpi "$b"
        STATUS[$m]=${STATUS[$b]}
        for p in "${programs[@]}" info; do
            [ -n "${PROG_OK[$b/$p]:-}" ] && PROG_OK[$m/$p]=1
        done
    elif [ -z "${STATUS[$m]:-}" ]; then
        build_mpi "$m"
    fi
    if [ "${STATUS[$m]}" != ok ]; then
        say "$m: ${STATUS[$m]}"
    fi
    meta_put "status_$m" "${STATUS[$m]}"
    meta_put "launch_$m" "$(launch_line "$m" "$(job_np latency)")"
    meta_put "binding_$m" "${BINDING[$m]}"
done

probe_ok=0
if [ "$BUILD" = 0 ] && [ -x "$work/probe" ]; then
    probe_ok=1
elif cc -std=gnu11 -O2 -o "$work/probe" bench/probe.c >"$work/probe.build.log" 2>&1; then
    probe_ok=1
else
    say "warning: the probe does not build (see $work/probe.build.log): no slow-state detection"
fi

if [ "$BUILD" = only ]; then
    bad=0
    for m in "${mpi_list[@]}"; do [ "${STATUS[$m]}" = ok ] || bad=1; done
    say "BENCH_BUILD=only: programs built in $work/; run them with BENCH_BUILD=0"
    exit $bad
fi

# ---------------------------------------------------------------- versions and bindings
# The programs each column runs from: its base MPI's build.
prog_path() { echo "$work/$(base_mpi "$1")/$2"; }
version_of() {
    local m=$1 f=$work/$1/info.txt lib=""
    mkdir -p "$work/$m"
    if [ "${STATUS[$m]}" = ok ] && [ -n "${PROG_OK[$m/info]:-}" ]; then
        # shellcheck disable=SC2046  # a command line
        timeout -k 5 30 $(launch_line "$m" "$(job_np latency)") "$(prog_path "$m" info)" >"$f" 2>&1 </dev/null
        lib=$(sed -n 's/^.*INFO library=//p' "$f" | head -n 1 | sed 's/^MPICH Version:[[:space:]]*/MPICH /')
        local ranks
        ranks=$(sed -n 's/^.*INFO rank=\([0-9]*\) np=[0-9]* cpus=\(.*\)$/rank \1: cpu \2/p' "$f" | sort -n -k2 | paste -sd ';' - | sed 's/;/; /g')
        [ -n "$ranks" ] && meta_put "bound_$m" "$ranks"
        local mv
        mv=$(sed -n 's/^.*INFO mpi_version=//p' "$f" | head -n 1)
        [ -n "$mv" ] && meta_put "mpi_version_$m" "$mv"
    fi
    if [ -z "$lib" ]; then
        case $m in
            smartmap|smartmap-flat|smartmap-ucx)
                lib="smartmap $(sed -n 's/^project(smartmap VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
                ;;
            openmpi|openmpi-han) lib=$(mpiexec.openmpi --version 2>/dev/null | head -n 1) ;;
            mpich) lib="MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')" ;;
        esac
    fi
    [ "$(base_mpi "$m")" = smartmap ] && lib="$lib (git $git_id)"
    meta_put "version_$m" "$lib"
}
for m in "${mpi_list[@]}"; do version_of "$m"; done

# ---------------------------------------------------------------- runs
for v in "${selected[@]}"; do
    read -r name prog _ <<<"$v"
    meta_put "np_$name" "$(job_np "$prog")"
done
in_runs=1

run_probe() {    # $1 = group number
    local g=$1 line ns="nan" mn="nan" mx="nan"
    if [ $probe_ok = 1 ]; then
        line=$(timeout -k 2 20 "$work/probe" 2>/dev/null | grep '^PROBE' | head -n 1)
        ns=$(sed -n 's/.*one_way_ns=\([^ ]*\).*/\1/p' <<<"$line")
        mn=$(sed -n 's/.*min_ns=\([^ ]*\).*/\1/p' <<<"$line")
        mx=$(sed -n 's/.*max_ns=\([^ ]*\).*/\1/p' <<<"$line")
    fi
    printf '%s\t%s\t%s\t%s\n' "$g" "${ns:-nan}" "${mn:-nan}" "${mx:-nan}" >>"$probes_tsv"
    last_probe=${ns:-nan}
}

fmt_time() {    # milliseconds -> 3m05s
    local s=$(( $1 / 1000 ))
    if [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

per_rep=0
for v in "${selected[@]}"; do
    read -r _ prog _ <<<"$v"
    for m in "${mpi_list[@]}"; do
        coll_only "$m" && ! is_coll "$prog" && continue
        per_rep=$((per_rep + 1))
    done
done
total=$((per_rep * REPS))
declare -A TIMED_OUT    # variant/mpi -> repetition in which it timed out
declare -A DUR          # last duration (ms) of each variant/mpi, for the estimate
idx=0
t_start=$(now_ms)
tty=0
[ -t 2 ] && tty=1
quick_arg=()
[ "$QUICK" = 1 ] && quick_arg=(--quick)

# Estimated ms left: a repetition costs what the last one of each
# (benchmark, MPI) took (the mean of the known ones where none ran yet).
eta_ms() {    # $1 = rep, $2 = runs already done in this rep (their keys in DONE_KEYS)
    local rep=$1 k sum=0 n=0 mean rep_est done_sum=0
    for k in "${!DUR[@]}"; do sum=$((sum + DUR[$k])); n=$((n + 1)); done
    [ $n -eq 0 ] && { echo $(( (total - idx + 1) * 2000 )); return; }
    mean=$((sum / n))
    rep_est=$((sum + (per_rep - n) * mean))
    for k in "${DONE_KEYS[@]}"; do done_sum=$((done_sum + ${DUR[$k]:-mean})); done
    local left=$((rep_est - done_sum))
    [ $left -lt 0 ] && left=0
    echo $((left + (REPS - rep) * rep_est))
}

if [ "$NET" = 1 ]; then
    say "inter-node: $NHOSTS emulated hosts ($SMAP_NETNS_ID), point-to-point 2 x 1 rank, collectives $NHOSTS x 2"
fi
say "running ${#selected[@]} benchmark(s) x ${#mpi_list[@]} MPI(s) x $REPS rep(s) = $total runs, np=$(job_np bcast), quick=$QUICK"
say "MPIs: $(for m in "${mpi_list[@]}"; do printf '%s[%s] ' "$m" "${STATUS[$m]}"; done)"

group=0
last_probe=nan
for ((rep = 1; rep <= REPS && !interrupted; rep++)); do
    DONE_KEYS=()
    for v in "${selected[@]}"; do
        [ $interrupted = 1 ] && break
        read -r name prog args <<<"$v"
        vary=0
        [[ $args == *--vary* ]] && vary=1
        run_probe "$group"
        for m in "${mpi_list[@]}"; do
            [ $interrupted = 1 ] && break
            if coll_only "$m" && ! is_coll "$prog"; then continue; fi
            idx=$((idx + 1))
            out=$runs_dir/$name.$m.r$rep.out
            err=$runs_dir/$name.$m.r$rep.err
            note=""
            rc=0
            wall=0
            if [ "${STATUS[$m]}" != ok ]; then
                note="${STATUS[$m]}"
                rc=-1
                : >"$out"; : >"$err"
            elif [ -z "${PROG_OK[$m/$prog]:-}" ]; then
                note="build failed (see $work/$m/build.log)"
                rc=-1
                : >"$out"; : >"$err"
            elif [ -n "${TIMED_OUT[$name/$m]:-}" ]; then
                # Once is enough: MPICH oversubscribed can take minutes per run.
                note="timed out after $TIMEOUT s (in repetition ${TIMED_OUT[$name/$m]}; not run again)"
                rc=-1
                : >"$out"; : >"$err"
            else
                elapsed=$(( $(now_ms) - t_start ))
                left=$(eta_ms "$rep")
                msg=$(printf '[%3d/%d] rep %d/%d  %-15s %-9s probe %6s ns  elapsed %s  left ~%s' \
                      "$idx" "$total" "$rep" "$REPS" "$name" "$m" "$last_probe" \
                      "$(fmt_time "$elapsed")" "$(fmt_time "$left")")
                if [ $tty = 1 ]; then printf '\r\033[K%s' "$msg" >&2; else printf '%s\n' "$msg" >&2; fi
                t0=$(now_ms)
                # shellcheck disable=SC2086  # LAUNCH holds a command line
                timeout -k 5 "$TIMEOUT" $(launch_line "$m" "$(job_np "$prog")") "$(prog_path "$m" "$prog")" $args "${quick_arg[@]}" \
                    >"$out" 2>"$err" </dev/null 9>&- &
                child=$!
                wait "$child"
                rc=$?
                if [ $interrupted = 1 ]; then
                    wait "$child" 2>/dev/null
                    note="interrupted"
                fi
                child=""
                dur=$(( $(now_ms) - t0 ))
                wall=$(printf '%d.%02d' $((dur / 1000)) $(( (dur % 1000) / 10 )))
                DUR[$name/$m]=$dur
                DONE_KEYS+=("$name/$m")
                if [ $interrupted = 0 ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
                    note="timed out after $TIMEOUT s"
                    TIMED_OUT[$name/$m]=$rep
                fi
            fi
            printf '%d\t%d\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$idx" "$rep" "$group" "$name" "$prog" \
                "$vary" "$m" "$rc" "$wall" "$out" "$err" "$note" >>"$runs_tsv"
        done
        group=$((group + 1))
    done
done
run_probe "$group"
[ $tty = 1 ] && printf '\r\033[K' >&2
trap - INT TERM
elapsed=$(( $(now_ms) - t_start ))
meta_put elapsed "$(fmt_time "$elapsed")"
[ $interrupted = 1 ] && { meta_put interrupted 1; say "interrupted: reporting what has run"; }
say "runs done in $(fmt_time "$elapsed")"

# ---------------------------------------------------------------- report
python3 bench/report.py --work "$work" --results "$results"
rc=$?
[ $interrupted = 1 ] && exit 130
exit $rc
