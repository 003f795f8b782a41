# The point-to-point and collective suites (the programs of tests/p2p,
# tests/coll, tests/coll_nbc) as jobs across emulated hosts, started by one
# launcher:
#   suites.sh smrun|hydra|ompi
# in one set of 3 emulated hosts (hosts.sh), amortised over every program.
# Layouts: "2x2" (h1:2,h2:2) and "1,2,3" (h1:1,h2:2,h3:3, uneven); programs
# that need exactly 2 ranks run as "2x1" (h1:1,h2:1).  The node side's copy
# level (SMAP_COPY direct|cma|bounce) rotates over the runs.
#
# The normal suite (CTest label heavy) runs, per launcher:
#   smrun  every program, at 2x2 and 1,2,3 in turn, the copy level rotating
#          (of those of exactly 2 ranks, the ones hydra does not run);
#   hydra  every other program (the 1st, 3rd, ...) at 1,2,3 (those of
#          exactly 2 ranks at 2x1);
#   ompi   the remaining ones at 2x2, but those of exactly 2 ranks (smrun
#          runs them all, hydra every other one).
# So every program of more ranks runs at both layouts and under two
# launchers, every 2-rank one under smrun or hydra, and each launcher
# starts every kind of job; make check stays under 15 minutes.
# SMAP_TEST_FULL=1 runs the whole matrix instead: every launcher x both
# layouts x the three copy levels x every program, plus coll_stress and
# p2p_large (> 2 GiB messages across hosts).
#
# A failing job does not stop the others: the script lists every failure
# (with its command line and the tail of its output) and fails at the end.
# Launchers that are not installed (mpiexec.hydra, Open MPI's mpirun with
# libpmix) make the test skip (77), never pass.
NHOSTS=3
source "$SMAP_SRC/tests/netns/lib.sh"
export SMAP_NODE_CPUS=1     # the CI machine's few CPUs are shared by every host
LAUNCHER=${1:-smrun}
FULL=${SMAP_TEST_FULL:-0}
JOB_TIMEOUT=${SUITES_JOB_TIMEOUT:-180}
T=$TESTS_BIN

# name  program (below tests/)  ranks ("any", "even" or "2")  args...
PROGRAMS=(
    "p2p_basic        p2p/p2p_basic          even"
    "p2p_waits        p2p/p2p_waits          any"
    "p2p_extras       p2p/p2p_extras         any"
    "p2p_truncate     p2p/p2p_truncate       any"
    "p2p_storm        p2p/p2p_storm          any  1"
    "p2p_ring         p2p/p2p_ring           any  200"
    "p2p_threads      p2p/p2p_threads        any  3 5"
    "p2p_bsend_auto   p2p/p2p_bsend_auto     any"
    "p2p_bsend_exact  p2p/p2p_bsend_exact    2  "
    "p2p_bsend_cycle  p2p/p2p_bsend_cycle    2  "
    "p2p_waitany_lowest p2p/p2p_waitany_lowest 2  "
    "p2p_bsend_finalize p2p/p2p_bsend_finalize 2"
    "p2p_headtohead   p2p/p2p_headtohead     2"
    "p2p_status_peek  p2p/p2p_status_peek    2"
    "coll_move        coll/coll_move         any  quick"
    "coll_reduce      coll/coll_reduce       any  quick"
    "coll_errors      coll/coll_errors       any"
    "coll_peer_ops    coll/coll_peer_ops     any"
    "nbc_coll         coll_nbc/nbc_coll      any  quick"
    "nbc_misc         coll_nbc/nbc_misc      any"
)
# Only in the full matrix: the costliest programs across hosts (coll_stress
# polls through thousands of small collectives: ~40 CPU-s a job here).
[ "$FULL" = 1 ] && PROGRAMS+=("coll_stress coll/coll_stress any" "p2p_large p2p/p2p_large 2")
LEVELS=(direct cma bounce)

case $LAUNCHER in
smrun) ;;
hydra)
    HYDRA=$(command -v mpiexec.hydra) || { echo "SKIPPED: no mpiexec.hydra"; exit 77; } ;;
ompi)   # (its run_job default, SMRUN, is not used here: fail_job sets its own)
    source "$SMAP_SRC/tests/pmi/ompi_mpirun.sh" ;;
*) echo "usage: suites.sh smrun|hydra|ompi" >&2; exit 2 ;;
esac

