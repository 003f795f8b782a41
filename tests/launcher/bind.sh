# --bind-to core pins rank i to the i-th core of smrun's own affinity mask
# (seen with sched_getaffinity in the ranks); none leaves the mask alone;
# the default binds only when the ranks fit; --report-bindings prints it.
source "$SMAP_SRC/tests/launcher/lib.sh"

all=$(PMI_RANK=0 "$RANKPROG" affinity | sed 's/.*cpus=//')   # smrun's own mask
ncpu=$(echo "$all" | tr ',' '\n' | wc -l)
first=${all%%,*}

cpus_of() { sed -n "s/^rank $1 cpus=//p" "$WORK/out"; }

run_job --bind-to core --report-bindings -n 1 "$RANKPROG" affinity
expect_rc 0
[ "$(cpus_of 0)" = "$first" ] || fail "rank 0 on '$(cpus_of 0)', expected CPU $first"
expect_err "smrun: rank 0 (pid "
expect_err "bound to CPU $first"

run_job --bind-to none --report-bindings -n 1 "$RANKPROG" affinity
expect_rc 0
[ "$(cpus_of 0)" = "$all" ] || fail "--bind-to none changed the mask"
expect_err "not bound"

if [ "$ncpu" -ge 2 ]; then
    # Default: 2 ranks fit, each gets its own CPU.
    run_job -n 2 "$RANKPROG" affinity
    expect_rc 0
    c0=$(cpus_of 0); c1=$(cpus_of 1)
    case "$c0$c1" in *,*) fail "ranks not pinned: '$c0' '$c1'" ;; esac
    [ "$c0" != "$c1" ] || fail "ranks share CPU $c0"

    # The i-th CPU of smrun's own mask, not of the machine.
    last=${all##*,}
    SMRUN=taskset run_job -c "$last" "$SMRUN" -n 1 "$RANKPROG" affinity
    expect_rc 0
    [ "$(cpus_of 0)" = "$last" ] || fail "under taskset -c $last rank 0 is on '$(cpus_of 0)'"
fi

# More ranks than CPUs: not bound by default...
n=$((ncpu + 1))
run_job -n $n "$RANKPROG" affinity
expect_rc 0
for r in $(seq 0 $((n - 1))); do
    [ "$(cpus_of $r)" = "$all" ] || fail "rank $r bound although ranks > CPUs"
done
# ...but round robin when asked.
run_job --bind-to core -n $n "$RANKPROG" affinity
expect_rc 0
expect_err "mapping wraps around, ranks share CPUs"
[ "$(cpus_of $((n - 1)))" = "$first" ] || fail "rank $((n - 1)) should wrap to CPU $first"

# SMRUN_BIND_TO sets the default; the command line wins.
SMRUN_BIND_TO=none run_job -n 1 "$RANKPROG" affinity
expect_rc 0
[ "$(cpus_of 0)" = "$all" ] || fail "SMRUN_BIND_TO=none did not stop the binding"
SMRUN_BIND_TO=none run_job --bind-to core -n 1 "$RANKPROG" affinity
expect_rc 0
[ "$(cpus_of 0)" = "$first" ] || fail "--bind-to core did not override SMRUN_BIND_TO"
SMRUN_BIND_TO=sockts run_job "$RANKPROG"
expect_rc 2
expect_err "SMRUN_BIND_TO: 'sockts' is not a binding level"

run_job --bind-to slot "$RANKPROG"
expect_rc 2
expect_err "--bind-to: 'slot' is not a binding level"

# A socket (package) of this machine: every CPU of the package of the
# rank's core (here the package holds smrun's whole mask or part of it).
run_job --bind-to socket -n 1 "$RANKPROG" affinity
expect_rc 0
case ",$all," in *",$first,"*) ;; *) fail "--bind-to socket: rank 0 on '$(cpus_of 0)'" ;; esac
# PE=2: two cores per rank, so both CPUs of a 2-CPU mask.
if [ "$ncpu" -ge 2 ]; then
    run_job --map-by core:PE=2 -n 1 "$RANKPROG" affinity
    expect_rc 0
    case "$(cpus_of 0)" in *,*) ;; *) fail "--map-by core:PE=2: rank 0 on one CPU '$(cpus_of 0)'" ;; esac
fi
echo PASS
