#!/bin/bash
# Paired, alternated launches of bench/ programs built against two smartmap
# build trees, or one tree and MPICH, to tell a real difference from the
# machine's launch-to-launch spread (the method of src/net/README.md).  Each
# pair runs A then B, the next pair B then A, for every benchmark in turn;
# the summary gives, per benchmark and size, how many pairs went each way
# and the medians of B/A and A/B (usec: latency, or time per message of bw).
#
#   scripts/paired_bench.sh BUILD_A BUILD_B|mpich [PAIRS] [BENCHES] [-- bench options]
#   e.g. scripts/paired_bench.sh ../base/build build 8 "allreduce bcast gather" \
#            -- --min-size 8 --max-size 1024 --iters 10000
# B = mpich: the programs built with mpicc.mpich and run by mpiexec.mpich
# (Debian's is ch4:ucx), across hosts with UCX_TLS=tcp,self and
# UCX_NET_DEVICES=eth0, as scripts/bench.sh runs it.  smartmap's UCX engine
# against it, 6 pairs each way of latency and bw, across 2 emulated hosts:
#   tests/netns/hosts.sh run 2 env HOSTS=h1:1,h2:1 UCX=1 \
#       scripts/paired_bench.sh build mpich 12 "latency bw"
# Environment: NP (ranks, default 2), OUT (raw output file, default a
# temporary one, removed unless given), HOSTS (a host list such as
# "h1:1,h2:1": the jobs run across emulated hosts; start the script
# under `tests/netns/hosts.sh run 2 ...`, whose launcher it uses),
# ENV_A / ENV_B (space-separated VAR=VALUE settings for that variant's
# jobs: smrun -x, mpiexec.mpich -genv; e.g. A = B = build and ENV_B=
# "SMAP_NET_CHUNK=1M" compares a setting), UCX=1 (smartmap variants get
# SMAP_NET_ENGINE=ucx UCX_TLS=tcp UCX_NET_DEVICES=eth0), WRAP (a command
# put before each program on every rank, both variants: e.g. a script that
# runs `exec taskset -c $((PMI_RANK % 2)) "$@"` pins the ranks).  Run it with
# A = B once to see the noise floor of the method on this machine at this
# time.
set -euo pipefail

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
[ "${1:-}" = --help ] || [ "${1:-}" = -h ] && usage
A=$(cd "$1" && pwd)
if [ "$2" = mpich ]; then B=mpich; else B=$(cd "$2" && pwd); fi
shift 2
PAIRS=8; BENCHES="allreduce bcast gather scatter"
if [ $# -gt 0 ] && [ "$1" != -- ]; then PAIRS=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then BENCHES=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
ARGS=("$@")
NP=${NP:-2}
SRC=$(cd "$(dirname "$0")/../bench" && pwd)

for d in "$A" "$B"; do
    [ "$d" = mpich ] && { command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ||
        { echo "paired_bench: B = mpich needs mpicc.mpich and mpiexec.mpich" >&2; exit 2; }; continue; }
    [ -x "$d/bin/mpicc" ] && [ -x "$d/bin/smrun" ] ||
        { echo "paired_bench: $d is not a smartmap build tree (bin/mpicc, bin/smrun)" >&2; exit 2; }
done
if [ -n "${HOSTS:-}" ] && [ -z "${SMAP_NETNS_LAUNCHER:-}" ]; then
    echo "paired_bench: HOSTS needs the emulated hosts: run it under tests/netns/hosts.sh run N" >&2; exit 2
fi
case $PAIRS in ''|*[!0-9]*) echo "paired_bench: PAIRS must be a number, got '$PAIRS'" >&2; exit 2;; esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/paired_bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RAW=${OUT:-$WORK/raw.txt}
: >"$RAW"

