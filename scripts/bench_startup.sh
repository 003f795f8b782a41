#!/usr/bin/env bash
# Start-up side by side (issue 37): wall time of a job that runs
# MPI_Init + MPI_Barrier + MPI_Finalize, smartmap against Open MPI and
# MPICH in alternated launches (the order rotates every round, so the
# machine's drift hits all alike), on this node at STARTUP_NPS ranks,
# quiet and beside a CPU-bound load of one busy loop per CPU, and, where
# network namespaces can be made, across STARTUP_HOSTS emulated hosts x
# STARTUP_PER_HOST ranks.  Prints the medians (ms), each MPI's ratio to the
# best peer, how many rounds smartmap won, and the memory per rank (PSS
# after MPI_Init, averaged over the ranks); writes
# bench/results/startup.txt.
#   scripts/bench_startup.sh                  (make bench-startup)
#   STARTUP_NPS="2 32" STARTUP_ROUNDS=3 scripts/bench_startup.sh
#   STARTUP_NPS=none STARTUP_HOSTS=8 STARTUP_PER_HOST=8 scripts/bench_startup.sh
# Settings (environment):
#   STARTUP_NPS         ranks of the one-node rows ("2 32 96 192"; none: no
#                       node rows)
#   STARTUP_ROUNDS      alternated rounds per row (5)
#   STARTUP_HOSTS       emulated hosts of the hosts row (8; 0: no hosts row)
#   STARTUP_PER_HOST    ranks per emulated host (8)
#   STARTUP_FI_PROVIDER libfabric provider of smartmap's hosts row: default
#                       (none set: the engine's own choice, net, else
#                       tcp;ofi_rxm) or an FI_PROVIDER value (tcp...)
#   STARTUP_TIMEOUT     seconds before a launch counts as failed (300)
#   STARTUP_OUT         the report (bench/results/startup.txt)
#   BUILD_DIR           smartmap's build (build)
set -uo pipefail
case ${1:-} in
-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
'') ;;
*) echo "bench_startup: no arguments (settings are environment variables; see --help)" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) build=$BUILD_DIR ;; *) build=$top/$BUILD_DIR ;; esac
NPS=${STARTUP_NPS:-2 32 96 192}
[ "$NPS" = none ] && NPS=
FI_PROV=${STARTUP_FI_PROVIDER:-default}
ROUNDS=${STARTUP_ROUNDS:-5}
HOSTS=${STARTUP_HOSTS:-8}
PER_HOST=${STARTUP_PER_HOST:-8}
LIMIT=${STARTUP_TIMEOUT:-300}
OUT=${STARTUP_OUT:-$top/bench/results/startup.txt}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
loadpids=()
cleanup() {
    for p in "${loadpids[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

# The job: MPI_Init, a barrier, then each rank's proportional set size
# (PSS: its private pages plus its share of every shared one, from
# /proc/self/smaps_rollup), averaged and maximised over the ranks by rank 0
# ("PSS <avg kB> <max kB>"), and MPI_Finalize.
cat >"$work/init_fin.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static long pss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Pss:", 4))
            kb = atol(line + 4);
    if (f)
        fclose(f);
    return kb;
}
int main(int c, char **v)
{
    int rank, np;
    MPI_Init(&c, &v);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long kb = pss_kb(), sum = 0, max = 0;
    MPI_Reduce(&kb, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&kb, &max, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && kb >= 0)
        printf("PSS %ld %ld\n", sum / np, max);
    MPI_Finalize();
    return 0;
}
PROG
declare -A CC=([smartmap]=$build/bin/mpicc [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
MPIS=()
for m in smartmap openmpi mpich; do
    if command -v "${CC[$m]}" >/dev/null 2>&1 && "${CC[$m]}" "$work/init_fin.c" -o "$work/init_fin.$m" 2>/dev/null; then
        MPIS+=("$m")
    else
        echo "bench_startup: $m not available (${CC[$m]}): left out" >&2
    fi
done
[ "${MPIS[0]:-}" = smartmap ] || { echo "bench_startup: smartmap's mpicc failed" >&2; exit 1; }
# Across hosts, where the UCX engine was built, smartmap once more over it
# (issue 38): the "smartmap" column is the default engine (auto: libfabric
# without an InfiniBand device), "smartmap-ucx" the same program with
# SMAP_NET_ENGINE=ucx and UCX's tcp transport on the hosts' eth0.
if [ "$HOSTS" -gt 0 ] && ls "$build"/lib/smartmap/libsmartmap_net_ucx.so >/dev/null 2>&1; then
    MPIS=(smartmap smartmap-ucx "${MPIS[@]:1}")
    cp "$work/init_fin.smartmap" "$work/init_fin.smartmap-ucx"
fi
# is_extra MPI: a column of the hosts row only
is_extra() { [ "$1" = smartmap-ucx ]; }

# launch MPI NP [HOSTLIST]: the command line of one job
launch() {
    local m=$1 np=$2 hosts=${3:-} over= bind=core
    # as bench.sh: pinned while the ranks fit the CPUs (smartmap's default)
    [ "$np" -gt "$(nproc)" ] && over=--oversubscribe bind=none
    if [ -z "$hosts" ]; then
        case $m in
        smartmap) echo "$build/bin/mpiexec -n $np" ;;
        openmpi) echo "mpiexec.openmpi -n $np $over --bind-to $bind" ;;
        mpich) echo "mpiexec.mpich -n $np -bind-to $bind" ;;
        esac
    else
        local L=$SMAP_NETNS_LAUNCHER
        case $m in
        smartmap) echo "$build/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host $hosts -n $np" ;;
        smartmap-ucx) echo "$build/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host $hosts -n $np -x SMAP_NET_ENGINE=ucx -x UCX_TLS=tcp -x UCX_NET_DEVICES=eth0" ;;
        openmpi) echo "mpiexec.openmpi --host $hosts -n $np --oversubscribe --bind-to none --mca plm_rsh_agent $L --mca oob_tcp_if_include 198.18.0.0/24 --mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0" ;;
        mpich) echo "mpiexec.mpich -launcher-exec $L -localhost $SMAP_NETNS_HEAD -hosts $hosts -n $np -bind-to none -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0" ;;
        esac
    fi
}