hosts_of() {   # layout -> host:count list
    case $1 in
    2x2) echo h1:2,h2:2 ;;
    1,2,3) echo h1:1,h2:2,h3:3 ;;
    2x1) echo h1:1,h2:1 ;;
    esac
}
np_of() { case $1 in 2x2) echo 4 ;; 1,2,3) echo 6 ;; 2x1) echo 2 ;; esac; }

# The launcher's command line for LAYOUT and LEVEL (then the program).
cmdline() {
    local layout=$1 level=$2 hosts np
    hosts=$(hosts_of "$layout")
    np=$(np_of "$layout")
    case $LAUNCHER in
    smrun) echo "$SMAP_STAGE/bin/smrun $MH --host $hosts -x SMAP_COPY=$level" ;;
    hydra) echo "$HYDRA -launcher-exec $SMAP_NETNS_LAUNCHER -localhost $SMAP_NETNS_HEAD" \
                "-hosts $hosts -n $np -genv SMAP_COPY $level" ;;
    # The daemons' out-of-band channel stays on the emulated network
    # (the head's bridge and the hosts' eth0 share 198.18.0.0/24).
    ompi) echo "$OMPI --host $hosts -n $np --bind-to none --mca plm_rsh_agent $SMAP_NETNS_LAUNCHER" \
               "--mca oob_tcp_if_include 198.18.0.0/24 -x SMAP_COPY=$level" ;;
    esac
}

failures=()
njobs=0
T_START=$(now_ms)
run_one() {   # layout level name prog args...
    local layout=$1 level=$2 name=$3 prog=$4
    shift 4
    local cmd rc t0 ms
    cmd="$(cmdline "$layout" "$level") $T/$prog $*"
    njobs=$((njobs + 1))
    t0=$(now_ms)
    # CPU seconds of the job (every host's processes are its descendants;
    # not under Open MPI, whose daemons' children are not waited for by it).
    local TIMEFORMAT='%U %S' cpu
    # shellcheck disable=SC2086   # cmd is a command line of plain words
    { time timeout -k 5 "$JOB_TIMEOUT" $cmd </dev/null >"$WORK/out" 2>"$WORK/err"; } 2>"$WORK/cpu"
    rc=$?
    ms=$(( $(now_ms) - t0 ))
    cpu=$(awk '{printf "%.1f", $1 + $2}' "$WORK/cpu")
    printf '%-7s %-6s %-7s %-20s rc=%-3s %6d ms %5s s cpu\n' "$LAUNCHER" "$layout" "$level" "$name" "$rc" "$ms" "$cpu"
    if [ "$rc" != 0 ]; then
        failures+=("$LAUNCHER $layout SMAP_COPY=$level $name: rc=$rc")
        local why=""
        [ "$rc" = 124 ] || [ "$rc" = 137 ] && why=", timed out after $JOB_TIMEOUT s"
        {
            echo "--- FAILED (rc=$rc$why): $cmd"
            tail -n 15 "$WORK/out" | sed 's/^/  out: /'
            tail -n 15 "$WORK/err" | sed 's/^/  err: /'
        } >&2
    fi
}

# The layouts and copy levels each program runs at, for this launcher.
case $LAUNCHER in
smrun) LAYOUTS=(2x2 1,2,3) ;;
hydra) LAYOUTS=(1,2,3) ;;
ompi) LAYOUTS=(2x2) ;;
esac
[ "$FULL" = 1 ] && LAYOUTS=(2x2 1,2,3)

i=0 k=-1
for entry in "${PROGRAMS[@]}"; do
    read -r name prog ranks args <<<"$entry"
    k=$((k + 1))
    if [ "$FULL" != 1 ]; then
        [ "$LAUNCHER" = hydra ] && [ $((k % 2)) = 1 ] && continue
        [ "$LAUNCHER" = ompi ] && [ $((k % 2)) = 0 ] && continue
    fi
    # shellcheck disable=SC2206
    args=($args)
    if [ "$ranks" = 2 ]; then
        # Two ranks, one per host: no node peer, the copy level is moot;
        # outside the full matrix each runs under one launcher: hydra
        # every other one (even k), smrun the rest, mpirun none.
        [ "$LAUNCHER" = ompi ] && [ "$FULL" != 1 ] && continue
        [ "$LAUNCHER" = smrun ] && [ "$FULL" != 1 ] && [ $((k % 2)) = 0 ] && continue
        run_one 2x1 direct "$name" "$prog" "${args[@]}"
        continue
    fi
    layouts=("${LAYOUTS[@]}")
    # smrun outside the full matrix: the two layouts alternate over the
    # programs; hydra (even k, 1,2,3) and mpirun (odd k, 2x2) run each
    # program at the layout smrun did not.
    [ "$FULL" != 1 ] && [ "$LAUNCHER" = smrun ] && layouts=("${LAYOUTS[$((k % 2))]}")
    for layout in "${layouts[@]}"; do
        if [ "$FULL" = 1 ]; then
            for level in "${LEVELS[@]}"; do
                run_one "$layout" "$level" "$name" "$prog" "${args[@]}"
            done
        else
            run_one "$layout" "${LEVELS[$((i % 3))]}" "$name" "$prog" "${args[@]}"
            i=$((i + 1))
        fi
    done