for v in A B; do
    tree=$A; [ $v = B ] && tree=$B
    mkdir -p "$WORK/$v"
    cc="$tree/bin/mpicc"; [ "$tree" = mpich ] && cc=mpicc.mpich
    for b in $BENCHES; do
        "$cc" -std=gnu11 -O2 -I"$SRC" -o "$WORK/$v/$b" "$SRC/$b.c" "$SRC/common.c" -lm ||
            { echo "paired_bench: cannot build $b against $tree" >&2; exit 1; }
    done
done

# env_args TREE SETTINGS...: the launcher's options that set them.
env_args() {
    local tree=$1 kv; shift
    for kv in "$@"; do
        if [ "$tree" = mpich ]; then printf '%s\n' -genv "${kv%%=*}" "${kv#*=}"
        else printf '%s\n' -x "$kv"; fi
    done
}

run() {  # variant pair bench
    local tree=$A settings=${ENV_A:-} envs launch
    [ "$1" = B ] && { tree=$B; settings=${ENV_B:-}; }
    [ "${UCX:-0}" = 1 ] && [ "$tree" != mpich ] &&
        settings="SMAP_NET_ENGINE=ucx UCX_TLS=tcp UCX_NET_DEVICES=eth0 $settings"
    [ -n "${HOSTS:-}" ] && [ "$tree" = mpich ] && settings="UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 $settings"
    # shellcheck disable=SC2086 # settings: words by design
    mapfile -t envs < <(env_args "$tree" $settings)
    if [ "$tree" = mpich ]; then
        launch=(mpiexec.mpich -n "$NP" -bind-to none)
        [ -n "${HOSTS:-}" ] && launch=(mpiexec.mpich -launcher-exec "$SMAP_NETNS_LAUNCHER"
            -localhost "$SMAP_NETNS_HEAD" -hosts "$HOSTS" -n "$NP" -bind-to none)
    else
        launch=("$tree/bin/smrun" -n "$NP")
        [ -n "${HOSTS:-}" ] && launch=("$tree/bin/mpiexec" --launcher "$SMAP_NETNS_LAUNCHER"
            --head-addr "$SMAP_NETNS_HEAD" --bind-to none --host "$HOSTS" -n "$NP")
    fi
    launch+=("${envs[@]}")
    [ "$2" = 1 ] && echo "# variant $1: ${launch[*]} $WORK/$1/$3 ${ARGS[*]}" >>"$RAW"
    # shellcheck disable=SC2086 # WRAP: words by design
    "${launch[@]}" ${WRAP:-} "$WORK/$1/$3" "${ARGS[@]}" 2>&1 |
        sed -n "s/^RESULT /pair=$2 variant=$1 RESULT /p" >>"$RAW"
}

for p in $(seq 1 "$PAIRS"); do
    for b in $BENCHES; do
        if [ $((p % 2)) = 1 ]; then run A "$p" "$b"; run B "$p" "$b"
        else run B "$p" "$b"; run A "$p" "$b"; fi
    done
done

python3 - "$RAW" "$PAIRS" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    if 'usec' not in kv:
        continue
    key = (kv['bench'], int(kv['size']))
    rows.setdefault(key, {}).setdefault(int(kv['pair']), {})[kv['variant']] = float(kv['usec'])
npairs = int(sys.argv[2])
print(f"# {npairs} pairs: {(npairs + 1) // 2} ran A first, {npairs // 2} B first")
print("# bench size: pairs where B was faster / slower than A, medians of B/A and A/B, medians of A and B (usec)")
for (b, s), pairs in sorted(rows.items()):
    both = [(v['A'], v['B']) for v in pairs.values() if 'A' in v and 'B' in v]
    if not both:
        continue
    faster = sum(1 for a, x in both if x < a)
    slower = sum(1 for a, x in both if x > a)
    ratio = statistics.median(x / a for a, x in both)
    inv = statistics.median(a / x for a, x in both)
    print(f"{b:12s} {s:7d} B faster {faster}/{len(both)}, slower {slower}/{len(both)}, "
          f"median B/A {ratio:.3f} A/B {inv:.3f}  A {statistics.median(a for a, _ in both):.4f} "
          f"B {statistics.median(x for _, x in both):.4f}")
EOF