# one MPI NP [HOSTS]: one launch's wall time in ms, or "fail"
one() {
    local t0 t1
    t0=$(date +%s%N)
    if timeout "$LIMIT" $(launch "$1" "$2" "${3:-}") "$work/init_fin.$1" >"$work/log" 2>&1; then
        t1=$(date +%s%N)
        sed -n 's/^PSS \([0-9]*\) .*/\1/p' "$work/log" | head -n 1 >>"$work/pss.$1"
        echo $(((t1 - t0) / 1000000))
    else
        echo fail
    fi
}

median() { grep -v fail "$1" | sort -n | awk '{v[NR]=$1} END {if (!NR) print "-"; else print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# row LABEL NP [HOSTS]: ROUNDS rounds, the MPIs' order rotating
row() {
    local label=$1 np=$2 hosts=${3:-} k m t won=0 rounds=0 all=("${MPIS[@]}")
    local MPIS=()
    for m in "${all[@]}"; do [ -z "$hosts" ] && is_extra "$m" || MPIS+=("$m"); done
    for m in "${all[@]}"; do : >"$work/t.$m"; : >"$work/pss.$m"; done
    for m in "${MPIS[@]}"; do one "$m" "$np" "$hosts" >/dev/null; done   # page cache, daemons
    for m in "${MPIS[@]}"; do : >"$work/pss.$m"; done
    for ((k = 0; k < ROUNDS; k++)); do
        local n=${#MPIS[@]} i best=
        declare -A r=()
        for ((i = 0; i < n; i++)); do
            m=${MPIS[$(((i + k) % n))]}
            t=$(one "$m" "$np" "$hosts")
            echo "$t" >>"$work/t.$m"
            r[$m]=$t
        done
        for m in "${MPIS[@]}"; do
            [ "$m" = smartmap ] || is_extra "$m" || [ "${r[$m]}" = fail ] && continue
            [ -z "$best" ] || [ "${r[$m]}" -lt "$best" ] && best=${r[$m]}
        done
        if [ -n "$best" ] && [ "${r[smartmap]}" != fail ]; then
            rounds=$((rounds + 1))
            [ "${r[smartmap]}" -lt "$best" ] && won=$((won + 1))
        fi
        unset r
    done
    local line best_med=
    line=$(printf '%-26s' "$label")
    for m in "${all[@]}"; do
        local med; med=$(median "$work/t.$m")
        line+=$(printf ' %9s' "$med")
        [ "$m" != smartmap ] && ! is_extra "$m" && [ "$med" != - ] && { [ -z "$best_med" ] || [ "$med" -lt "$best_med" ]; } && best_med=$med
    done
    local sm; sm=$(median "$work/t.smartmap")
    if [ -n "$best_med" ] && [ "$sm" != - ]; then
        line+=$(awk -v a="$sm" -v b="$best_med" 'BEGIN {printf "   %5.2fx", a / b}')
    else
        line+="       -"
    fi
    line+="   smartmap faster in $won of $rounds rounds"
    local x
    for x in "${MPIS[@]}"; do
        is_extra "$x" || continue
        local xm; xm=$(median "$work/t.$x")
        [ -n "$best_med" ] && [ "$xm" != - ] &&
            line+=$(awk -v a="$xm" -v b="$best_med" -v n="$x" 'BEGIN {printf "; %s %.2fx", n, a / b}')
    done
    local fails; fails=$(cat "$work"/t.* | grep -c fail)
    [ "$fails" -gt 0 ] && line+=" ($fails launches failed or passed ${LIMIT} s)"
    echo "$line" | tee -a "$work/report"
    # memory: the median over the rounds of the ranks' average PSS
    line=$(printf '%-26s' "  PSS per rank (kB)")
    for m in "${all[@]}"; do line+=$(printf ' %9s' "$(median "$work/pss.$m")"); done
    echo "$line" | tee -a "$work/report"
}

load_on() { for ((i = 0; i < $(nproc); i++)); do (while :; do :; done) & loadpids+=($!); done; }
load_off() { for p in "${loadpids[@]}"; do kill "$p" 2>/dev/null; done; wait "${loadpids[@]}" 2>/dev/null; loadpids=(); }

if [ -n "${STARTUP_HOSTS_ROW:-}" ]; then   # inside hosts.sh run: that row alone
    list=; for ((h = 1; h <= HOSTS; h++)); do list+="${list:+,}h$h:$PER_HOST"; done
    : >"$work/report"
    row "${HOSTS} hosts x ${PER_HOST}" $((HOSTS * PER_HOST)) "$list"
    cat "$work/report" >>"$STARTUP_HOSTS_ROW"
    exit 0
fi
{
    echo "# start-up: MPI_Init + MPI_Barrier + MPI_Finalize, job wall time (ms, median of $ROUNDS alternated rounds)"
    echo "# $(date -u +%F) $(nproc) CPUs, smartmap $(git -C "$top" describe --always --dirty 2>/dev/null), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# command: scripts/bench_startup.sh (STARTUP_NPS='${NPS:-none}' STARTUP_ROUNDS=$ROUNDS STARTUP_HOSTS=$HOSTS STARTUP_PER_HOST=$PER_HOST STARTUP_FI_PROVIDER=$FI_PROV)"
    echo "# loaded: one busy loop per CPU beside the jobs; hosts: network namespaces of this machine (tests/netns/hosts.sh), smartmap's libfabric provider: $FI_PROV"
    echo "# PSS per rank: each rank's proportional set size after MPI_Init and a barrier (/proc/self/smaps_rollup), averaged over the ranks, median over the rounds"
    printf '%-26s' "row"; for m in "${MPIS[@]}"; do printf ' %9s' "$m"; done; echo "   smartmap/best peer"
} >"$work/report"
cat "$work/report"
for np in $NPS; do row "node np=$np quiet" "$np"; done
if [ -n "$NPS" ]; then
    load_on
    for np in $NPS; do row "node np=$np loaded" "$np"; done
    load_off
fi
if [ "$HOSTS" -gt 0 ]; then
    : >"$work/hostsrow"
    # hostexec sets FI_PROVIDER from SMAP_NETNS_PROVIDER (tcp unless told):
    # the row measures smartmap as users get it, the engine's default
    STARTUP_HOSTS_ROW=$work/hostsrow SMAP_NETNS_PROVIDER=$FI_PROV \
        "$top/tests/netns/hosts.sh" run "$HOSTS" "$0"
    rc=$?
    if [ "$rc" = 77 ]; then
        echo "# ${HOSTS} hosts x ${PER_HOST}: network namespaces cannot be made here: skipped" | tee -a "$work/report"
    else
        cat "$work/hostsrow" >>"$work/report"
        [ "$rc" = 0 ] || echo "# ${HOSTS} hosts x ${PER_HOST}: the row's run exited $rc" | tee -a "$work/report"
    fi
fi
mkdir -p "$(dirname "$OUT")"
cp "$work/report" "$OUT"
echo "bench_startup: wrote $OUT"