done

# Failures under the other launchers (smrun's: failures.sh): a rank on the
# second host killed with SIGKILL, MPI_Abort there, and (hydra, full
# matrix) the second host's proxy killed.  The launcher must end the job with a non-zero
# code within seconds and no rank may survive on any host.  (Ranks started
# by hydra or mpirun keep their SMARTMAP state in memfds: nothing to leave
# in /dev/shm or /tmp; failures.sh checks smrun's session directories.)
fail_job() {   # what; then the launcher's args after the layout
    local what=$1 layout=2x2
    shift
    local cmd
    read -ra cmd <<<"$(cmdline "$layout" direct)"
    SMRUN=${cmd[0]} start_job "${cmd[@]:1}" "$@"
}
failure_case() {   # what: the launcher must stop; every rank gone
    local what=$1 limit=$2
    shift 2
    finish_job
    if [ "$RC" = 0 ]; then
        failures+=("$LAUNCHER failure '$what': exit code 0"); return
    fi
    [ "$ELAPSED_MS" -lt $((limit * 1000)) ] ||
        failures+=("$LAUNCHER failure '$what': took $ELAPSED_MS ms (limit $limit s)")
    local p i
    for p in "$@"; do
        for i in $(seq 1 500); do kill -0 "$p" 2>/dev/null || continue 2; sleep 0.01; done
        failures+=("$LAUNCHER failure '$what': rank pid $p still runs 5 s after the launcher ended")
        kill -KILL "$p" 2>/dev/null
    done
    printf '%-7s failure %-24s rc=%-3s %6d ms\n' "$LAUNCHER" "$what" "$RC" "$ELAPSED_MS"
}
if [ "$LAUNCHER" != smrun ]; then
    # kill -9 of rank 3 (second host).
    fail_job "kill -9" "$HOSTINFO" "ready:$WORK" "wait:$NEVER"
    wait_ready 4
    pids=$(cat "$WORK"/ready.*)
    T0=$(now_ms)
    kill -KILL "$(rank_pid 3)"
    failure_case "kill -9 rank 3 on h2" 15 $pids
    # MPI_Abort by rank 2 (second host).
    # (The job may end before every rank wrote its pid: no wait_ready.)
    fail_job "abort" "$HOSTINFO" "ready:$WORK" abort:2 "wait:$NEVER"
    failure_case "MPI_Abort on h2" 30 $(cat "$WORK"/ready.* 2>/dev/null)
    [ "$LAUNCHER" = ompi ] && [ "$RC" != 7 ] && failures+=("ompi: MPI_Abort(7) gave exit code $RC")
fi
if [ "$LAUNCHER" = hydra ] && [ "$FULL" = 1 ]; then
    # The second host's proxy killed (full matrix only: it lasts 30 s).  hydra does not stop the job for a
    # lost proxy: the ranks end at their next PMI call (here MPI_Finalize,
    # after hostinfo's 30 s wait); what is checked is that the job ends,
    # non-zero, and leaves no rank behind.  (Open MPI: mpirun itself did
    # not stop after its second daemon was killed, seen 2026-11; not tested.)
    fail_job "daemon" "$HOSTINFO" "ready:$WORK" "wait:$NEVER"
    wait_ready 4
    pids=$(cat "$WORK"/ready.*)
    daemon=$(awk '{print $4}' "/proc/$(rank_pid 3)/stat")
    T0=$(now_ms)
    kill -KILL "$daemon"
    failure_case "daemon on h2 killed" 45 $pids
fi

echo "$LAUNCHER: $njobs jobs in $(( ($(now_ms) - T_START) / 1000 )) s (full=$FULL)"
if [ ${#failures[@]} -gt 0 ]; then
    echo "FAILED jobs (${#failures[@]} of $njobs):" >&2
    printf '  %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "PASS"
