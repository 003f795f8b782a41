#!/bin/bash
# Paired, alternated launches of bench/ programs built against two smartmap
# build trees, to tell a real difference from the machine's launch-to-launch
# spread (the method of src/net/README.md).  Each pair runs A then B, the
# next pair B then A, for every benchmark in turn; the summary gives, per
# benchmark and size, how many pairs went each way and the median of B/A.
#
#   scripts/paired_bench.sh BUILD_A BUILD_B [PAIRS] [BENCHES] [-- bench options]
#   e.g. scripts/paired_bench.sh ../base/build build 8 "allreduce bcast gather" \
#            -- --min-size 8 --max-size 1024 --iters 10000
# Environment: NP (ranks, default 2), OUT (raw output file, default a
# temporary one, removed unless given), HOSTS (a host list such as
# "h1:1,h2:1": the jobs run across emulated hosts; start the script
# under `tests/netns/hosts.sh run 2 ...`, whose launcher it uses).  Run it
# with A = B once to see the noise floor of the method on this machine
# at this time.
set -euo pipefail

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); shift 2
PAIRS=8; BENCHES="allreduce bcast gather scatter"
if [ $# -gt 0 ] && [ "$1" != -- ]; then PAIRS=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then BENCHES=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
ARGS=("$@")
NP=${NP:-2}
SRC=$(cd "$(dirname "$0")/../bench" && pwd)

for d in "$A" "$B"; do
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
    for b in $BENCHES; do
        "$tree/bin/mpicc" -O2 -o "$WORK/$v/$b" "$SRC/$b.c" "$SRC/common.c" -lm ||
            { echo "paired_bench: cannot build $b against $tree" >&2; exit 1; }
    done
done

run() {  # variant pair bench
    local tree=$A; [ "$1" = B ] && tree=$B
    local launch=("$tree/bin/smrun" -n "$NP")
    [ -n "${HOSTS:-}" ] && launch=("$tree/bin/mpiexec" --launcher "$SMAP_NETNS_LAUNCHER"
        --head-addr "$SMAP_NETNS_HEAD" --bind-to none --host "$HOSTS" -n "$NP")
    "${launch[@]}" "$WORK/$1/$3" "${ARGS[@]}" 2>&1 |
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
print("# bench size: pairs where B was faster / slower than A, median B/A, medians of A and B (usec)")
for (b, s), pairs in sorted(rows.items()):
    both = [(v['A'], v['B']) for v in pairs.values() if 'A' in v and 'B' in v]
    if not both:
        continue
    faster = sum(1 for a, x in both if x < a)
    slower = sum(1 for a, x in both if x > a)
    ratio = statistics.median(x / a for a, x in both)
    print(f"{b:12s} {s:7d} B faster {faster}/{len(both)}, slower {slower}/{len(both)}, "
          f"median B/A {ratio:.3f}  A {statistics.median(a for a, _ in both):.4f} "
          f"B {statistics.median(x for _, x in both):.4f}")
EOF
