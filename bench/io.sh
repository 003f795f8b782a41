#!/usr/bin/env bash
# bench/io.sh — MPI-IO side by side (make bench-io; part of make bench):
# bench/io.c built with smartmap's mpicc, mpicc.openmpi (OMPIO) and
# mpicc.mpich (ROMIO), every row run ROUNDS times per MPI with the three
# launched one after the other, the order rotating each round (paired,
# alternated launches: a load change hits all three alike).  The row's
# time is each MPI's median over the rounds; the ratio is smartmap's over
# the best peer's.  Rows: the 2-D subarray decomposition (interleaved
# pieces) and IOR-like contiguous blocks, write and read, collective and
# independent, at NP ranks, on tmpfs (/dev/shm) and on the disk-backed
# directory ($TMPDIR or /tmp); `dd oflag=direct` of the same size gives
# the device's own sequential write bandwidth as the limit.
#
# Environment: BUILD_DIR (build), NP (default 2 4), ROUNDS (5), ITERS (5),
# DIRS ("/dev/shm ${TMPDIR:-/tmp}"), OUT (bench/results/io), HOSTS (unset:
# one node; N: the rows at N emulated hosts x NP/N ranks, the whole script
# re-run under tests/netns/hosts.sh run N, every MPI launched through its
# hostexec as scripts/bench.sh's inter-node part does: libfabric tcp for
# smartmap, Open MPI's tcp BTL, MPICH's UCX on tcp; no rank binding, as
# the hosts share the machine's CPUs; the directories are the machine's,
# which every emulated host sees: one file system standing in for a
# shared one).  ROWS ("pattern op collective [block],..."; e.g.
# "subarray read 1,contig write 0 1M,interleaved write 0 4K"): only these
# rows; pattern subarray, contig or interleaved, op write or read,
# collective 1 or 0, block (contig, interleaved) with a K or M suffix.
# Takes no arguments: -h/--help prints this text.
set -u
case "${1:-}" in
-h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
"") ;;
*) echo "bench/io.sh: takes no arguments (settings are environment variables; --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
if [ -n "${HOSTS:-}" ] && [ -z "${SMAP_NETNS_ID:-}" ]; then
    exec tests/netns/hosts.sh run "$HOSTS" bash "$PWD/bench/io.sh" "$@"
fi
BUILD_DIR=${BUILD_DIR:-build}
NPS=${NP:-2 4}
ROUNDS=${ROUNDS:-5}
ITERS=${ITERS:-5}
DIRS=${DIRS:-/dev/shm ${TMPDIR:-/tmp}}
OUT=${OUT:-bench/results/io}
work=bench/work/io
mkdir -p "$work" "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ncpu=$(nproc)

declare -A CC=([smartmap]="$BUILD_DIR/bin/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
mpis=()
for m in smartmap openmpi mpich; do
    if command -v "${CC[$m]}" >/dev/null 2>&1 &&
        "${CC[$m]}" -std=gnu11 -O2 -o "$work/io_$m" bench/io.c >"$work/$m.build.log" 2>&1; then
        mpis+=("$m")
    else
        echo "io: $m: build failed or no compiler (see $work/$m.build.log)"
    fi
done
[ ${#mpis[@]} -gt 0 ] || exit 1

launch() {   # MPI NP: binding to cores only when the ranks fit
    if [ -n "${SMAP_NETNS_ID:-}" ]; then   # NP ranks over the emulated hosts
        local L=$SMAP_NETNS_LAUNCHER hl="" h
        for h in $SMAP_NETNS_HOSTS; do hl="$hl,$h:$(($2 / $(wc -w <<<"$SMAP_NETNS_HOSTS")))"; done
        hl=${hl#,}
        case $1 in
        smartmap) echo "$PWD/$BUILD_DIR/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host $hl" ;;
        openmpi) echo "mpiexec.openmpi --host $hl -n $2 --bind-to none --mca plm_rsh_agent $L --mca oob_tcp_if_include 198.18.0.0/24 --mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include eth0" ;;
        mpich) echo "mpiexec.mpich -launcher-exec $L -localhost $SMAP_NETNS_HEAD -hosts $hl -n $2 -bind-to none -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0" ;;
        esac
        return
    fi
    local fit=1
    [ "$2" -gt "$ncpu" ] && fit=0
    case $1 in
    openmpi) [ $fit = 1 ] && echo "mpiexec.openmpi -n $2 --bind-to core" ||
                 echo "mpiexec.openmpi -n $2 --oversubscribe --bind-to none" ;;
    mpich) [ $fit = 1 ] && echo "mpiexec.mpich -n $2 -bind-to core" ||
               echo "mpiexec.mpich -n $2 -bind-to none" ;;
    smartmap) echo "$BUILD_DIR/bin/mpiexec -n $2" ;;
    esac
}

csv=$OUT/io.csv
echo "dir,pattern,op,coll,np,round,mpi,sec,mbps" >"$csv"
load=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "# MPI-IO: smartmap vs Open MPI (OMPIO) vs MPICH (ROMIO)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $ncpu CPUs, load average at start $load"
    echo "(command: NP=\"$NPS\" ROUNDS=$ROUNDS ITERS=$ITERS${HOSTS:+ HOSTS=$HOSTS} DIRS=\"$DIRS\"${ROWS:+ ROWS=\"$ROWS\"} bash bench/io.sh;"
    echo "$(git describe --always --dirty 2>/dev/null || echo '?'))"
    echo "(the machine is shared with other work: see the load; each row is the"
    echo "median of $ROUNDS rounds, the three MPIs launched in rotating order in"
    echo "every round, $ITERS timed repetitions each, median of those)."
    echo
} >"$OUT/io.md"

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

# a row: pattern op collective [block]; contig's block is each rank's
# (16M unless given: 1M and 64M are the IOR-like extremes), interleaved's
# the size of the blocks dealt round-robin (16 MiB per rank)
rows=(
    "subarray write 1" "subarray read 1" "subarray write 0" "subarray read 0"
    "contig write 1" "contig read 1" "contig write 0" "contig read 0"
    "contig write 1 1M" "contig read 1 1M" "contig write 0 1M" "contig read 0 1M"
    "contig write 1 64M" "contig read 1 64M" "contig write 0 64M" "contig read 0 64M"
    "interleaved write 1 4K" "interleaved read 1 4K" "interleaved write 0 4K" "interleaved read 0 4K"
    "interleaved write 1 64K" "interleaved read 1 64K" "interleaved write 0 64K" "interleaved read 0 64K"
)
# ROWS="subarray read 1,contig write 0 1M": only these rows
[ -n "${ROWS:-}" ] && IFS=, read -ra rows <<<"$ROWS"
for dir in $DIRS; do
    [ -d "$dir" ] && [ -w "$dir" ] || { echo "io: $dir not writable, skipped"; continue; }
    # the device's own sequential bandwidth (tmpfs: none)
    lim="n/a"
    if [ "$(stat -f -c %T "$dir")" != tmpfs ]; then
        lim=$(dd if=/dev/zero of="$dir/bench_io_dd" bs=1M count=64 oflag=direct 2>&1 |
              awk '/copied/ {print $(NF-1), $NF}')
        rm -f "$dir/bench_io_dd"
    fi
    {
        echo "## $dir ($(stat -f -c %T "$dir")); dd oflag=direct 64 MiB: $lim"
        echo
        echo "| pattern | op | access | np | ${mpis[*]} (MB/s) | smartmap / best peer (time) |"
        echo "|---|---|---|---|---|---|"
    } >>"$OUT/io.md"
    for np in $NPS; do
        for row in "${rows[@]}"; do
            set -- $row
            pat=$1 op=$2 coll=$3 blk=${4:-}
            args=(--pattern "$pat" --op "$op" --iters "$ITERS" --dir "$dir")
            [ "$coll" = 1 ] && args+=(--coll) || args+=(--indep)
            [ "$pat" = contig ] && args+=(--block "$(numfmt --from=iec "${blk:-16M}")")
            [ "$pat" = interleaved ] && args+=(--block "$(numfmt --from=iec "${blk:-4K}")")
            [ -n "$blk" ] && pat="$pat-$blk"   # the row's name in the csv and the table
            for ((r = 0; r < ROUNDS; r++)); do
                n=${#mpis[@]}
                for ((k = 0; k < n; k++)); do
                    m=${mpis[$(((k + r) % n))]}
                    line=$(timeout -k 5 120 $(launch "$m" "$np") "$PWD/$work/io_$m" "${args[@]}" 2>"$work/last.err" </dev/null |
                           grep '^RESULT')
                    sec=$(sed -n 's/.* sec=\([^ ]*\).*/\1/p' <<<"$line")
                    mb=$(sed -n 's/.* mbps=\([^ ]*\).*/\1/p' <<<"$line")
                    [ -n "$sec" ] || { sec=nan mb=nan; echo "io: $m $row np=$np failed: $(head -c 300 "$work/last.err")"; }
                    echo "$dir,$pat,$op,$coll,$np,$r,$m,$sec,$mb" >>"$csv"
                done
            done
            cells="" best="" mine=""
            for m in "${mpis[@]}"; do
                s=$(awk -F, -v d="$dir" -v p="$pat" -v o="$op" -v c="$coll" -v n="$np" -v m="$m" \
                    '$1==d && $2==p && $3==o && $4==c && $5==n && $7==m && $8!="nan" {print $8}' "$csv" | median)
                b=$(awk -F, -v d="$dir" -v p="$pat" -v o="$op" -v c="$coll" -v n="$np" -v m="$m" \
                    '$1==d && $2==p && $3==o && $4==c && $5==n && $7==m && $9!="nan" {print $9}' "$csv" | median)
                cells="$cells $b"
                if [ "$m" = smartmap ]; then mine=$s
                elif [ "$s" != nan ] && { [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN {exit !(a < b)}'; }; then best=$s
                fi
            done
            ratio=$(awk -v a="$mine" -v b="$best" 'BEGIN {if (a == "" || b == "" || a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.2fx", a / b}')
            acc=$([ "$coll" = 1 ] && echo collective || echo independent)
            npl=$np
            [ -n "${SMAP_NETNS_ID:-}" ] && npl="$(wc -w <<<"$SMAP_NETNS_HOSTS") hosts x $((np / $(wc -w <<<"$SMAP_NETNS_HOSTS")))"
            echo "| $pat | $op | $acc | $npl | ${cells# } | $ratio |" | tee -a "$OUT/io.md"
        done
    done
    echo >>"$OUT/io.md"
done
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/io.md"
echo "io: wrote $OUT/io.md and $csv"
